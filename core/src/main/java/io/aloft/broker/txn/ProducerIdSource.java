package io.aloft.broker.txn;

import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;

/**
 * Fresh producer ids for the transaction coordinator, which needs one without waiting: its shards
 * run operations one at a time on their threads and must not block. Implementations are
 * thread-safe; {@link PrefetchingProducerIdSource} adapts the broker's {@code ProducerIdManager}.
 */
public interface ProducerIdSource {

    /**
     * A producer id never handed out before, at once.
     *
     * @throws CoordinatorLoadInProgressException if none is at hand yet (one is being fetched); the
     *     client gets COORDINATOR_LOAD_IN_PROGRESS and retries, as Kafka's coordinator answers while it
     *     waits for a new block of ids
     */
    long nextProducerId();
}
