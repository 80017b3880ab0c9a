package io.aloft.broker.share.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.log.BatchRecords;
import io.aloft.broker.share.partition.Acquired;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ShareAcquirerTest {
    private static final Uuid T = Uuid.randomUuid();
    private static final TopicIdPartition P0 = new TopicIdPartition(T, 0, "t");
    private static final TopicIdPartition P1 = new TopicIdPartition(T, 1, "t");

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    private static ShareAcquirer.Request request(int maxWaitMs, TopicIdPartition... tps) {
        return new ShareAcquirer.Request("g", "m", List.of(tps), 1 << 20, 100, false, maxWaitMs);
    }

    /** Partition 0 always says "records may be available" yet never has any (say, still loading). */
    private static final class AlwaysAvailableNothing extends FakeSharePartitions {
        final AtomicInteger acquired = new AtomicInteger();

        @Override
        public synchronized CompletableFuture<Acquired> acquire(String groupId, String memberId, TopicIdPartition tp,
                int maxBytes, int maxRecords, boolean recordLimit) {
            acquired.incrementAndGet();
            if (tp.partition() != 0) {
                return super.acquire(groupId, memberId, tp, maxBytes, maxRecords, recordLimit);
            }
            return CompletableFuture.completedFuture(new Acquired(Errors.NONE, null, BatchRecords.EMPTY, List.of(),
                    0));
        }

        @Override
        public synchronized boolean wakeOnAvailable(String groupId, TopicIdPartition tp, Runnable wake) {
            return tp.partition() != 0 && super.wakeOnAvailable(groupId, tp, wake);
        }
    }

    @Test
    void acquire_partitionAlwaysSayingAvailable_retriedAFewTimesThenWaitsForOthersOrTheDeadline() throws Exception {
        AlwaysAvailableNothing shares = new AlwaysAvailableNothing();
        ShareAcquirer acquirer = new ShareAcquirer(shares, timer, Errors::forException);
        CompletableFuture<Map<TopicIdPartition, Acquired>> pending = acquirer.acquire(request(60_000, P0, P1));
        // 1 first pass + the immediate retries, each over both partitions; then it waits on P1's wake.
        assertEquals(2 * (1 + ShareAcquirer.IMMEDIATE_RETRIES), shares.acquired.get());
        assertFalse(pending.isDone(), "no spinning until the deadline");
        assertEquals(1, shares.waiting(P1), "P1 was registered with even though P0 said 'now'");
        shares.willAcquire(P1, new Acquired(Errors.NONE, null, BatchRecords.EMPTY,
                List.of(new Acquired.AcquiredRange(3, 3, (short) 2)), 30_000));
        shares.makeAvailable(P1);
        Map<TopicIdPartition, Acquired> result = pending.get(10, TimeUnit.SECONDS);
        assertEquals(3, result.get(P1).ranges().get(0).firstOffset());
    }

    @Test
    void acquire_noWait_answersAtOnceWithEveryPartitionTried() throws Exception {
        FakeSharePartitions shares = new FakeSharePartitions();
        Map<TopicIdPartition, Acquired> result = new ShareAcquirer(shares, timer, Errors::forException)
                .acquire(request(0, P0, P1)).get(10, TimeUnit.SECONDS);
        assertEquals(List.of(P0, P1), List.copyOf(result.keySet()));
        assertTrue(result.values().stream().allMatch(Acquired::isEmpty));
        assertEquals(0, shares.waiting(P0));
    }

    @Test
    void acquire_partitionError_answersAtOnceWithoutWaiting() throws Exception {
        FakeSharePartitions shares = new FakeSharePartitions();
        shares.willAcquire(P1, Acquired.failed(Errors.NOT_LEADER_OR_FOLLOWER, null));
        Map<TopicIdPartition, Acquired> result = new ShareAcquirer(shares, timer, Errors::forException)
                .acquire(request(60_000, P0, P1)).get(10, TimeUnit.SECONDS);
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER, result.get(P1).error());
    }

    @Test
    void acquire_failedFuture_mappedByTheGivenMapping() throws Exception {
        FakeSharePartitions shares = new FakeSharePartitions() {
            @Override
            public synchronized CompletableFuture<Acquired> acquire(String groupId, String memberId,
                    TopicIdPartition tp, int maxBytes, int maxRecords, boolean recordLimit) {
                return CompletableFuture.failedFuture(new IllegalStateException("x"));
            }
        };
        Map<TopicIdPartition, Acquired> result = new ShareAcquirer(shares, timer, e -> Errors.KAFKA_STORAGE_ERROR)
                .acquire(request(60_000, P0)).get(10, TimeUnit.SECONDS);
        assertEquals(Errors.KAFKA_STORAGE_ERROR, result.get(P0).error());
    }
}
