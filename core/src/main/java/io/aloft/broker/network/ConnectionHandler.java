package io.aloft.broker.network;

import io.aloft.broker.api.RequestContext;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: parses each frame into a request, dispatches it, and writes responses
 * in request order (Kafka clients match responses to requests by order as well as correlation
 * id). Requests of one connection may be served concurrently; a response that is ready early
 * waits for those before it.
 *
 * <p>A frame that cannot be parsed, or an API/version that is not served, closes this connection
 * with a log line; other connections are unaffected. (ApiVersions at an unknown version is the
 * exception Kafka defines: it is answered at v0 with UNSUPPORTED_VERSION and the served ranges, so
 * the client can pick a version.)
 *
 * <p><b>No request is left unanswered.</b> A response is encoded as soon as its handler completes,
 * and what the client gets instead when it cannot be is decided by {@link ResponseFrames}: the
 * request's error response, or, if not even that can be encoded, a closed connection when that
 * request's turn comes (after the responses before it), with one log line naming API, version,
 * correlation id and cause.
 *
 * <p>Runs on the connection's event loop; every field is confined to it.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);

    /** Requests in flight per connection before the server stops reading from it (back-pressure). */
    static final int MAX_IN_FLIGHT = 100;

    private final RequestDispatcher dispatcher;
    private final String listenerName;
    private final String connectionId;
    private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
    /** Set once a request's turn closes the connection: nothing after it is read or answered. */
    private boolean closing;

    /** A request waiting for its turn to be answered. */
    private static final class InFlight {
        final RequestHeader header;
        /** Null for the ApiVersions answer this handler makes itself. */
        final AbstractRequest request;
        final boolean sendsResponse;
        /** What its turn does, once done. */
        ResponseFrames.Outcome outcome;
        boolean done;

        InFlight(RequestHeader header, AbstractRequest request, boolean sendsResponse) {
            this.header = header;
            this.request = request;
            this.sendsResponse = sendsResponse;
        }

        String describe() {
            return header.apiKey() + " v" + header.apiVersion() + " (correlation id " + header.correlationId() + ")";
        }
    }

    ConnectionHandler(RequestDispatcher dispatcher, String listenerName, String connectionId) {
        this.dispatcher = dispatcher;
        this.listenerName = listenerName;
        this.connectionId = connectionId;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        if (closing) {
            frame.release();
            return;
        }
        ByteBuffer buffer;
        try {
            // Request objects may keep slices of the buffer (record batches), so give them their own copy.
            buffer = ByteBuffer.allocate(frame.readableBytes());
            frame.readBytes(buffer);
            buffer.flip();
        } finally {
            frame.release();
        }
        RequestHeader header;
        AbstractRequest request;
        try {
            header = RequestHeader.parse(buffer);
        } catch (RuntimeException e) {
            closeForBadInput(ctx, "unparsable request header: " + e);
            return;
        }
        ApiKeys key = header.apiKey();
        if (!dispatcher.supports(key, header.apiVersion())) {
            if (key == ApiKeys.API_VERSIONS) {
                answerUnsupportedApiVersions(ctx, header);
            } else {
                closeForBadInput(ctx, key + " v" + header.apiVersion() + " is not served");
            }
            return;
        }
        try {
            request = AbstractRequest.parseRequest(key, header.apiVersion(), new ByteBufferAccessor(buffer)).request;
        } catch (RuntimeException e) {
            closeForBadInput(ctx, "unparsable " + key + " v" + header.apiVersion() + " body: " + e);
            return;
        }
        boolean sendsResponse = !(request instanceof ProduceRequest produce && produce.acks() == 0);
        InFlight entry = new InFlight(header, request, sendsResponse);
        inFlight.add(entry);
        if (inFlight.size() >= MAX_IN_FLIGHT) {
            ctx.channel().config().setAutoRead(false);
        }
        RequestContext context = new RequestContext(header, listenerName,
                (InetSocketAddress) ctx.channel().remoteAddress(), connectionId);
        dispatcher.dispatch(context, request).whenComplete((response, error) -> ctx.executor().execute(() -> {
            complete(entry, response, error);
            writeReady(ctx);
        }));
    }

    private void complete(InFlight entry, AbstractResponse response, Throwable error) {
        entry.outcome = ResponseFrames.of(entry.header, entry.request, entry.sendsResponse, response, error,
                connectionId);
        entry.done = true;
    }

    private void writeReady(ChannelHandlerContext ctx) {
        if (closing) {
            return;
        }
        boolean wrote = false;
        while (!inFlight.isEmpty() && inFlight.peek().done) {
            InFlight e = inFlight.poll();
            if (!ctx.channel().isActive()) {
                continue;
            }
            if (e.outcome.closeReason() != null) {
                if (e.outcome.expectedClose()) {
                    log.debug("Closing connection {} from {}: {}: {}", connectionId, ctx.channel().remoteAddress(),
                            e.describe(), e.outcome.closeReason());
                } else {
                    log.warn("Closing connection {} from {}: {}: {}", connectionId, ctx.channel().remoteAddress(),
                            e.describe(), e.outcome.closeReason());
                }
                closing = true;
                inFlight.clear();
                ctx.channel().config().setAutoRead(false);
                // The responses written before are flushed first, then the connection closes.
                ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> ctx.close());
                return;
            }
            if (e.outcome.frame() != null) {
                ctx.write(Unpooled.wrappedBuffer(e.outcome.frame()));
                wrote = true;
            }
        }
        if (wrote) {
            ctx.flush();
        }
        if (inFlight.size() < MAX_IN_FLIGHT / 2 && !ctx.channel().config().isAutoRead()) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    private void answerUnsupportedApiVersions(ChannelHandlerContext ctx, RequestHeader header) {
        ApiVersionsResponseData body = new ApiVersionsResponseData()
                .setErrorCode(Errors.UNSUPPORTED_VERSION.code())
                .setApiKeys(dispatcher.apiVersions());
        InFlight entry = new InFlight(new RequestHeader(ApiKeys.API_VERSIONS, (short) 0, header.clientId(),
                header.correlationId()), null, true);
        inFlight.add(entry);
        complete(entry, new ApiVersionsResponse(body), null);
        writeReady(ctx);
    }

    private void closeForBadInput(ChannelHandlerContext ctx, String why) {
        log.warn("Closing connection {} from {}: {}", connectionId, ctx.channel().remoteAddress(), why);
        ctx.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof TooLongFrameException) {
            closeForBadInput(ctx, "request larger than socket.request.max.bytes (" + cause.getMessage() + ")");
        } else if (cause instanceof DecoderException || cause instanceof UnsupportedVersionException) {
            closeForBadInput(ctx, cause.toString());
        } else if (cause instanceof java.io.IOException) {
            log.debug("Connection {} failed: {}", connectionId, cause.toString());
            ctx.close();
        } else {
            log.warn("Closing connection {} after an unexpected error", connectionId, cause);
            ctx.close();
        }
    }
}
