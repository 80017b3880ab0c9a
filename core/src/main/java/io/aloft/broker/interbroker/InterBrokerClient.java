package io.aloft.broker.interbroker;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * Sends Kafka requests from this broker to another one (WriteTxnMarkers from a transaction
 * coordinator to partition leaders; AddPartitionsToTxn verification from partition leaders to
 * coordinators), as Kafka brokers send them to each other: over the other broker's inter-broker
 * listener, at the highest version both sides serve.
 *
 * <p>The client does not retry: a request either gets its response or fails, and the caller decides
 * whether and when to send it again (it knows which outcomes are worth retrying, and may route the
 * retry elsewhere after refreshing a leader). Failures, as exceptions of the future:
 * {@link org.apache.kafka.common.errors.BrokerNotAvailableException} (the broker is not in the
 * metadata, or has no such listener), {@link org.apache.kafka.common.errors.DisconnectException}
 * (the connection could not be made, or was lost before the response),
 * {@link org.apache.kafka.common.errors.TimeoutException} (no response within the request timeout),
 * {@link org.apache.kafka.common.errors.UnsupportedVersionException} (the other broker does not serve
 * the API, e.g. it runs with transactions off), or an {@link IllegalStateException} once closed.
 *
 * <p>Implementations are thread-safe, and {@link #send} never blocks.
 */
public interface InterBrokerClient extends AutoCloseable {

    /**
     * Sends {@code request} to broker {@code brokerId}; completes with its response. The version is
     * chosen from the builder's range and what the other broker advertises.
     */
    CompletableFuture<AbstractResponse> send(int brokerId, AbstractRequest.Builder<?> request);

    /** Fails every request not answered yet and releases the connections. */
    @Override
    void close();
}
