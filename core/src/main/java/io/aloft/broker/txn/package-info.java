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
 *       log, the topic follower and each loaded partition's coordinator epoch.</li>
 *   <li>Markers: {@link io.aloft.broker.txn.InterBrokerTransactionMarkers} routes each partition's
 *       marker to its leader (WriteTxnMarkers over the inter-broker client, batched per broker,
 *       retried until written); {@link io.aloft.broker.txn.TransactionMarkerAppender} is the one
 *       place markers are appended on this broker, for the local coordinator and for WriteTxnMarkers
 *       from other brokers, {@code __consumer_offsets} ones through an
 *       {@link io.aloft.broker.txn.OffsetsTransactionCompleter} (the group coordinator).</li>
 * </ul>
 *
 * <p>Wired into the broker with {@code aloft.transactions.enable} (on by default; {@code BrokerTransactions}):
 * the handlers of InitProducerId (transactional), AddPartitionsToTxn (v0-3 from clients, v4-5 from
 * partition leaders), AddOffsetsToTxn, EndTxn (v0-5: v5 is transaction version 2, KIP-890 part 2),
 * DescribeTransactions, ListTransactions and FindCoordinator key type 1 call it; WriteTxnMarkers
 * serves other brokers' coordinators; {@link io.aloft.broker.txn.CoordinatorTransactionVerifier}
 * answers partition leaders checking the first batch of a transaction (KIP-890 part 1), and
 * {@link io.aloft.broker.txn.RetryingTransactionVerifier} asks again, for a produce, an add refused
 * while the producer's previous transaction completes; the group
 * coordinator serves TxnOffsetCommit and completes transactions in {@code __consumer_offsets}.
 */
package io.aloft.broker.txn;
