package io.aloft.stream.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.StreamException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The catch-up read budget: in-flight bytes in arrival order, byte rate, its own threads. */
class CatchUpReadsTest {
    private static final long MIB = 1L << 20;
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final List<CatchUpReads> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(CatchUpReads::close);
    }

    private CatchUpReads reads(long inFlight, long rate) {
        CatchUpReads r = new CatchUpReads(1, inFlight, rate, clock::get, (t, e) -> { });
        opened.add(r);
        return r;
    }

    /** A read the test completes by hand, recording whether it was started. */
    private static final class ManualRead {
        final CompletableFuture<Long> future = new CompletableFuture<>();
        volatile boolean started;

        volatile long granted = -1;

        CompletableFuture<Long> start(long grantedBytes) {
            started = true;
            granted = grantedBytes;
            return future;
        }
    }

    @Test
    void readsBeyondTheInFlightBudget_waitInArrivalOrder_andStartAsRoomIsMade() throws Exception {
        CatchUpReads reads = reads(64 * MIB, 0);
        ManualRead big1 = new ManualRead();
        ManualRead big2 = new ManualRead();
        ManualRead small = new ManualRead();
        CompletableFuture<Long> r1 = reads.read(40 * MIB, big1::start, n -> n);
        CompletableFuture<Long> r2 = reads.read(40 * MIB, big2::start, n -> n);
        CompletableFuture<Long> r3 = reads.read(1 * MIB, small::start, n -> n);
        assertTrue(big1.started);
        assertFalse(big2.started, "40 + 40 MiB exceed the 64 MiB budget");
        assertFalse(small.started, "a small read that would fit waits behind the earlier one: turn by turn");
        assertEquals(2, reads.waits());
        assertEquals(40 * MIB, reads.inFlightBytes());

        big1.future.complete(40 * MIB);
        assertEquals(40 * MIB, r1.get(10, TimeUnit.SECONDS));
        assertTrue(big2.started && small.started, "both fit once the first finished");
        assertEquals(41 * MIB, reads.inFlightBytes());
        big2.future.complete(1L);
        small.future.complete(2L);
        assertEquals(1L, r2.get(10, TimeUnit.SECONDS));
        assertEquals(2L, r3.get(10, TimeUnit.SECONDS));
        assertEquals(0, reads.inFlightBytes());
    }

    @Test
    void aReadLargerThanTheBudget_runsAlone() throws Exception {
        CatchUpReads reads = reads(1 * MIB, 0);
        ManualRead huge = new ManualRead();
        CompletableFuture<Long> r = reads.read(8 * MIB, huge::start, n -> n);
        assertTrue(huge.started);
        huge.future.complete(8 * MIB);
        assertEquals(8 * MIB, r.get(10, TimeUnit.SECONDS));
    }

    @Test
    void continuations_runOnCatchUpThreads_notOnTheThreadThatCompletedTheRead() throws Exception {
        CatchUpReads reads = reads(64 * MIB, 0);
        ManualRead read = new ManualRead();
        CompletableFuture<String> thread = reads.read(MIB, read::start, n -> n)
                .thenApply(v -> Thread.currentThread().getName());
        read.future.complete(1L); // completed here, as an object storage I/O thread would
        String name = thread.get(10, TimeUnit.SECONDS);
        assertTrue(name.startsWith("aloft-catchup-read-"), name);
    }

    @Test
    void readsInDebtToTheByteRate_waitUntilItIsRepaid() throws Exception {
        CatchUpReads reads = reads(64 * MIB, 10 * MIB); // bucket: 1 MiB (a tenth of a second, at least 1 MiB)
        ManualRead first = new ManualRead();
        reads.read(64 * MIB, first::start, n -> n);
        assertEquals(MIB, first.granted, "a paced read is granted about a tenth of a second of the rate");
        first.future.complete(20 * MIB); // delivered 20 MiB: 19 MiB in debt, 1.9 s at 10 MiB/s
        ManualRead second = new ManualRead();
        CompletableFuture<Long> r2 = awaitStarted(reads, second);
        assertFalse(second.started, "the clock has not moved: still in debt");
        assertEquals(1, reads.waits());
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(1_800));
        assertFalse(second.started || r2.isDone());
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(200)); // 2.0 s: repaid; the scheduled wake-up starts it
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!second.started && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(second.started, "started once the debt was repaid");
    }

    /** Submits {@code read} once the first read's completion has been charged (it is charged on a catch-up thread). */
    private static CompletableFuture<Long> awaitStarted(CatchUpReads reads, ManualRead read) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (reads.inFlightBytes() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        return reads.read(MIB, read::start, n -> n);
    }

    @Test
    void close_failsWaitingReads_andRefusesNewOnes() {
        CatchUpReads reads = reads(MIB, 0);
        ManualRead running = new ManualRead();
        ManualRead queued = new ManualRead();
        reads.read(MIB, running::start, n -> n);
        CompletableFuture<Long> waiting = reads.read(MIB, queued::start, n -> n);
        reads.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof StreamException, e.toString());
        assertFalse(queued.started);
        assertTrue(reads.read(MIB, new ManualRead()::start, n -> n).isCompletedExceptionally());
    }

    @Test
    void byteRate_paysForWhatWasDelivered_andBanksAtMostATenthOfASecond() {
        long second = TimeUnit.SECONDS.toNanos(1);
        ByteRate rate = new ByteRate(100 * MIB, 0);
        assertEquals(0, rate.delayNanos(0));
        rate.spend(30 * MIB, 0); // bucket 10 MiB: 20 MiB in debt
        assertEquals(second / 5, rate.delayNanos(0), second / 1000);
        assertEquals(0, rate.delayNanos(second / 5));
        rate.spend(0, 100 * second); // a long idle period banks only the bucket
        rate.spend(30 * MIB, 100 * second);
        assertEquals(second / 5, rate.delayNanos(100 * second), second / 1000);
        ByteRate unlimited = new ByteRate(0, 0);
        assertEquals(10 * MIB, rate.grant(64 * MIB));
        assertEquals(5 * MIB, rate.grant(5 * MIB));
        unlimited.spend(Long.MAX_VALUE / 2, 0);
        assertEquals(64 * MIB, unlimited.grant(64 * MIB));
        assertEquals(0, unlimited.delayNanos(0));
    }
}
