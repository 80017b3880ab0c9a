package io.aloft.broker.partition;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * Asks a transaction's coordinator about one partition for a partition leader about to append the
 * transaction's first batch there (KIP-890): whether the partition is in the transaction, or (for
 * transaction-version-2 producers) to add it. Implemented next to the coordinator, wherever it runs
 * (this broker or another one).
 *
 * <p>Implementations are thread-safe; the future may complete on any thread.
 */
public interface TransactionVerifier {

    /**
     * @return the coordinator's code for {@code tp} (NONE: the batch may open the transaction
     *     there), before {@link TransactionCheck#produceError}; completes exceptionally only when
     *     the coordinator could not be reached (answered as NETWORK_EXCEPTION would be)
     */
    CompletableFuture<Errors> check(String transactionalId, long producerId, short producerEpoch, TopicPartition tp,
            TransactionCheck check);
}
