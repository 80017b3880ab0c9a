package io.aloft.broker.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.coordinator.CoordinatorThreads;
import io.aloft.broker.coordinator.MemoryCoordinatorLog;
import io.aloft.broker.coordinator.SystemCoordinatorTimer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** The coordinator on real shard threads, with markers answered from another thread, as in the broker. */
class TransactionThreadsTest {

    @Test
    void transactions_onShardThreadsWithMarkersAnsweredElsewhere_allCommit() throws Exception {
        ExecutorService markerThread = Executors.newSingleThreadExecutor();
        TransactionMarkers markers = (id, pid, epoch, coordinatorEpoch, commit, partitions, version) ->
                CompletableFuture.runAsync(() -> { }, markerThread);
        TransactionCoordinatorConfig config = TransactionCoordinatorConfig.fromProperties(
                Map.of(TransactionCoordinatorConfig.STATE_LOG_PARTITIONS_CONFIG, 4));
        long[] next = {1};
        ProducerIdSource ids = () -> {
            synchronized (next) {
                return next[0]++;
            }
        };
        try (CoordinatorThreads threads = CoordinatorThreads.fixed(2, named("txn-shard"));
             SystemCoordinatorTimer timer = new SystemCoordinatorTimer(named("txn-timer"));
             TransactionCoordinator c = new TransactionCoordinator(config,
                     new MemoryCoordinatorLog<>(TransactionRecordSerde.INSTANCE), timer, threads, ids, markers)) {
            c.loadAll();
            for (int i = 0; i < 20; i++) {
                String id = "txn-" + i;
                ProducerResult p = c.initProducerId(id, 60_000, -1, (short) -1).get(10, TimeUnit.SECONDS);
                assertEquals(Errors.NONE, p.error());
                assertEquals(Errors.NONE, c.addPartitionsToTxn(id, p.producerId(), p.producerEpoch(),
                        Map.of("orders", List.of(i % 3)), TxnTestKit.V1).get(10, TimeUnit.SECONDS));
                assertEquals(Errors.NONE, c.endTxn(id, p.producerId(), p.producerEpoch(), true, TxnTestKit.V1)
                        .get(10, TimeUnit.SECONDS).error());
            }
            for (int i = 0; i < 20; i++) {
                assertEquals("CompleteCommit", awaitSettled(c, "txn-" + i));
            }
        } finally {
            markerThread.shutdownNow();
        }
    }

    private static ThreadFactory named(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /** The state once the markers' completion ran: InitProducerId answers CONCURRENT_TRANSACTIONS before. */
    private static String awaitSettled(TransactionCoordinator c, String id) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String state;
        do {
            state = c.describeTransactions(List.of(id)).get(10, TimeUnit.SECONDS).transactionStates().get(0)
                    .transactionState();
        } while (state.equals("PrepareCommit") && System.nanoTime() < deadline);
        return state;
    }
}
