package io.aloft.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.log.PartitionLogException;
import io.aloft.controller.model.BrokerState;
import io.aloft.stream.metadata.CloseStreamRequest;
import io.aloft.stream.metadata.CreateStreamRequest;
import io.aloft.stream.metadata.MemoryStreamMetadata;
import io.aloft.stream.metadata.OpenStreamRequest;
import io.aloft.stream.metadata.StreamMetadata;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An open waits for the broker still holding the partition's streams: not at all when none does,
 * until the holder closes them, until it leaves the cluster (a drain) without asking the controller
 * again, and no longer than its deadline.
 */
class PartitionHandoffsTest {
    private static final int SELF = 2;
    private static final int HOLDER = 1;
    private static final TopicPartition TP = new TopicPartition("t", 0);

    private final MemoryStreamMetadata metadata = new MemoryStreamMetadata();
    private final AtomicInteger describes = new AtomicInteger();
    private final Map<Integer, BrokerState> brokers = new ConcurrentHashMap<>(Map.of(SELF, BrokerState.ACTIVE,
            HOLDER, BrokerState.ACTIVE));
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final PartitionHandoffs handoffs = new PartitionHandoffs(SELF, counting(metadata), brokers::get,
            scheduler, System::nanoTime);

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    @Test
    void takeOver_noHolder_epochAboveTheCurrentAtOnce() throws Exception {
        List<Long> streams = streamsHeldBy(HOLDER, 3);
        for (long id : streams) {
            metadata.closeStream(new CloseStreamRequest(id, 3, HOLDER)).get();
        }
        assertEquals(4L, handoffs.takeOver(TP, streams, deadline(10_000)).get(5, TimeUnit.SECONDS));
        assertEquals(0, handoffs.pending());
    }

    @Test
    void takeOver_activeHolderClosesTheStreams_completesOnceClosed() throws Exception {
        List<Long> streams = streamsHeldBy(HOLDER, 1);
        CompletableFuture<Long> epoch = handoffs.takeOver(TP, streams, deadline(10_000));
        awaitPending(1);
        assertFalse(epoch.isDone(), "waits while broker " + HOLDER + " holds the streams open");
        for (long id : streams) {
            metadata.closeStream(new CloseStreamRequest(id, 1, HOLDER)).get();
        }
        assertEquals(2L, epoch.get(5, TimeUnit.SECONDS));
    }

    @Test
    void takeOver_drainingHolderLeavesTheCluster_completesWithoutAskingTheControllerAgain() throws Exception {
        brokers.put(HOLDER, BrokerState.DRAINING);
        // A clock that stands still: after its first description no wait is due again, so any
        // description after the holder leaves would be one the shortcut should have saved.
        long now = System.nanoTime();
        PartitionHandoffs frozen = new PartitionHandoffs(SELF, counting(metadata), brokers::get, scheduler,
                () -> now);
        List<CompletableFuture<Long>> epochs = new ArrayList<>();
        for (int p = 0; p < 100; p++) {
            epochs.add(frozen.takeOver(new TopicPartition("t", p), streamsHeldBy(HOLDER, 1),
                    now + TimeUnit.SECONDS.toNanos(10)));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (describes.get() < 200 || frozen.pending() < 100) { // each wait's two streams described once
            assertTrue(System.nanoTime() < deadline, describes.get() + " described, " + frozen.pending() + " waiting");
            TimeUnit.MILLISECONDS.sleep(5);
        }
        int before = describes.get();
        brokers.remove(HOLDER); // UnregisterBroker, as the change feed brings it
        for (CompletableFuture<Long> e : epochs) {
            assertEquals(2L, e.get(5, TimeUnit.SECONDS));
        }
        assertEquals(before, describes.get(), "descriptions after the holder left");
    }

    @Test
    void takeOver_manyWaitsOnALiveHolder_controllerAskedAtABoundedRate() throws Exception {
        brokers.put(HOLDER, BrokerState.DRAINING);
        for (int p = 0; p < 200; p++) {
            handoffs.takeOver(new TopicPartition("t", p), streamsHeldBy(HOLDER, 1), deadline(10_000));
        }
        awaitPending(200);
        int before = describes.get();
        long start = System.nanoTime();
        TimeUnit.SECONDS.sleep(1); // measuring a rate over a second, not waiting for a condition
        double perSecond = (describes.get() - before) / ((System.nanoTime() - start) / 1e9);
        // Polling every 50 ms would be 200 waits x 2 streams x 20 = 8,000 a second.
        assertTrue(perSecond < 2 * PartitionHandoffs.MAX_DESCRIBES_IN_FLIGHT * 1000.0 / PartitionHandoffs.POLL_MS,
                perSecond + " descriptions a second");
    }

    @Test
    void takeOver_holderKeepsTheStreamsPastTheDeadline_failsNotLeader() throws Exception {
        CompletableFuture<Long> epoch = handoffs.takeOver(TP, streamsHeldBy(HOLDER, 1), deadline(300));
        ExecutionException e = assertThrows(ExecutionException.class, () -> epoch.get(5, TimeUnit.SECONDS));
        PartitionLogException ple = assertInstanceOf(PartitionLogException.class, e.getCause());
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER, ple.error());
        assertTrue(ple.getMessage().contains("still open on broker " + HOLDER), ple.getMessage());
        assertEquals(0, handoffs.pending());
    }

    @Test
    void takeOver_holderFenced_notWaitedFor() throws Exception {
        brokers.put(HOLDER, BrokerState.FENCED);
        assertEquals(2L, handoffs.takeOver(TP, streamsHeldBy(HOLDER, 1), deadline(10_000)).get(5, TimeUnit.SECONDS));
    }

    /** Two streams (a partition's), opened by {@code node} with {@code epoch} and left open. */
    private List<Long> streamsHeldBy(int node, long epoch) throws Exception {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            long id = metadata.createStream(new CreateStreamRequest(node)).get();
            metadata.openStream(new OpenStreamRequest(id, epoch, node)).get();
            ids.add(id);
        }
        return ids;
    }

    private void awaitPending(int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (handoffs.pending() < count) {
            assertTrue(System.nanoTime() < deadline, handoffs.pending() + " of " + count + " waits pending");
            TimeUnit.MILLISECONDS.sleep(5);
        }
    }

    private static long deadline(long ms) {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
    }

    /** {@code delegate}, counting describeStream calls. */
    private StreamMetadata counting(StreamMetadata delegate) {
        return (StreamMetadata) Proxy.newProxyInstance(StreamMetadata.class.getClassLoader(),
                new Class<?>[] {StreamMetadata.class}, (proxy, method, args) -> {
                    if (method.getName().equals("describeStream")) {
                        describes.incrementAndGet();
                    }
                    try {
                        return method.invoke(delegate, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
