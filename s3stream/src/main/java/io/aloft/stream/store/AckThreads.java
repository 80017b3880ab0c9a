package io.aloft.stream.store;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

/**
 * The threads appends are acknowledged on ({@code aloft-stream-ack-<n>}): a fixed set of
 * single-threaded executors, one picked per stream from its id, so every acknowledgement of a
 * stream runs on the same thread, in the order the WAL made the appends durable.
 *
 * <p>Why not the WAL's own callback thread: everything a caller chains on an append (in the
 * broker: the partition's high watermark, the produce response, re-reading for the fetches it
 * wakes) would then run there, one thread for the whole node, and the WAL's next completions would
 * wait behind it. Here the WAL thread only hands each completion over, and streams spread over
 * as many threads as there are cores.
 *
 * <p>Thread-safe. After {@link #shutdown} a task is run by the thread that submits it (a WAL
 * closing after the store completes its last appends that way), so no acknowledgement is dropped.
 */
final class AckThreads {
    /** Thread name prefix; tests and thread dumps recognise acknowledgement threads by it. */
    static final String THREAD_PREFIX = "aloft-stream-ack-";

    private final ExecutorService[] threads;
    private final Executor[] executors;

    AckThreads(int count, Thread.UncaughtExceptionHandler handler) {
        if (count < 1) {
            throw new IllegalArgumentException("count " + count + " < 1");
        }
        threads = new ExecutorService[count];
        executors = new Executor[count];
        for (int i = 0; i < count; i++) {
            String name = THREAD_PREFIX + (i + 1);
            ExecutorService one = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, name);
                t.setDaemon(true);
                t.setUncaughtExceptionHandler(handler);
                return t;
            });
            threads[i] = one;
            executors[i] = task -> {
                try {
                    one.execute(task);
                } catch (RejectedExecutionException stopped) {
                    task.run();
                }
            };
        }
    }

    /** One per core: acknowledgements are short, and streams are many. */
    static int defaultCount() {
        return Math.max(1, Runtime.getRuntime().availableProcessors());
    }

    /**
     * The executor of {@code streamId}'s acknowledgements. Ids are mixed first: a partition's
     * streams are created in pairs (records, state), so plain {@code id % count} would put every
     * records stream on the same thread when there are two.
     */
    Executor forStream(long streamId) {
        long mixed = streamId * 0x9E3779B97F4A7C15L;
        return executors[(int) Math.floorMod(mixed ^ (mixed >>> 32), (long) executors.length)];
    }

    /**
     * The threads run what is queued, then end. Does not wait for them: the store may be stopped
     * from one of them (a failure listener reacting to a failed append).
     */
    void shutdown() {
        for (ExecutorService t : threads) {
            t.shutdown();
        }
    }
}
