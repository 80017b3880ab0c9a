package io.aloft.broker.share.partition;

import static io.aloft.broker.log.LogFixture.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.coordinator.ManualTimer;
import io.aloft.broker.log.LogFixture;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.log.PartitionLogException;
import io.aloft.broker.share.ShareGroupSettings;
import io.aloft.broker.share.ShareGroupSettings.AutoOffsetReset;
import io.aloft.broker.share.state.SharePartitionKey;
import io.aloft.broker.share.state.ShareState;
import io.aloft.broker.share.state.StateBatch;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Share partitions on a real partition log (WAL, stream store, file object storage: {@link LogFixture})
 * with an in-memory persister and a manual timer: acquisition, acknowledgement, locks and their
 * expiry, the delivery limit, the in-flight bound, durability and reload, read_committed, fencing.
 */
class SharePartitionManagerTest {
    private static final String GROUP = "g";
    private static final int LOCK_MS = 30_000;

    @TempDir
    Path dir;
    private LogFixture fx;
    private PartitionLog log;
    private volatile PartitionLog led;
    private final ManualTimer timer = new ManualTimer(LogFixture.T0);
    private final MemoryShareStatePersister persister = new MemoryShareStatePersister();
    private volatile ShareGroupSettings settings = settings(5, 2000, AutoOffsetReset.EARLIEST, false);
    private final TopicIdPartition tp = new TopicIdPartition(Uuid.randomUuid(), LogFixture.TP);
    private final SharePartitionKey key = new SharePartitionKey(GROUP, tp.topicId(), tp.partition());
    private SharePartitionManager shares;

    private static ShareGroupSettings settings(int limit, int maxLocks, AutoOffsetReset reset, boolean readCommitted) {
        return new ShareGroupSettings(LOCK_MS, limit, maxLocks, reset, readCommitted, 45_000, 5_000, true);
    }

    @BeforeEach
    void start() throws Exception {
        fx = new LogFixture(dir);
        log = fx.open();
        led = log;
        shares = newManager();
    }

    private SharePartitionManager newManager() {
        return new SharePartitionManager(t -> {
            PartitionLog l = led;
            return l != null ? CompletableFuture.completedFuture(l) : CompletableFuture.failedFuture(
                    new PartitionLogException(Errors.NOT_LEADER_OR_FOLLOWER, t + " is led elsewhere"));
        }, persister, g -> settings, timer);
    }

    @AfterEach
    void stop() throws Exception {
        shares.close();
        fx.close();
    }

    /** Appends one batch of {@code n} records. */
    private void append(int n) throws Exception {
        SimpleRecord[] recs = new SimpleRecord[n];
        for (int i = 0; i < n; i++) {
            recs[i] = LogFixture.rec(LogFixture.T0, "v" + i);
        }
        get(log.append(MemoryRecords.withRecords(Compression.NONE, recs)));
    }

    private Acquired acquire(String member, int maxRecords) throws Exception {
        return acquire(member, maxRecords, true);
    }

    private Acquired acquire(String member, int maxRecords, boolean recordLimit) throws Exception {
        Acquired a = get(shares.acquire(GROUP, member, tp, 1 << 20, maxRecords, recordLimit));
        assertEquals(Errors.NONE, a.error(), a.errorMessage());
        return a;
    }

    private static List<Acquired.AcquiredRange> ranges(long... firstLastCount) {
        List<Acquired.AcquiredRange> out = new ArrayList<>();
        for (int i = 0; i < firstLastCount.length; i += 3) {
            out.add(new Acquired.AcquiredRange(firstLastCount[i], firstLastCount[i + 1], (short) firstLastCount[i + 2]));
        }
        return out;
    }

    private AcknowledgeResult ack(String member, long first, long last, byte type) throws Exception {
        return get(shares.acknowledge(GROUP, member, tp, List.of(new Acknowledgement(first, last, List.of(type)))));
    }

    private ShareState stored() {
        return persister.stored(key).orElseThrow();
    }

    private static List<Long> baseOffsets(Acquired a) {
        List<Long> out = new ArrayList<>();
        for (RecordBatch b : a.records().toMemoryRecords().batches()) {
            out.add(b.baseOffset());
        }
        return out;
    }

    @Test
    void acquire_thenAccept_startOffsetMovesAndIsDurable() throws Exception {
        append(5);                                                       // 0-4
        append(5);                                                       // 5-9
        Acquired a = acquire("m1", 100);
        assertEquals(ranges(0, 9, 1), a.ranges());
        assertEquals(List.of(0L, 5L), baseOffsets(a));
        assertEquals(LOCK_MS, a.acquisitionLockTimeoutMs());
        assertEquals(0, stored().startOffset(), "EARLIEST chose the log start, persisted at load");

        assertEquals(AcknowledgeResult.OK, get(shares.acknowledge(GROUP, "m1", tp, List.of(
                new Acknowledgement(0, 4, List.of(Acknowledgement.ACCEPT)),
                new Acknowledgement(6, 6, List.of(Acknowledgement.ACCEPT))))));
        assertEquals(5, stored().startOffset());
        assertEquals(List.of(new StateBatch(5, 5, StateBatch.AVAILABLE, (short) 1),
                new StateBatch(6, 6, StateBatch.ACKNOWLEDGED, (short) 1)), stored().batches(),
                "an acquired record is stored as AVAILABLE with its delivery count");
        assertEquals(AcknowledgeResult.OK, ack("m1", 5, 5, Acknowledgement.ACCEPT));
        assertEquals(7, stored().startOffset());
        assertEquals(AcknowledgeResult.OK, ack("m1", 7, 9, Acknowledgement.ACCEPT));
        assertEquals(10, stored().startOffset());
        assertEquals(List.of(), stored().batches());
        assertTrue(acquire("m1", 100).isEmpty(), "nothing left");
    }

    @Test
    void twoMembers_neverGetTheSameRecords() throws Exception {
        append(5);                                                       // 0-4
        append(5);                                                       // 5-9
        append(5);                                                       // 10-14
        assertEquals(ranges(0, 2, 1), acquire("m1", 3, true).ranges(), "record_limit: exactly 3");
        assertEquals(ranges(3, 4, 1), acquire("m2", 2, true).ranges());
        Acquired whole = acquire("m2", 2, false);
        assertEquals(ranges(5, 9, 1), whole.ranges(), "batch_optimized: rounded up to the whole batch");
        assertEquals(List.of(5L), baseOffsets(whole));
        assertEquals(ranges(10, 14, 1), acquire("m1", 100).ranges());
        assertTrue(acquire("m3", 100).isEmpty());
        assertEquals(Errors.INVALID_RECORD_STATE, ack("m2", 0, 2, Acknowledgement.ACCEPT).error(),
                "m1's records");
    }

    @Test
    void concurrentAcquisitions_splitTheRecords() throws Exception {
        for (int i = 0; i < 10; i++) {
            append(10);
        }
        List<CompletableFuture<Acquired>> all = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            all.add(shares.acquire(GROUP, "m" + i, tp, 1 << 20, 10, true));
        }
        boolean[] seen = new boolean[100];
        for (CompletableFuture<Acquired> f : all) {
            for (Acquired.AcquiredRange r : get(f).ranges()) {
                for (long o = r.firstOffset(); o <= r.lastOffset(); o++) {
                    assertFalse(seen[(int) o], "offset " + o + " acquired twice");
                    seen[(int) o] = true;
                }
            }
        }
        for (int o = 0; o < 100; o++) {
            assertTrue(seen[o], "offset " + o);
        }
    }

    @Test
    void lockExpiry_redeliversWithCountPlusOne_andWakesWaiters() throws Exception {
        append(3);
        assertEquals(ranges(0, 2, 1), acquire("m1", 10).ranges());
        AtomicInteger woken = new AtomicInteger();
        assertTrue(shares.wakeOnAvailable(GROUP, tp, woken::incrementAndGet), "nothing acquirable: registered");
        timer.advance(LOCK_MS - 1);
        assertEquals(0, woken.get());
        timer.advance(1);
        assertEquals(1, woken.get(), "the expiry woke the waiter");
        Acquired again = acquire("m2", 10);
        assertEquals(ranges(0, 2, 2), again.ranges());
        assertEquals(List.of(new StateBatch(0, 2, StateBatch.AVAILABLE, (short) 2)), stored().batches(),
                "a redelivery's count is durable at acquisition");
        assertEquals(Errors.INVALID_RECORD_STATE, ack("m1", 0, 2, Acknowledgement.ACCEPT).error(),
                "m1's lock expired");
        assertEquals(AcknowledgeResult.OK, ack("m2", 0, 2, Acknowledgement.ACCEPT));
        assertEquals(3, stored().startOffset());
    }

    @Test
    void deliveryLimit_archivesInsteadOfDeliveringAgain() throws Exception {
        settings = settings(2, 2000, AutoOffsetReset.EARLIEST, false);
        append(2);                                                       // 0-1
        append(1);                                                       // 2
        assertEquals(ranges(0, 1, 1), acquire("m1", 2).ranges());
        timer.advance(LOCK_MS);
        assertEquals(ranges(0, 1, 2), acquire("m1", 2).ranges());
        assertEquals(AcknowledgeResult.OK, ack("m1", 1, 1, Acknowledgement.RELEASE),
                "released at the limit: archived");
        timer.advance(LOCK_MS);                                          // 0 expires at the limit: archived
        assertEquals(ranges(2, 2, 1), acquire("m2", 10).ranges(), "0 and 1 are never delivered again");
        assertEquals(2, stored().startOffset(), "archived records are done");
    }

    @Test
    void maxRecordLocks_boundsTheInFlightWindow() throws Exception {
        settings = settings(5, 4, AutoOffsetReset.EARLIEST, false);
        for (int i = 0; i < 10; i++) {
            append(1);
        }
        assertEquals(ranges(0, 3, 1), acquire("m1", 100).ranges());
        assertTrue(acquire("m2", 100).isEmpty(), "4 in flight: nothing more");
        AtomicInteger woken = new AtomicInteger();
        assertTrue(shares.wakeOnAvailable(GROUP, tp, woken::incrementAndGet));
        assertEquals(AcknowledgeResult.OK, ack("m1", 2, 3, Acknowledgement.ACCEPT));
        assertEquals(0, woken.get(), "the start did not move: the window is still full");
        assertTrue(acquire("m2", 100).isEmpty());
        assertEquals(AcknowledgeResult.OK, ack("m1", 0, 0, Acknowledgement.ACCEPT));
        assertEquals(1, woken.get(), "the start moved past 0 (1 is still held): room for one more");
        assertEquals(ranges(4, 4, 1), acquire("m2", 100).ranges());
    }

    @Test
    void release_reject_renew() throws Exception {
        append(4);
        assertEquals(ranges(0, 3, 1), acquire("m1", 10).ranges());
        assertEquals(AcknowledgeResult.OK, get(shares.acknowledge(GROUP, "m1", tp, List.of(
                new Acknowledgement(0, 0, List.of(Acknowledgement.RELEASE)),
                new Acknowledgement(1, 1, List.of(Acknowledgement.REJECT)),
                new Acknowledgement(2, 3, List.of(Acknowledgement.RENEW))))));
        assertEquals(ranges(0, 0, 2), acquire("m2", 10).ranges(), "the released record, delivered again");
        assertEquals(AcknowledgeResult.OK, ack("m2", 0, 0, Acknowledgement.ACCEPT));
        int writes = persister.writes();
        timer.advance(LOCK_MS - 1000);
        assertEquals(AcknowledgeResult.OK, ack("m1", 2, 3, Acknowledgement.RENEW));
        assertEquals(writes, persister.writes(), "a renewal changes nothing durable");
        timer.advance(2000);                                             // the first lock's deadline passed
        assertTrue(acquire("m3", 10).isEmpty(), "2-3 still locked by the renewal");
        timer.advance(LOCK_MS);
        assertEquals(ranges(2, 3, 2), acquire("m3", 10).ranges(), "the renewed lock expired");
        assertEquals(AcknowledgeResult.OK, ack("m3", 2, 3, Acknowledgement.ACCEPT));
        assertEquals(4, stored().startOffset(), "1 was rejected: archived, done");
    }

    @Test
    void acknowledge_notHeld_invalidRecordState_changesNothing() throws Exception {
        append(4);
        assertEquals(ranges(0, 3, 1), acquire("m1", 10).ranges());
        assertEquals(Errors.INVALID_RECORD_STATE, ack("m2", 0, 1, Acknowledgement.ACCEPT).error());
        assertEquals(Errors.INVALID_RECORD_STATE, ack("m1", 3, 4, Acknowledgement.ACCEPT).error(), "4 not acquired");
        assertEquals(Errors.INVALID_RECORD_STATE, get(shares.acknowledge(GROUP, "m1", tp, List.of(
                new Acknowledgement(0, 0, List.of(Acknowledgement.ACCEPT)),
                new Acknowledgement(2, 9, List.of(Acknowledgement.ACCEPT))))).error(),
                "one bad batch refuses the whole list");
        assertEquals(0, stored().startOffset(), "nothing was applied");
        assertEquals(Errors.INVALID_REQUEST, get(shares.acknowledge(GROUP, "m1", tp, List.of(
                new Acknowledgement(0, 1, List.of(Acknowledgement.ACCEPT, Acknowledgement.ACCEPT,
                        Acknowledgement.ACCEPT))))).error(), "three types for two offsets");
        assertEquals(AcknowledgeResult.OK, ack("m1", 0, 3, Acknowledgement.ACCEPT));
        assertEquals(AcknowledgeResult.OK, ack("m1", 0, 0, Acknowledgement.ACCEPT),
                "acknowledged already, below the start offset: ignored, as Kafka 4.3.1 does");
        assertEquals(4, stored().startOffset());
    }

    @Test
    void gap_archivesTheOffset_perOffsetTypes() throws Exception {
        append(3);
        assertEquals(ranges(0, 2, 1), acquire("m1", 10).ranges());
        assertEquals(AcknowledgeResult.OK, get(shares.acknowledge(GROUP, "m1", tp, List.of(new Acknowledgement(0, 2,
                List.of(Acknowledgement.ACCEPT, Acknowledgement.GAP, Acknowledgement.RELEASE))))));
        assertEquals(2, stored().startOffset());
        assertEquals(ranges(2, 2, 2), acquire("m2", 10).ranges(), "only the released record comes back");
    }

    @Test
    void acknowledge_completesOnlyOnceDurable() throws Exception {
        append(2);
        acquire("m1", 10);
        persister.holdWrites();
        CompletableFuture<AcknowledgeResult> acked = shares.acknowledge(GROUP, "m1", tp,
                List.of(new Acknowledgement(0, 1, List.of(Acknowledgement.ACCEPT))));
        assertFalse(acked.isDone());
        assertEquals(0, stored().startOffset());
        persister.releaseWrites();
        assertEquals(AcknowledgeResult.OK, get(acked));
        assertEquals(2, stored().startOffset());
    }

    @Test
    void restart_redeliversOnlyWhatWasNotAcknowledged() throws Exception {
        append(10);
        assertEquals(ranges(0, 9, 1), acquire("m1", 100).ranges());
        assertEquals(AcknowledgeResult.OK, ack("m1", 0, 4, Acknowledgement.ACCEPT));
        assertEquals(AcknowledgeResult.OK, ack("m1", 7, 7, Acknowledgement.ACCEPT));
        assertEquals(AcknowledgeResult.OK, ack("m1", 8, 8, Acknowledgement.REJECT));
        timer.advance(LOCK_MS);
        assertEquals(ranges(5, 6, 2, 9, 9, 2), acquire("m1", 100).ranges(), "redelivered after the lock expired");

        // A new leader (a restart or a move): the log is opened at the next leader epoch, share
        // partitions load from the persister alone.
        shares.close();
        get(log.close());
        log = fx.open();
        led = log;
        shares = newManager();
        Acquired after = acquire("m2", 100);
        assertEquals(ranges(5, 6, 3, 9, 9, 3), after.ranges(),
                "only what was not acknowledged, and the redeliveries' counts were durable");
        assertEquals(5, stored().startOffset());
    }

    @Test
    void fencedLeaderEpoch_failsThePartitionAndDropsIt() throws Exception {
        append(4);
        assertEquals(ranges(0, 3, 1), acquire("m1", 100).ranges());
        SharePartition sp = shares.openPartition(GROUP, tp);
        // Another broker took the partition over and loaded the state at a newer leader epoch.
        get(persister.read(key, log.leaderEpoch() + 1));
        AcknowledgeResult fenced = ack("m1", 0, 1, Acknowledgement.ACCEPT);
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER, fenced.error(), fenced.errorMessage());
        assertTrue(sp.isClosed());
        assertNull(shares.openPartition(GROUP, tp), "dropped");
        assertEquals(0, stored().startOffset(), "the fenced write changed nothing");
        // The next use loads it again, and is fenced at once (this log's epoch is older).
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER, get(shares.acquire(GROUP, "m1", tp, 1 << 20, 10, true)).error());
    }

    @Test
    void readCommitted_skipsAbortedTransactionsAndControlBatches() throws Exception {
        settings = settings(5, 2000, AutoOffsetReset.EARLIEST, true);
        get(log.append(LogFixture.transactional(7, (short) 0, 0, 2)));  // 0-1, aborted
        append(1);                                                       // 2
        get(log.appendMarker(7, (short) 0, 0, false, (short) 0));        // 3: ABORT
        get(log.append(LogFixture.transactional(8, (short) 0, 0, 1)));  // 4, committed
        get(log.appendMarker(8, (short) 0, 0, true, (short) 0));         // 5: COMMIT
        append(1);                                                       // 6
        get(log.append(LogFixture.transactional(9, (short) 0, 0, 1)));  // 7, still open: LSO 7
        append(1);                                                       // 8
        Acquired a = acquire("m1", 100);
        assertEquals(ranges(2, 2, 1, 4, 4, 1, 6, 6, 1), a.ranges());
        assertEquals(AcknowledgeResult.OK, get(shares.acknowledge(GROUP, "m1", tp, List.of(
                new Acknowledgement(2, 2, List.of(Acknowledgement.ACCEPT)),
                new Acknowledgement(4, 4, List.of(Acknowledgement.ACCEPT)),
                new Acknowledgement(6, 6, List.of(Acknowledgement.ACCEPT))))));
        assertEquals(7, stored().startOffset(), "aborted records and markers were archived");
        assertTrue(acquire("m1", 100).isEmpty(), "7 and 8 are above the last stable offset");
        AtomicInteger woken = new AtomicInteger();
        assertTrue(shares.wakeOnAvailable(GROUP, tp, woken::incrementAndGet));
        get(log.appendMarker(9, (short) 0, 0, true, (short) 0));         // 9: COMMIT
        assertEquals(1, woken.get(), "the last stable offset moved");
        assertEquals(ranges(7, 8, 1), acquire("m1", 100).ranges());
    }

    @Test
    void readUncommitted_skipsControlBatchesOnly() throws Exception {
        get(log.append(LogFixture.transactional(7, (short) 0, 0, 2)));  // 0-1
        get(log.appendMarker(7, (short) 0, 0, false, (short) 0));        // 2: ABORT
        append(1);                                                       // 3
        assertEquals(ranges(0, 1, 1, 3, 3, 1), acquire("m1", 100).ranges());
    }

    @Test
    void latest_startsAtTheEnd_andNewRecordsWake() throws Exception {
        settings = settings(5, 2000, AutoOffsetReset.LATEST, false);
        append(3);
        assertTrue(acquire("m1", 100).isEmpty(), "records before the group's start are not delivered");
        assertEquals(3, stored().startOffset());
        AtomicInteger woken = new AtomicInteger();
        assertTrue(shares.wakeOnAvailable(GROUP, tp, woken::incrementAndGet));
        append(2);
        assertEquals(1, woken.get());
        assertFalse(shares.wakeOnAvailable(GROUP, tp, woken::incrementAndGet), "acquirable now: not registered");
        assertEquals(ranges(3, 4, 1), acquire("m1", 100).ranges());
        Runnable never = woken::incrementAndGet;
        assertTrue(shares.wakeOnAvailable(GROUP, tp, never));
        shares.cancelWake(GROUP, tp, never);
        append(1);
        assertEquals(1, woken.get(), "cancelled");
    }

    @Test
    void releaseMember_makesItsRecordsAvailable() throws Exception {
        append(4);
        assertEquals(ranges(0, 1, 1), acquire("m1", 2).ranges());
        assertEquals(ranges(2, 3, 1), acquire("m2", 2).ranges());
        get(shares.releaseMember(GROUP, "m1"));
        assertEquals(ranges(0, 1, 2), acquire("m3", 10).ranges());
        assertEquals(AcknowledgeResult.OK, ack("m2", 2, 3, Acknowledgement.ACCEPT), "m2 keeps its records");
    }

    @Test
    void logClosed_dropsTheSharePartition() throws Exception {
        append(2);
        acquire("m1", 10);
        SharePartition sp = shares.openPartition(GROUP, tp);
        AtomicInteger woken = new AtomicInteger();
        assertTrue(shares.wakeOnAvailable(GROUP, tp, woken::incrementAndGet));
        led = null;
        get(log.close());
        assertEquals(1, woken.get(), "closing woke the waiter");
        assertTrue(sp.isClosed());
        assertNull(shares.openPartition(GROUP, tp));
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER, get(shares.acquire(GROUP, "m1", tp, 1 << 20, 10, true)).error());
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER, ack("m1", 0, 1, Acknowledgement.ACCEPT).error());
        log = fx.open();
        led = log;
        Acquired again = acquire("m2", 10);
        assertEquals(ranges(0, 1, 1), again.ranges(), "the new leader delivers what was never acknowledged");
        assertNotSame(sp, shares.openPartition(GROUP, tp));
    }

    @Test
    void failedWrite_answersTheError_andIsWrittenAgain() throws Exception {
        append(2);
        acquire("m1", 10);
        persister.failNextWrite(new org.apache.kafka.common.errors.CoordinatorNotAvailableException("moving"));
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE, ack("m1", 0, 1, Acknowledgement.ACCEPT).error());
        assertEquals(0, stored().startOffset());
        timer.advance(SharePartition.RETRY_MS);
        assertEquals(2, stored().startOffset(), "the state changed in memory was written again");
    }

    @Test
    void byDuration_startsAtTheFirstRecordThatRecent() throws Exception {
        settings = settings(5, 2000, new AutoOffsetReset(AutoOffsetReset.Kind.BY_DURATION, 600_000), false);
        get(log.append(MemoryRecords.withRecords(Compression.NONE,
                LogFixture.rec(LogFixture.T0 - 3_600_000, "old"), LogFixture.rec(LogFixture.T0 - 3_600_000, "old"))));
        get(log.append(MemoryRecords.withRecords(Compression.NONE, LogFixture.rec(LogFixture.T0 - 60_000, "new"))));
        assertEquals(ranges(2, 2, 1), acquire("m1", 10).ranges());
        assertEquals(2, stored().startOffset());
    }

    @Test
    void logStartMoved_startOffsetFollows() throws Exception {
        append(5);
        assertEquals(ranges(0, 4, 1), acquire("m1", 10).ranges());
        get(log.deleteRecordsBefore(3));
        append(1);                                                       // 5
        assertEquals(ranges(5, 5, 1), acquire("m2", 10).ranges());
        assertEquals(3, stored().startOffset(), "records removed from the log are done");
        assertEquals(AcknowledgeResult.OK, ack("m1", 0, 2, Acknowledgement.ACCEPT), "below the start: ignored");
        assertEquals(AcknowledgeResult.OK, ack("m1", 3, 4, Acknowledgement.ACCEPT));
        assertEquals(5, stored().startOffset());
    }

    @Test
    void releaseMember_lastOne_retiresTheSharePartition_soAResetStateIsLoaded() throws Exception {
        append(4);
        assertEquals(ranges(0, 1, 1), acquire("m1", 2).ranges());
        assertEquals(ranges(2, 3, 1), acquire("m2", 2).ranges());
        assertEquals(AcknowledgeResult.OK, ack("m1", 0, 1, Acknowledgement.ACCEPT));
        SharePartition first = shares.openPartition(GROUP, tp);
        get(shares.releaseMember(GROUP, "m1"));
        assertEquals(first, shares.openPartition(GROUP, tp), "m2 still holds records");
        get(shares.releaseMember(GROUP, "m2"));
        assertEquals(2, stored().startOffset());
        assertEquals(List.of(new StateBatch(2, 3, StateBatch.AVAILABLE, (short) 1)), stored().batches(),
                "the release is durable");
        assertTrue(first.isRetired());
        assertNull(shares.openPartition(GROUP, tp), "no member left: unloaded");

        // AlterShareGroupOffsets while the group is empty: the state starts over at 0, next state epoch.
        get(persister.initialize(key, 1, 0));
        assertEquals(ranges(0, 3, 1), acquire("m3", 10).ranges(), "the reset state was loaded");
        assertEquals(AcknowledgeResult.OK, ack("m3", 0, 3, Acknowledgement.ACCEPT));
        assertEquals(4, stored().startOffset());
        assertEquals(1, stored().stateEpoch());
    }
}
