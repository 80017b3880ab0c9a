package io.aloft.stream.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.object.UploadThrottle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Pacing on a fake clock: timers fire only when the test advances time. */
class UploadPacerTest {

    private static final int CHUNK = 512 * 1024;
    private static final long MIB = 1L << 20;

    private long now;
    private final ArrayDeque<Runnable> timers = new ArrayDeque<>();
    private final List<Long> delays = new ArrayList<>();
    private final AtomicBoolean roomShort = new AtomicBoolean();

    private UploadPacer pacer(double factor) {
        return new UploadPacer(factor, () -> now, (task, nanos) -> {
            delays.add(nanos);
            timers.add(() -> {
                now += nanos;
                task.run();
            });
        }, roomShort::get);
    }

    /** Waits for the throttle as a paced pass would, firing timers in order; returns when the chunk was let go. */
    private long admit(UploadThrottle throttle, long offset, int bytes) {
        CompletableFuture<Void> admitted = throttle.admit(offset, bytes);
        while (!admitted.isDone()) {
            timers.poll().run();
        }
        return now;
    }

    /** Sends {@code bytes} in chunks; returns the fake nanoseconds from the first chunk to the last. */
    private long send(UploadThrottle throttle, long bytes) {
        long start = now;
        long last = start;
        for (long offset = 0; offset < bytes; offset += CHUNK) {
            last = admit(throttle, offset, (int) Math.min(CHUNK, bytes - offset));
        }
        return last - start;
    }

    @Test
    void forBlock_blockFilledIn10s_uploadSpreadOverAbout5s() {
        long bytes = 160 * MIB;
        UploadThrottle throttle = pacer(2).forBlock(1, 10_000).apply(bytes);

        long took = send(throttle, bytes);

        // The last chunk starts when all but it are sent at bytes / 5 s.
        long expected = TimeUnit.SECONDS.toNanos(5) * (bytes - CHUNK) / bytes;
        assertTrue(Math.abs(took - expected) < TimeUnit.MILLISECONDS.toNanos(1), took + " ns, expected " + expected);
        assertTrue(delays.stream().allMatch(d -> d <= UploadPacer.MAX_WAIT_NANOS), "waits are sliced");
    }

    @Test
    void forBlock_smallBlock_goesAtLeastAtTheMinimumRate() {
        long bytes = 4 * MIB;
        UploadThrottle throttle = pacer(2).forBlock(1, 10_000).apply(bytes);

        long took = send(throttle, bytes);

        long atMinRate = TimeUnit.SECONDS.toNanos(1) * (bytes - CHUNK) / UploadPacer.MIN_RATE;
        assertTrue(Math.abs(took - atMinRate) < TimeUnit.MILLISECONDS.toNanos(1), took + " ns, expected " + atMinRate);
    }

    @Test
    void forBlock_slowFill_stretchedAtMostMaxPaced() {
        long bytes = 400 * MIB;
        UploadThrottle throttle = pacer(2).forBlock(1, 600_000).apply(bytes);

        long took = send(throttle, bytes);

        assertTrue(took <= UploadPacer.MAX_PACED_NANOS, took + " ns");
        assertTrue(took > UploadPacer.MAX_PACED_NANOS * 9 / 10, took + " ns");
    }

    @Test
    void forBlock_factorZero_neverWaits() {
        UploadThrottle throttle = pacer(0).forBlock(1, 10_000).apply(160 * MIB);

        assertEquals(0, send(throttle, 160 * MIB));
        assertTrue(delays.isEmpty());
    }

    @Test
    void admit_roomShort_neverWaits() {
        UploadThrottle throttle = pacer(2).forBlock(1, 10_000).apply(160 * MIB);
        roomShort.set(true);

        assertEquals(0, send(throttle, 160 * MIB));
        assertTrue(delays.isEmpty());
    }

    @Test
    void hurryThrough_midUpload_liftsPacingOfThatBlockOnly() {
        UploadPacer pacer = pacer(2);
        UploadThrottle first = pacer.forBlock(1, 10_000).apply(160 * MIB);
        UploadThrottle second = pacer.forBlock(2, 10_000).apply(160 * MIB);
        admit(first, 0, CHUNK);
        CompletableFuture<Void> waiting = first.admit(80 * MIB, CHUNK);
        assertFalse(waiting.isDone());

        pacer.hurryThrough(1);
        timers.poll().run(); // the pending slice ends and sees the hurry

        assertTrue(waiting.isDone());
        long before = now;
        send(first, 160 * MIB);
        assertEquals(before, now, "block 1 no longer paced");
        assertTrue(send(second, 160 * MIB) > TimeUnit.SECONDS.toNanos(4), "block 2 still paced");
    }

    @Test
    void admit_roomShortWhileWaiting_letsGoAtTheNextSlice() {
        UploadThrottle throttle = pacer(2).forBlock(1, 10_000).apply(160 * MIB);
        admit(throttle, 0, CHUNK);
        CompletableFuture<Void> waiting = throttle.admit(100 * MIB, CHUNK);
        assertFalse(waiting.isDone());

        roomShort.set(true);
        timers.poll().run();

        assertTrue(waiting.isDone());
        assertTrue(timers.isEmpty());
    }

    @Test
    void admit_offsetZero_restartsTheClockForARetriedPass() {
        UploadThrottle throttle = pacer(2).forBlock(1, 10_000).apply(160 * MIB);
        send(throttle, 80 * MIB); // a first attempt that failed halfway
        long retryStart = now;

        long took = send(throttle, 160 * MIB);

        assertTrue(took > TimeUnit.SECONDS.toNanos(4), "the retry is paced from its own start, took " + took);
        assertTrue(now - retryStart == took);
    }
}
