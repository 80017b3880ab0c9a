package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.txn.TransactionCoordinator;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * The handlers of the transaction coordinator's APIs, registered only with
 * {@code aloft.transactions.enable} (so ApiVersions advertises them only then). FindCoordinator's
 * key type 1 and InitProducerId's transactional form are served by their own handlers, given the
 * coordinator. TxnOffsetCommit (the group coordinator's part) is not served yet.
 */
public final class TransactionHandlers {
    private TransactionHandlers() {
    }

    /** @param groupPartition the group coordinator's partitionFor(groupId), for AddOffsetsToTxn */
    public static List<ApiHandler<?>> create(TransactionCoordinator coordinator, MetadataCache cache,
            ToIntFunction<String> groupPartition) {
        return List.of(
                new AddPartitionsToTxnHandler(coordinator, cache),
                new AddOffsetsToTxnHandler(coordinator, groupPartition),
                new EndTxnHandler(coordinator),
                new DescribeTransactionsHandler(coordinator),
                new ListTransactionsHandler(coordinator));
    }
}
