package io.aloft.broker.api;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * Serves one Kafka API. ApiVersions advertises exactly the keys and version ranges of the
 * registered handlers, so a handler must accept every version in its range, and its responses must
 * set only fields the request's version has (a response that cannot be encoded is replaced by the
 * request's UNKNOWN_SERVER_ERROR response).
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

    /**
     * Lowest version advertised in ApiVersions: {@link #minVersion()}, except where Kafka advertises
     * versions it no longer serves for old clients' sake (Produce; see KAFKA-18659). A request at an
     * advertised but unserved version closes its connection, as Kafka's does.
     */
    default short advertisedMinVersion() {
        return minVersion();
    }

    /**
     * Highest version served and advertised (at most what this build of kafka-clients knows, and
     * what Apache Kafka 4.3 serves: a test compares the two).
     */
    default short maxVersion() {
        return apiKey().latestVersion();
    }

    CompletableFuture<AbstractResponse> handle(RequestContext context, Q request);
}
