package io.aloft.broker.api;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * Serves one Kafka API. ApiVersions advertises exactly the keys and version ranges of the
 * registered handlers, so a handler must accept every version in its range.
 *
 * <p>Handlers run on network threads and must not block: anything slow (the WAL, object storage,
 * the controller) returns through the future. Errors the client should see are expressed in the
 * response; an exception from the future is turned into the request's generic error response
 * (Kafka's mapping from exception to error code) at one place, the request dispatcher.
 */
public interface ApiHandler<Q extends AbstractRequest> {

    ApiKeys apiKey();

    /** Lowest version served. */
    default short minVersion() {
        return apiKey().oldestVersion();
    }

    /** Highest version served (at most what this build of kafka-clients knows). */
    default short maxVersion() {
        return apiKey().latestVersion();
    }

    CompletableFuture<AbstractResponse> handle(RequestContext context, Q request);
}
