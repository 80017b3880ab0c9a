/**
 * The transaction coordinator (issue 16: transactions and exactly-once; KIP-98, KIP-360, KIP-890),
 * built on the coordinator runtime of {@link io.aloft.broker.coordinator} by its recipe.
 *
 * <ul>
 *   <li>{@link io.aloft.broker.txn.TransactionRecord} and
 *       {@link io.aloft.broker.txn.TransactionRecordSerde}: the records of {@code __transaction_state}
 *       (key: transactional id; value: that id's whole metadata, versioned; null: tombstone).</li>
 *   <li>{@code TransactionCoordinatorShard}: Kafka's state machine
 *       ({@link io.aloft.broker.txn.TransactionState}) per transactional id of one partition, with its
 *       rules in {@code EndTxnRules} (what EndTxn answers, v1 and v2) and {@code Transitions} (the
 *       epochs and producer ids each transition leads to).</li>
 *   <li>{@link io.aloft.broker.txn.TransactionCoordinator}: the service request handlers call; routes
 *       ids to partitions and maps failures to error codes.</li>
 *   <li>What it needs from the rest of the broker: {@link io.aloft.broker.txn.ProducerIdSource}
 *       (non-blocking; {@link io.aloft.broker.txn.PrefetchingProducerIdSource} over
 *       {@code ProducerIdManager::nextId}) and {@link io.aloft.broker.txn.TransactionMarkers} (the
 *       partition side writes the markers); {@link io.aloft.broker.txn.TransactionStateTopic} gives the
 *       log and topic follower.</li>
 * </ul>
 *
 * <p>Not wired yet: InitProducerId (transactional), AddPartitionsToTxn, AddOffsetsToTxn, EndTxn,
 * DescribeTransactions, ListTransactions and FindCoordinator key type 1 still answer as before.
 * Wiring them means: a {@code TransactionCoordinator} over {@code TransactionStateTopic.log}, its
 * {@code TransactionStateTopic.follower} started with the broker, the handlers calling it (AddOffsetsToTxn
 * with the group coordinator's {@code partitionFor(groupId)}, the client transaction version taken from
 * the request versions as Kafka does), and a {@code TransactionMarkers} from the partition side.
 */
package io.aloft.broker.txn;
