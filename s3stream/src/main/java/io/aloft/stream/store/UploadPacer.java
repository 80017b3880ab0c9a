package io.aloft.stream.store;

import io.aloft.stream.object.UploadThrottle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;

/**
 * Paces the uploads of sealed log-cache blocks, so a seal's encoding and writes are spread over
 * a good part of the time the next block takes to fill instead of coming as one burst of CPU and
 * disk (or network) work beside the appends' WAL writes.
 *
 * <p>A block that took {@code T} to fill is uploaded over about {@code T / factor}
 * ({@code s3.wal.upload.pacing.factor}), at most {@link #MAX_PACED_NANOS} (well inside an S3
 * attempt's timeout), and never slower than {@link #MIN_RATE} bytes per second, so small seals
 * are not stretched. Each object of the block gets its share of that time. Because the rate
 * follows how fast the block filled, pacing never lets uploads fall behind ingest; and it is
 * lifted outright whenever slowing an upload could cost an append time: while appends wait for
 * log-cache room or room runs short ({@code roomShort}), and for the blocks a flush, a close or
 * a waiting append needs committed ({@link #hurryThrough}).
 *
 * <p>Thread-safe. Time and timers are injected: a nanosecond clock and a {@link Timer}.
 */
final class UploadPacer {
    /** The slowest a paced upload goes, in bytes per second. */
    static final long MIN_RATE = 8L << 20;
    /** The longest an upload is stretched. */
    static final long MAX_PACED_NANOS = TimeUnit.SECONDS.toNanos(20);
    /** A wait is cut into slices of at most this, so lifting the pacing takes effect soon. */
    static final long MAX_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /** Runs a task after a delay; the store's upload thread in production. */
    @FunctionalInterface
    interface Timer {
        void schedule(Runnable task, long delayNanos);
    }

    private final double factor;
    private final LongSupplier nanoClock;
    private final Timer timer;
    private final BooleanSupplier roomShort;
    /** Blocks with ids up to this go unpaced. */
    private final AtomicLong hurriedThrough = new AtomicLong(-1);

    /**
     * @param factor how many times faster than it filled a block is uploaded; 0 or less: never paced
     * @param roomShort whether appends wait, or soon would, for log-cache room
     */
    UploadPacer(double factor, LongSupplier nanoClock, Timer timer, BooleanSupplier roomShort) {
        this.factor = factor;
        this.nanoClock = nanoClock;
        this.timer = timer;
        this.roomShort = roomShort;
    }

    /**
     * The throttles of the objects of block {@code blockId}, which took {@code fillMs} to fill:
     * given an object's size, its throttle.
     */
    LongFunction<UploadThrottle> forBlock(long blockId, long fillMs) {
        if (factor <= 0) {
            return bytes -> UploadThrottle.NONE;
        }
        long target = Math.min(MAX_PACED_NANOS, (long) (TimeUnit.MILLISECONDS.toNanos(Math.max(0, fillMs)) / factor));
        return bytes -> {
            double rate = Math.max(MIN_RATE, bytes * 1e9 / Math.max(1, target));
            return new Throttle(blockId, 1e9 / rate);
        };
    }

    /** Uploads of blocks up to {@code blockId} go at full speed from now on. */
    void hurryThrough(long blockId) {
        hurriedThrough.accumulateAndGet(blockId, Math::max);
    }

    private boolean unpaced(long blockId) {
        return blockId <= hurriedThrough.get() || roomShort.getAsBoolean();
    }

    /** One object's pace: the bytes after offset {@code n} of a pass may go {@code n} bytes' time after it began. */
    private final class Throttle implements UploadThrottle {
        private final long blockId;
        private final double nanosPerByte;
        private volatile long startNanos;

        Throttle(long blockId, double nanosPerByte) {
            this.blockId = blockId;
            this.nanosPerByte = nanosPerByte;
        }

        @Override
        public CompletableFuture<Void> admit(long offset, int bytes) {
            if (offset == 0) {
                startNanos = nanoClock.getAsLong();
            }
            CompletableFuture<Void> admitted = new CompletableFuture<>();
            await(admitted, startNanos + (long) (offset * nanosPerByte));
            return admitted;
        }

        private void await(CompletableFuture<Void> admitted, long dueNanos) {
            long wait = dueNanos - nanoClock.getAsLong();
            if (wait <= 0 || unpaced(blockId)) {
                admitted.complete(null);
                return;
            }
            try {
                timer.schedule(() -> await(admitted, dueNanos), Math.min(wait, MAX_WAIT_NANOS));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                admitted.complete(null); // the store is stopping: no reason left to wait
            }
        }
    }
}
