package io.aloft.broker.network;

import io.aloft.broker.api.RequestContext;
import io.aloft.broker.network.NetworkMetrics.ApiMeters;
import io.aloft.broker.network.ReadPauses.Reason;
import io.aloft.broker.security.sasl.FailedAuthentications;
import io.aloft.broker.security.sasl.SaslListenerSettings;
import io.aloft.broker.security.sasl.SaslSession;
import io.aloft.broker.security.ConnectionSecurity;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
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
 * (other connections are unaffected) and nothing more it sent is read. Its first bad frame is
 * logged as one WARN line, through the broker-wide {@link RateLimitedWarnings} for bad requests;
 * frames already read behind it are dropped and counted, and if there were any, one summary line
 * (count and kinds) follows when the connection closes. (ApiVersions at an unknown version is the
 * exception Kafka defines: it is answered at v0 with UNSUPPORTED_VERSION and the served ranges, so
 * the client can pick a version.)
 *
 * <p><b>Memory.</b> Each {@link RequestFrame} is released (its bytes given back to the request
 * memory pool) when the request's handler completes: until then the request may still read its
 * bytes. {@link RequestFrameDecoder} does the reserving.
 *
 * <p><b>Idle connections.</b> A connection with no request activity for
 * {@code connections.max.idle.ms} is closed: activity is a whole request frame read or a response
 * written, and a connection with a request in flight (a long-polling fetch) is never idle. Bytes
 * trickling in without completing a frame are not activity, so a connection stalled mid-frame (or
 * one that sends a frame byte by byte) is closed like an idle one; Kafka, which counts any socket
 * activity, would keep a trickling one open.
 *
 * <p><b>No request is left unanswered.</b> A response is encoded as soon as its handler completes,
 * and what the client gets instead when it cannot be is decided by {@link ResponseFrames}: the
 * request's error response, or, if not even that can be encoded, a closed connection when that
 * request's turn comes (after the responses before it), with one log line naming API, version,
 * correlation id and cause.
 *
 * <p><b>Meters.</b> Each request's times are taken at the split points {@link NetworkMetrics}
 * describes, kept in its {@link InFlight} entry (no allocation beyond it), and recorded in its API's
 * meters; each response's error codes are counted there too.
 *
 * <p><b>SASL.</b> On a SASL listener the connection has a {@link SaslSession}: until it is
 * authenticated only the requests it admits are served (anything else closes the connection, as
 * Kafka does), a frame larger than {@link #MAX_UNAUTHENTICATED_FRAME} closes it (Kafka's
 * {@code sasl.server.max.receive.size}; checked once the frame is read), after SaslHandshake v0 the
 * next frame is a bare token answered by a bare token, and an answer the session marks as the last
 * (failed authentication, unsupported mechanism) is written, then the connection closes.
 *
 * <p><b>Client quotas.</b> A response carrying a throttle time (set by the dispatcher for a client
 * over its quota) is sent at once, then the connection reads nothing for that long (Kafka's channel
 * muting, KIP-219); a produce with acks=0, which has no response, pauses it just the same.
 *
 * <p>Runs on the connection's event loop; every field is confined to it (an entry's
 * {@code handled} time is written by the thread completing its handler's future, before the hand-over
 * to the event loop).
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);

    /** Requests in flight per connection before the server stops reading from it (back-pressure). */
    static final int MAX_IN_FLIGHT = 100;

    /** Largest frame read before authentication: Kafka's default {@code sasl.server.max.receive.size}. */
    static final int MAX_UNAUTHENTICATED_FRAME = 524_288;

    private final RequestDispatcher dispatcher;
    private final ConnectionSecurity security;
    private final String connectionId;
    private final ReadPauses pauses;
    private final RateLimitedWarnings badRequests;
    private final NetworkMetrics metrics;
    /** Nanoseconds, or -1: never close for idleness. */
    private final long maxIdleNanos;
    private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
    /** Set once a request's turn closes the connection: nothing after it is read or answered. */
    private boolean closing;
    /** When a request was last read or a response written (System.nanoTime). */
    private long lastActivity = System.nanoTime();
    private ScheduledFuture<?> idleCheck;
    /** Bad frames of this connection (the first closes it; more may have been read already), by kind. */
    private final Map<String, Integer> badFrames = new TreeMap<>();
    private String firstBadFrame;
    /** The SASL state on a SASL listener, else null. */
    private final SaslSession sasl;
    /** Until when (System.nanoTime) reads are paused for a client quota, and the task that resumes them. */
    private long throttledUntil;
    private ScheduledFuture<?> unthrottle;

    /** A request waiting for its turn to be answered; told when its response has been sent. */
    private static final class InFlight implements ChannelFutureListener {
        final RequestHeader header;
        /** Its API's meters; null for the answer this handler makes itself. */
        ApiMeters meters;
        /** The split points of its time (System.nanoTime; see NetworkMetrics). */
        long received;
        long dispatched;
        /** Written by the thread completing the handler's future; the event loop's task queue publishes it. */
        long handled;
        long written;
        /** Null for the ApiVersions answer this handler makes itself, and once the request is done. */
        AbstractRequest request;
        /** The request's bytes, released once it is done; null for the answer this handler makes itself. */
        final RequestFrame frame;
        final boolean sendsResponse;
        /** What its turn does, once done. */
        ResponseFrames.Outcome outcome;
        /** The client's throttle time its response carries (client quotas), 0 if none. */
        int throttleMs;
        boolean done;
        /** The connection closes once this answer is written (a SASL exchange broken off). */
        boolean lastAnswer;

        InFlight(RequestHeader header, AbstractRequest request, RequestFrame frame, boolean sendsResponse) {
            this.header = header;
            this.request = request;
            this.frame = frame;
            this.sendsResponse = sendsResponse;
        }

        @Override
        public void operationComplete(ChannelFuture future) {
            if (future.isSuccess()) {
                long sent = System.nanoTime();
                meters.record(meters.responseSendTime, written, sent);
                meters.record(meters.totalTime, received, sent);
            }
        }

        String describe() {
            return header.apiKey() + " v" + header.apiVersion() + " (correlation id " + header.correlationId() + ")";
        }
    }

    /**
     * @param security the connection's protocol and principal, given to every request's context
     * @param maxIdleMs {@code connections.max.idle.ms}; -1: never close for idleness
     */
    ConnectionHandler(RequestDispatcher dispatcher, ConnectionSecurity security, String connectionId,
            ReadPauses pauses, RateLimitedWarnings badRequests, long maxIdleMs, NetworkMetrics metrics,
            SaslListenerSettings sasl, FailedAuthentications failedAuthentications) {
        this.sasl = sasl == null ? null : new SaslSession(sasl, System::nanoTime, failedAuthentications);
        this.metrics = metrics;
        this.dispatcher = dispatcher;
        this.security = security;
        this.connectionId = connectionId;
        this.pauses = pauses;
        this.badRequests = badRequests;
        this.maxIdleNanos = maxIdleMs < 0 ? -1 : TimeUnit.MILLISECONDS.toNanos(maxIdleMs);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        lastActivity = System.nanoTime();
        scheduleIdleCheck(ctx, maxIdleNanos);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        RequestFrame frame = (RequestFrame) msg;
        if (closing) {
            frame.release();
            if (firstBadFrame != null) {
                badFrames.merge("read before the close", 1, Integer::sum);
            }
            return;
        }
        if (sasl != null && !sasl.authenticated()) {
            if (sasl.failed()) {
                frame.release(); // the failure's answer is pending; the connection closes after it
                return;
            }
            if (frame.size() > MAX_UNAUTHENTICATED_FRAME) {
                frame.release();
                closeForBadInput(ctx, "oversized before authentication", "a " + frame.size()
                        + "-byte frame before authentication (at most " + MAX_UNAUTHENTICATED_FRAME + ")");
                return;
            }
            if (sasl.expectsRawToken()) {
                rawToken(ctx, frame);
                return;
            }
        }
        long received = System.nanoTime();
        lastActivity = received;
        // No copy: the frame's buffer is the request's own (request objects may keep slices of it).
        ByteBuffer buffer = frame.buffer();
        RequestHeader header;
        AbstractRequest request;
        try {
            header = RequestHeader.parse(buffer);
        } catch (RuntimeException e) {
            frame.release();
            closeForBadInput(ctx, "unparsable header", "unparsable request header: " + e);
            return;
        }
        ApiKeys key = header.apiKey();
        if (sasl != null && !sasl.admits(key)) {
            if (sasl.answersIllegalState(key)) {
                answerIllegalSaslState(ctx, header, buffer, frame);
                return;
            }
            frame.release();
            closeForBadInput(ctx, "request before authentication", key + " v" + header.apiVersion()
                    + " is not allowed in the SASL exchange's current state");
            return;
        }
        if (!dispatcher.supports(key, header.apiVersion())) {
            frame.release();
            if (key == ApiKeys.API_VERSIONS) {
                answerUnsupportedApiVersions(ctx, header);
            } else {
                closeForBadInput(ctx, "API or version not served", key + " v" + header.apiVersion()
                        + " is not served");
            }
            return;
        }
        try {
            request = AbstractRequest.parseRequest(key, header.apiVersion(), new ByteBufferAccessor(buffer)).request;
        } catch (RuntimeException e) {
            frame.release();
            closeForBadInput(ctx, "unparsable body", "unparsable " + key + " v" + header.apiVersion() + " body: " + e);
            return;
        }
        boolean sendsResponse = !(request instanceof ProduceRequest produce && produce.acks() == 0);
        InFlight entry = new InFlight(header, request, frame, sendsResponse);
        entry.meters = metrics.api(key);
        entry.meters.requested(header.apiVersion());
        entry.received = received;
        add(entry);
        if (inFlight.size() >= MAX_IN_FLIGHT) {
            pauses.pause(Reason.IN_FLIGHT);
        }
        RequestContext context = new RequestContext(header, security.listenerName(),
                (InetSocketAddress) ctx.channel().remoteAddress(), connectionId, security, sasl);
        entry.dispatched = System.nanoTime();
        dispatcher.dispatch(context, request).whenComplete((response, error) -> {
            entry.handled = System.nanoTime();
            ctx.executor().execute(() -> {
                complete(entry, response, error);
                writeReady(ctx);
            });
        });
    }

    private void add(InFlight entry) {
        inFlight.add(entry);
        metrics.requestRead();
    }

    private void clearInFlight() {
        metrics.requestsDone(inFlight.size());
        inFlight.clear();
    }

    private void complete(InFlight entry, AbstractResponse response, Throwable error) {
        ApiMeters m = entry.meters;
        if (m != null) {
            m.record(m.requestQueueTime, entry.received, entry.dispatched);
            m.record(m.localTime, entry.dispatched, entry.handled);
            if (!entry.sendsResponse) {
                m.record(m.totalTime, entry.received, entry.handled);
            }
            if (response != null) {
                countErrors(m, response);
            }
        }
        entry.throttleMs = response == null ? 0 : response.throttleTimeMs();
        entry.outcome = ResponseFrames.of(entry.header, entry.request, entry.sendsResponse, response, error,
                connectionId);
        entry.done = true;
        // The response is encoded: the request and its bytes are no longer needed here.
        entry.request = null;
        if (entry.frame != null) {
            entry.frame.release();
        }
    }

    /** Never fails the response: a response whose error codes cannot be read is only not counted. */
    private void countErrors(ApiMeters m, AbstractResponse response) {
        try {
            response.errorCounts().forEach(m::errors);
        } catch (RuntimeException e) {
            log.debug("Could not count the error codes of a {} response on {}", m, connectionId, e);
        }
    }

    private void writeReady(ChannelHandlerContext ctx) {
        if (closing) {
            return;
        }
        boolean wrote = false;
        while (!inFlight.isEmpty() && inFlight.peek().done) {
            InFlight e = inFlight.poll();
            metrics.requestsDone(1);
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
                clearInFlight();
                pauses.pause(Reason.CLOSING);
                // The responses written before are flushed first, then the connection closes.
                ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> ctx.close());
                return;
            }
            if (e.outcome.frame() != null) {
                // Most frames fit one piece and are written as they are; a larger one goes out a piece
                // at a time (ResponseChunks).
                ByteBuffer[] frame = e.outcome.frame();
                e.written = System.nanoTime();
                ChannelFuture sent = ctx.write(WritePieces.bytes(frame) <= WritePieces.PIECE_BYTES
                        ? Unpooled.wrappedBuffer(frame)
                        : new ResponseChunks(WritePieces.split(frame, WritePieces.PIECE_BYTES)));
                if (e.meters != null) {
                    e.meters.record(e.meters.responseQueueTime, e.handled, e.written);
                    sent.addListener(e);
                }
                wrote = true;
            }
            if (e.throttleMs > 0) {
                throttle(ctx, e.throttleMs);
            }
            if (e.lastAnswer || sasl != null && sasl.closeAfterResponse() && isSasl(e.header.apiKey())) {
                // A failed authentication or an unsupported mechanism: the answer, then the close.
                closing = true;
                clearInFlight();
                pauses.pause(Reason.CLOSING);
                ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> ctx.close());
                return;
            }
        }
        if (wrote) {
            ctx.flush();
            lastActivity = System.nanoTime();
        }
        if (inFlight.size() < MAX_IN_FLIGHT / 2) {
            pauses.resume(Reason.IN_FLIGHT);
        }
    }

    /**
     * A client over a quota: reading stops for its throttle time from now, as Kafka mutes the
     * channel once the response is sent (KIP-219; the response itself is not delayed).
     */
    private void throttle(ChannelHandlerContext ctx, int throttleMs) {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(throttleMs);
        if (pauses.paused(Reason.THROTTLED) && until - throttledUntil <= 0) {
            return;
        }
        throttledUntil = until;
        pauses.pause(Reason.THROTTLED);
        if (unthrottle != null) {
            unthrottle.cancel(false);
        }
        unthrottle = ctx.executor().schedule(() -> pauses.resume(Reason.THROTTLED), throttleMs, TimeUnit.MILLISECONDS);
    }

    private static boolean isSasl(ApiKeys key) {
        return key == ApiKeys.SASL_HANDSHAKE || key == ApiKeys.SASL_AUTHENTICATE;
    }

    /**
     * A bare token after SaslHandshake v0: each step is answered by the server's bare token (PLAIN:
     * empty; SCRAM: server-first, then server-final, the connection staying in the raw framing until
     * the exchange completes); failure closes the connection after the failed-authentication delay, with no
     * answer (the v0 framing has no way to carry an error), as Kafka does.
     */
    private void rawToken(ChannelHandlerContext ctx, RequestFrame frame) {
        ByteBuffer buffer = frame.buffer();
        byte[] token = new byte[buffer.remaining()];
        buffer.duplicate().get(token);
        frame.release();
        lastActivity = System.nanoTime();
        if (!inFlight.isEmpty()) {
            // The handshake's answer is not out yet: the client did not wait for it.
            closeForBadInput(ctx, "out-of-order SASL token", "a SASL token before the handshake was answered");
            return;
        }
        SaslSession.Result result = sasl.authenticate(token);
        if (result.succeeded()) {
            if (result.complete()) {
                security.authenticated(sasl.principal());
            }
            // The server's token, size-prefixed: empty for PLAIN; SCRAM's server-first, then server-final.
            byte[] response = result.response();
            ctx.writeAndFlush(Unpooled.wrappedBuffer(java.nio.ByteBuffer.allocate(4).putInt(0, response.length),
                    ByteBuffer.wrap(response)));
            return;
        }
        log.info("Failed authentication of connection {} from {} on listener {} with SASL mechanism {} ({})",
                connectionId, ctx.channel().remoteAddress(), security.listenerName(), sasl.mechanism(), result.error());
        closing = true;
        pauses.pause(Reason.CLOSING);
        ctx.executor().schedule(() -> ctx.close(), sasl.failureDelayMs(
                ((InetSocketAddress) ctx.channel().remoteAddress()).getAddress()), TimeUnit.MILLISECONDS);
    }

    /**
     * A request other than SaslAuthenticate in the middle of a SASL exchange: Kafka answers it with
     * ILLEGAL_SASL_STATE and closes the connection, and so do we (clients then see the error, not a
     * bare disconnect).
     */
    private void answerIllegalSaslState(ChannelHandlerContext ctx, RequestHeader header, ByteBuffer body,
            RequestFrame frame) {
        AbstractRequest request;
        try {
            request = AbstractRequest.parseRequest(header.apiKey(), header.apiVersion(),
                    new ByteBufferAccessor(body)).request;
        } catch (RuntimeException e) {
            frame.release();
            closeForBadInput(ctx, "unparsable body", "unparsable " + header.apiKey() + " v" + header.apiVersion()
                    + " body in a SASL exchange: " + e);
            return;
        }
        sasl.breakOff();
        InFlight entry = new InFlight(header, request, frame, true);
        entry.lastAnswer = true;
        add(entry);
        complete(entry, request.getErrorResponse(Errors.ILLEGAL_SASL_STATE.exception()), null);
        writeReady(ctx);
    }

    private void answerUnsupportedApiVersions(ChannelHandlerContext ctx, RequestHeader header) {
        ApiVersionsResponseData body = new ApiVersionsResponseData()
                .setErrorCode(Errors.UNSUPPORTED_VERSION.code())
                .setApiKeys(dispatcher.apiVersions());
        InFlight entry = new InFlight(new RequestHeader(ApiKeys.API_VERSIONS, (short) 0, header.clientId(),
                header.correlationId()), null, null, true);
        add(entry);
        complete(entry, new ApiVersionsResponse(body), null);
        writeReady(ctx);
    }

    /**
     * Closes the connection for a bad frame of {@code kind}: the first one is logged (rate-limited
     * broker-wide), later ones are only counted for the summary at close.
     */
    private void closeForBadInput(ChannelHandlerContext ctx, String kind, String why) {
        badFrames.merge(kind, 1, Integer::sum);
        if (firstBadFrame == null) {
            firstBadFrame = kind;
            badRequests.warn(kind, "Closing connection {} from {}: {}", connectionId, ctx.channel().remoteAddress(),
                    why);
        }
        if (!closing) {
            closing = true;
            clearInFlight();
            pauses.pause(Reason.CLOSING);
            ctx.close();
        }
    }

    private void scheduleIdleCheck(ChannelHandlerContext ctx, long delayNanos) {
        if (maxIdleNanos >= 0) {
            idleCheck = ctx.executor().schedule(() -> checkIdle(ctx), delayNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void checkIdle(ChannelHandlerContext ctx) {
        if (closing || !ctx.channel().isActive()) {
            return;
        }
        long now = System.nanoTime();
        if (!inFlight.isEmpty()) {
            lastActivity = now; // a request being served is activity
        }
        long idle = now - lastActivity;
        if (idle < maxIdleNanos) {
            scheduleIdleCheck(ctx, maxIdleNanos - idle);
            return;
        }
        // Kafka closes idle connections silently too; clients reconnect when they need to.
        log.debug("Closing connection {} from {}: no request for {} ms (connections.max.idle.ms)", connectionId,
                ctx.channel().remoteAddress(), TimeUnit.NANOSECONDS.toMillis(idle));
        closing = true;
        pauses.pause(Reason.CLOSING);
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (idleCheck != null) {
            idleCheck.cancel(false);
        }
        if (unthrottle != null) {
            unthrottle.cancel(false);
        }
        int total = badFrames.values().stream().mapToInt(Integer::intValue).sum();
        if (total > 1) {
            badRequests.warn(firstBadFrame, "Connection {} from {} closed after {} bad frames (by kind: {})",
                    connectionId, ctx.channel().remoteAddress(), total, badFrames);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof TooLongFrameException) {
            closeForBadInput(ctx, "oversized", cause.getMessage());
        } else if (cause instanceof CorruptedFrameException) {
            closeForBadInput(ctx, "corrupt size", cause.getMessage());
        } else if (cause instanceof DecoderException || cause instanceof UnsupportedVersionException) {
            closeForBadInput(ctx, "undecodable", cause.toString());
        } else if (cause instanceof java.io.IOException) {
            log.debug("Connection {} failed: {}", connectionId, cause.toString());
            ctx.close();
        } else {
            log.warn("Closing connection {} after an unexpected error", connectionId, cause);
            ctx.close();
        }
    }
}
