package io.aloft.broker.txn;

import io.aloft.broker.coordinator.CoordinatorThreads;
import io.aloft.broker.coordinator.HeldLog;
import io.aloft.broker.coordinator.ManualTimer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * A transaction coordinator over a {@link HeldLog} (in memory), {@link CoordinatorThreads#callerRuns()}
 * (answers are there on return), a {@link ManualTimer}, counting producer ids and markers the test
 * completes or fails, plus request helpers. Confined to the test's thread.
 */
final class TxnTestKit {

    static final int TIMEOUT_MS = 60_000;
    static final short V1 = 1;
    static final short V2 = 2;

    /** One marker write asked for. */
    record MarkerCall(String transactionalId, long producerId, short epoch, int coordinatorEpoch, boolean commit,
                      Map<String, List<Integer>> partitions, CompletableFuture<Void> future, short transactionVersion) {
    }

    /** Markers written at once, unless {@link #hold} is set: then they wait for the test. */
    static final class FakeMarkers implements TransactionMarkers {
        final List<MarkerCall> calls = new ArrayList<>();
        boolean hold;

        @Override
        public synchronized CompletableFuture<Void> write(String transactionalId, long producerId, short epoch,
                int coordinatorEpoch, boolean commit, Map<String, List<Integer>> partitions, short transactionVersion) {
            CompletableFuture<Void> f = hold ? new CompletableFuture<>() : CompletableFuture.completedFuture(null);
            calls.add(new MarkerCall(transactionalId, producerId, epoch, coordinatorEpoch, commit, partitions, f,
                    transactionVersion));
            return f;
        }

        synchronized MarkerCall last() {
            return calls.get(calls.size() - 1);
        }
    }

    /** Ids 1000, 1001, ...; none while {@link #dry}. */
    static final class CountingIds implements ProducerIdSource {
        long next = 1000;
        boolean dry;

        @Override
        public synchronized long nextProducerId() {
            if (dry) {
                throw new CoordinatorLoadInProgressException("no ids");
            }
            return next++;
        }
    }

    final ManualTimer timer = new ManualTimer(1_000_000L);
    final HeldLog<TransactionRecord> log = new HeldLog<>(TransactionRecordSerde.INSTANCE);
    final FakeMarkers markers = new FakeMarkers();
    final CountingIds ids = new CountingIds();
    final CoordinatorThreads threads = CoordinatorThreads.callerRuns();
    final TransactionCoordinatorConfig config;
    TransactionCoordinator coordinator;

    TxnTestKit() {
        this(Map.of());
    }

    TxnTestKit(Map<String, ?> overrides) {
        Map<String, Object> props = new HashMap<>();
        props.put(TransactionCoordinatorConfig.STATE_LOG_PARTITIONS_CONFIG, 3);
        props.putAll(overrides);
        config = TransactionCoordinatorConfig.fromProperties(props);
        coordinator = new TransactionCoordinator(config, log, timer, threads, ids, markers);
        coordinator.loadAll();
    }

    /** A new coordinator over the same log: a broker restart, or the partitions moving to another broker. */
    void restart() {
        coordinator.close();
        coordinator = new TransactionCoordinator(config, log, timer, threads, ids, markers);
        coordinator.loadAll();
    }

    /** Writes {@code metadata} for {@code id} straight into the log, then restarts to load it. */
    void seed(String id, TransactionRecord.Metadata metadata) {
        log.append(coordinator.partitionFor(id), List.of(new TransactionRecord(id, metadata))).join();
        restart();
    }

    /** How many records the whole log holds. */
    int logSize() {
        int n = 0;
        for (int p = 0; p < config.stateLogPartitions(); p++) {
            n += log.size(p);
        }
        return n;
    }

    ProducerResult init(String id) {
        return coordinator.initProducerId(id, TIMEOUT_MS, -1L, (short) -1).join();
    }

    ProducerResult init(String id, long producerId, int epoch) {
        return coordinator.initProducerId(id, TIMEOUT_MS, producerId, (short) epoch).join();
    }

    Errors add(String id, ProducerResult p, String topic, Integer... partitions) {
        return add(id, p, V1, topic, partitions);
    }

    Errors add(String id, ProducerResult p, short version, String topic, Integer... partitions) {
        return coordinator.addPartitionsToTxn(id, p.producerId(), p.producerEpoch(), Map.of(topic, List.of(partitions)),
                version).join();
    }

    ProducerResult end(String id, ProducerResult p, boolean commit) {
        return end(id, p, commit, V1);
    }

    ProducerResult end(String id, ProducerResult p, boolean commit, short version) {
        return coordinator.endTxn(id, p.producerId(), p.producerEpoch(), commit, version).join();
    }

    DescribeTransactionsResponseData.TransactionState describe(String id) {
        return coordinator.describeTransactions(List.of(id)).join().transactionStates().get(0);
    }

    String state(String id) {
        return describe(id).transactionState();
    }
}
