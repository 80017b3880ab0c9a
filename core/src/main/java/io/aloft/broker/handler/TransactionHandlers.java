package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.group.GroupCoordinator;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.partition.TransactionVerifier;
import io.aloft.broker.txn.TransactionCoordinator;
import java.util.List;

/**
 * The handlers of the transaction coordinator's APIs, registered only with
 * {@code aloft.transactions.enable} (so ApiVersions advertises them only then). FindCoordinator's
 * key type 1 and InitProducerId's transactional form are served by their own handlers, given the
 * coordinator. TxnOffsetCommit is the group coordinator's part, registered here with the others so
 * it too is advertised only with transactions on.
 */
public final class TransactionHandlers {
    private TransactionHandlers() {
    }

    /**
     * @param groups the group coordinator: its partitionFor(groupId) for AddOffsetsToTxn, and TxnOffsetCommit
     * @param verifier checks a transaction for a group's offsets partition for TxnOffsetCommit (KIP-890):
     *     verifies it for v0-4, adds it for v5
     */
    public static List<ApiHandler<?>> create(TransactionCoordinator coordinator, MetadataCache cache,
            GroupCoordinator groups, TransactionVerifier verifier) {
        return List.of(
                new AddPartitionsToTxnHandler(coordinator, cache),
                new AddOffsetsToTxnHandler(coordinator, groups::partitionFor),
                new TxnOffsetCommitHandler(groups, cache, verifier),
                new EndTxnHandler(coordinator),
                new DescribeTransactionsHandler(coordinator),
                new ListTransactionsHandler(coordinator));
    }
}
