package io.aloft.broker.api;

import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * Charges each request to its client's quotas and says how long the client must then wait
 * (KIP-219): the dispatcher sets the time as the response's {@code throttle_time_ms}, and the
 * connection stops reading for that long after sending the response.
 *
 * <p>Implementations are thread-safe: {@link #charge} runs on the connection's event loop, the
 * returned {@link Charge} on whichever thread completes the request's handler.
 */
public interface RequestThrottle {
    /** Throttles nothing. */
    RequestThrottle NONE = (context, request) -> (response, handlerNanos) -> 0;

    /**
     * Called before the request is handled (a handler may drop what it charges for, such as a
     * produce request's records): what to charge once it is answered.
     */
    Charge charge(RequestContext context, AbstractRequest request);

    /** The charge of one request. */
    interface Charge {
        /**
         * Records the request's use and returns the client's throttle time in ms (0: none).
         *
         * @param response the response, or null if there is none (a failed acks=0 produce)
         * @param handlerNanos the time the handler took on the network thread before returning its future
         */
        int throttleMs(AbstractResponse response, long handlerNanos);
    }
}
