package io.aloft.broker.network;

import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a completed request's turn on its connection does, so that no request is left unanswered:
 * <ol>
 *   <li>its response, encoded at the request's version;
 *   <li>if that cannot be encoded (a handler set a field the version lacks, a string too long for
 *       its length prefix), the request's own error response with UNKNOWN_SERVER_ERROR, logged once
 *       (a handler that failed has already been answered with its error response, carrying the
 *       failure's code, by the {@link RequestDispatcher}: this is the second try for that too);
 *   <li>if no error response can be built or encoded either, the connection is closed: a client
 *       fails a request on a closed connection at once, but would wait on a missing response until
 *       its own timeout, or forever.
 * </ol>
 * Produce with acks=0 has no response; when it failed the connection is closed, as Kafka does, so
 * the producer refreshes its metadata rather than keep sending into the void.
 *
 * <p>Stateless.
 */
final class ResponseFrames {
    private static final Logger log = LoggerFactory.getLogger(ResponseFrames.class);

    /**
     * One request's turn: write {@code frame} (when not null), or close the connection for
     * {@code closeReason} (when not null; {@code expectedClose} when a client's own error calls for
     * it rather than a broker fault), or, with neither, nothing (acks=0).
     */
    record Outcome(ByteBuffer[] frame, String closeReason, boolean expectedClose) {
        static final Outcome NOTHING = new Outcome(null, null, false);

        static Outcome close(String reason) {
            return new Outcome(null, reason, false);
        }
    }

    private ResponseFrames() {
    }

    /**
     * @param request the parsed request, or null for an answer the connection made itself (then
     *     there is no error response to fall back to)
     * @param response what the dispatcher completed with (null: nothing, or a failed acks=0 produce)
     * @param error why the dispatcher failed (it could not build an error response), or null
     */
    static Outcome of(RequestHeader header, AbstractRequest request, boolean sendsResponse, AbstractResponse response,
            Throwable error, String connectionId) {
        if (error != null) {
            return Outcome.close("no error response could be built: " + error);
        }
        if (!sendsResponse) {
            // No response at all means the handler failed (acks=0 produce has no error response).
            if (response == null || response.errorCounts().keySet().stream().anyMatch(e -> e != Errors.NONE)) {
                return new Outcome(null, "acks=0 produce failed " + (response == null ? "" : response.errorCounts())
                        + "; closing so the producer refreshes its metadata", true);
            }
            return Outcome.NOTHING;
        }
        if (response == null) {
            return Outcome.close("the dispatcher completed it with no response");
        }
        try {
            return new Outcome(encode(header, response), null, false);
        } catch (RuntimeException e) {
            if (request == null) {
                return Outcome.close("its response cannot be encoded: " + e);
            }
            log.warn("{} v{} (correlation id {}) from {}: the response cannot be encoded at its version; answering "
                    + "UNKNOWN_SERVER_ERROR", header.apiKey(), header.apiVersion(), header.correlationId(),
                    connectionId, e);
        }
        try {
            return new Outcome(encode(header, request.getErrorResponse(Errors.UNKNOWN_SERVER_ERROR.exception())),
                    null, false);
        } catch (RuntimeException e) {
            return Outcome.close("not even its error response can be encoded: " + e);
        }
    }

    private static ByteBuffer[] encode(RequestHeader header, AbstractResponse response) {
        return ResponseWriter.encode(header.apiKey(), header.apiVersion(), header.correlationId(), response.data());
    }
}
