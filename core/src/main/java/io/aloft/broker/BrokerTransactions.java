package io.aloft.broker;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.coordinator.CoordinatorThreads;
import io.aloft.broker.coordinator.CoordinatorTimer;
import io.aloft.broker.coordinator.CoordinatorTopic;
import io.aloft.broker.group.GroupCoordinator;
import io.aloft.broker.handler.FindCoordinatorHandler;
import io.aloft.broker.handler.TransactionHandlers;
import io.aloft.broker.lifecycle.FatalFailureHandler;
import io.aloft.broker.lifecycle.NamedThreadFactory;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.partition.PartitionManager;
import io.aloft.broker.producer.ProducerIdManager;
import io.aloft.broker.handler.WriteTxnMarkersHandler;
import io.aloft.broker.interbroker.InterBrokerClient;
import io.aloft.broker.lifecycle.CriticalScheduler;
import io.aloft.broker.txn.CoordinatorTransactionVerifier;
import io.aloft.broker.txn.InterBrokerTransactionMarkers;
import io.aloft.broker.txn.OffsetsTransactionCompleter;
import io.aloft.broker.txn.TransactionMarkerAppender;
import io.aloft.broker.txn.PrefetchingProducerIdSource;
import io.aloft.broker.txn.RetryingTransactionVerifier;
import io.aloft.broker.txn.TransactionCoordinator;
import io.aloft.broker.txn.TransactionCoordinatorConfig;
import io.aloft.broker.txn.TransactionStateTopic;
import io.aloft.controller.client.ControllerClient;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction coordinator of a broker with {@code aloft.transactions.enable}, set up as the
 * group coordinator is: a {@link TransactionCoordinator} on its own coordinator threads over the
 * {@code __transaction_state} partitions' logs, the topic's follower (loads the partitions this
 * broker leads; created on the first FindCoordinator of key type 1), and the handlers of its APIs.
 * Markers go to each partition's leader ({@link InterBrokerTransactionMarkers}: this broker's own
 * partitions through the {@link TransactionMarkerAppender}, which also serves WriteTxnMarkers from
 * other brokers' coordinators; the others' over the inter-broker client).
 *
 * <p>Built and started on the thread starting the broker; the parts are thread-safe.
 */
final class BrokerTransactions {
    private static final Logger log = LoggerFactory.getLogger(BrokerTransactions.class);

    final TransactionCoordinator coordinator;
    final CoordinatorTopic stateTopic;
    private final TransactionMarkerAppender appender;
    /** Partition leaders' KIP-890 check of a transaction's first batch (and TxnOffsetCommit v5's add). */
    private final CoordinatorTransactionVerifier verifier;

    private BrokerTransactions(TransactionCoordinator coordinator, CoordinatorTopic stateTopic,
            TransactionMarkerAppender appender, CoordinatorTransactionVerifier verifier) {
        this.verifier = verifier;
        this.coordinator = coordinator;
        this.stateTopic = stateTopic;
        this.appender = appender;
    }

    /**
     * Builds the coordinator; what must be closed goes into {@code resources} (closed in reverse)
     * and {@code failures}, as the broker's other components do. The follower is started by
     * {@link #start}, once the broker serves.
     */
    static BrokerTransactions create(TransactionCoordinatorConfig config, ControllerClient controller,
            MetadataCache cache, int nodeId, PartitionManager partitions, ProducerIdManager producerIds,
            CoordinatorTimer timer, InterBrokerClient interBroker, OffsetsTransactionCompleter offsets,
            FatalFailureHandler failures, List<AutoCloseable> resources) {
        // One thread: transactional ids are few next to groups, and Kafka's own coordinator has no
        // key for more. The threads close after the coordinator (resources close in reverse).
        CoordinatorThreads threads = CoordinatorThreads.fixed(1,
                new NamedThreadFactory("aloft-transaction-coordinator", true, failures));
        resources.add(threads);
        failures.closeOnFailure("transaction coordinator threads", threads);
        // Every marker's routing, batching and retry on one thread; closed after the coordinator.
        CriticalScheduler markerThread = new CriticalScheduler("aloft-transaction-markers", 1, failures);
        resources.add(markerThread::shutdownNow);
        failures.closeOnFailure("transaction marker thread", markerThread::shutdownNow);
        TransactionMarkerAppender appender = new TransactionMarkerAppender(partitions, offsets);
        InterBrokerTransactionMarkers markers = new InterBrokerTransactionMarkers(nodeId,
                InterBrokerTransactionMarkers.Leaders.fromCache(cache), appender, interBroker, markerThread,
                System::currentTimeMillis);
        TransactionCoordinator coordinator = new TransactionCoordinator(config,
                TransactionStateTopic.log(partitions, System::currentTimeMillis), timer, threads,
                new PrefetchingProducerIdSource(producerIds::nextId), markers,
                TransactionStateTopic.coordinatorEpochs(partitions));
        resources.add(coordinator);
        // KIP-890: partition leaders check a transaction's first batch with its coordinator.
        CoordinatorTransactionVerifier verifier = new CoordinatorTransactionVerifier(coordinator, cache, nodeId,
                CoordinatorTransactionVerifier.over(interBroker), config.partitionVerification());
        // Produces' adds are asked again while the previous transaction completes (TxnOffsetCommit's
        // are not, as in Kafka).
        partitions.verifyTransactionsWith(new RetryingTransactionVerifier(verifier, coordinator, timer, config));
        CoordinatorTopic stateTopic = TransactionStateTopic.follower(controller, cache, nodeId, coordinator,
                config.stateLogPartitions(), new NamedThreadFactory("aloft-transaction-loader", true, failures));
        return new BrokerTransactions(coordinator, stateTopic, appender, verifier);
    }

    /** FindCoordinator's key type 1: {@code __transaction_state}, created on the first lookup. */
    FindCoordinatorHandler.CoordinatorKeys coordinatorKeys() {
        return new FindCoordinatorHandler.CoordinatorKeys(TransactionStateTopic.TOPIC, coordinator::partitionFor,
                () -> stateTopic.ensureCreated().exceptionally(e -> {
                    log.warn("Could not create {} (the next FindCoordinator tries again)", TransactionStateTopic.TOPIC,
                            e);
                    return null;
                }));
    }

    /**
     * AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit, EndTxn, DescribeTransactions,
     * ListTransactions, WriteTxnMarkers.
     */
    List<ApiHandler<?>> handlers(MetadataCache cache, GroupCoordinator groups) {
        List<ApiHandler<?>> handlers = new ArrayList<>(TransactionHandlers.create(coordinator, cache, groups,
                verifier));
        handlers.add(new WriteTxnMarkersHandler(appender));
        return handlers;
    }

    /** Starts loading the partitions this broker leads: once it serves, as the group loader. */
    void start(FatalFailureHandler failures, List<AutoCloseable> resources) throws Exception {
        resources.add(stateTopic);
        failures.closeOnFailure("transaction loader", stateTopic);
        stateTopic.start();
    }
}
