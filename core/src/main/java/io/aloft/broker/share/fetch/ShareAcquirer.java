package io.aloft.broker.share.fetch;

import io.aloft.broker.share.partition.Acquired;
import io.aloft.broker.share.partition.SharePartitions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * ShareFetch's acquisition: acquires records for a member from its session's partitions, one
 * partition after the other within the request's record and byte budgets (each partition gets
 * what the ones before it left), and, when nothing could be acquired and the request may wait,
 * waits up to its {@code MaxWaitMs} (a long poll) for any partition to have records again
 * ({@link SharePartitions#wakeOnAvailable}), then tries again; never blocking a thread: the
 * answer completes a future, on the thread of the share partition that woke it or of the timer.
 *
 * <p>A wake may find nothing (another member took the records first): the request then waits
 * again, until its deadline. Partitions that answer "available now" without yielding records
 * (a share partition loading, say) are retried at once at most {@link #IMMEDIATE_RETRIES} times
 * per request, after which the request waits for real wakes or its deadline, so such a partition
 * cannot make a request spin.
 *
 * <p>Thread-safe and stateless between requests; one request's state is confined to whichever
 * thread runs its current step (steps follow each other, never overlap).
 */
public final class ShareAcquirer {
    /** How often one request re-acquires at once because a partition said records may be available. */
    static final int IMMEDIATE_RETRIES = 3;

    /**
     * One ShareFetch's acquisition.
     *
     * @param targets the partitions to acquire from, resolved and authorized, in the order to try
     * @param maxBytes the request's byte budget over all partitions (whole batches: the first may exceed it)
     * @param maxRecords the request's record budget over all partitions
     * @param recordLimit ShareAcquireMode record_limit (v2)
     * @param maxWaitMs how long to wait when nothing is acquired; 0 or less answers at once
     */
    public record Request(String groupId, String memberId, List<TopicIdPartition> targets, int maxBytes,
            int maxRecords, boolean recordLimit, int maxWaitMs) {
        public Request {
            targets = List.copyOf(targets);
        }
    }

    private final SharePartitions partitions;
    private final ScheduledExecutorService timer;
    private final LongSupplier nanoClock;
    private final Function<Throwable, Errors> errors;

    /**
     * @param errors maps a failed acquisition to its partition's error (the handlers' one mapping
     *     of exceptions to Kafka codes)
     */
    public ShareAcquirer(SharePartitions partitions, ScheduledExecutorService timer,
            Function<Throwable, Errors> errors) {
        this(partitions, timer, errors, System::nanoTime);
    }

    ShareAcquirer(SharePartitions partitions, ScheduledExecutorService timer, Function<Throwable, Errors> errors,
            LongSupplier nanoClock) {
        this.partitions = partitions;
        this.timer = timer;
        this.errors = errors;
        this.nanoClock = nanoClock;
    }

    /**
     * Completes with what each target gave (a target the budgets left nothing for is absent),
     * in target order; never exceptionally (a partition's failure is its Acquired's error).
     */
    public CompletableFuture<Map<TopicIdPartition, Acquired>> acquire(Request request) {
        long deadline = nanoClock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, request.maxWaitMs()));
        CompletableFuture<Map<TopicIdPartition, Acquired>> done = new CompletableFuture<>();
        new Attempt(request, deadline, done).pass();
        return done;
    }

    /** One request's passes and waits. */
    private final class Attempt {
        private final Request request;
        private final long deadlineNanos;
        private final CompletableFuture<Map<TopicIdPartition, Acquired>> done;
        private int immediateRetries;

        Attempt(Request request, long deadlineNanos, CompletableFuture<Map<TopicIdPartition, Acquired>> done) {
            this.request = request;
            this.deadlineNanos = deadlineNanos;
            this.done = done;
        }

        void pass() {
            Pass pass = new Pass(request);
            pass.from(0).whenComplete((result, e) -> {
                if (e != null) {
                    done.completeExceptionally(e); // a bug: acquire futures answer errors in their Acquired
                } else if (pass.acquiredAny || pass.failedAny || request.targets().isEmpty()
                        || nanoClock.getAsLong() - deadlineNanos >= 0) {
                    // Records, or an error the client must act on (a moved leader): answer now.
                    done.complete(result);
                } else {
                    waitThenPass(result);
                }
            });
        }

        /** Waits for any target to have records, or the deadline (then {@code last} is the answer). */
        private void waitThenPass(Map<TopicIdPartition, Acquired> last) {
            AtomicBoolean woken = new AtomicBoolean();
            CompletableFuture<Boolean> outcome = new CompletableFuture<>();
            Runnable wake = () -> {
                if (woken.compareAndSet(false, true)) {
                    outcome.complete(true);
                }
            };
            boolean availableNow = false;
            for (TopicIdPartition tp : request.targets()) {
                // Registered with every partition even when one says "now": once the immediate retries
                // are spent, the others' wakes are what ends the wait before the deadline.
                if (!partitions.wakeOnAvailable(request.groupId(), tp, wake)) {
                    availableNow = true;
                }
            }
            if (availableNow && immediateRetries < IMMEDIATE_RETRIES) {
                immediateRetries++;
                wake.run();
            }
            long delay = Math.max(0, deadlineNanos - nanoClock.getAsLong());
            ScheduledFuture<?> deadline = timer.schedule(() -> outcome.complete(false), delay, TimeUnit.NANOSECONDS);
            outcome.whenComplete((again, e) -> {
                deadline.cancel(false);
                woken.set(true);
                for (TopicIdPartition tp : request.targets()) {
                    partitions.cancelWake(request.groupId(), tp, wake); // idle partitions keep no stale waiters
                }
                if (again) {
                    pass();
                } else {
                    done.complete(last);
                }
            });
        }
    }

    /** One pass over the targets: a plain loop over answers ready at once, a callback for the rest. */
    private final class Pass {
        private final Request request;
        private final Map<TopicIdPartition, Acquired> result = new LinkedHashMap<>();
        private final CompletableFuture<Map<TopicIdPartition, Acquired>> finished = new CompletableFuture<>();
        private int recordsLeft;
        private long bytesLeft;
        boolean acquiredAny;
        boolean failedAny;

        Pass(Request request) {
            this.request = request;
            this.recordsLeft = request.maxRecords();
            this.bytesLeft = request.maxBytes();
        }

        CompletableFuture<Map<TopicIdPartition, Acquired>> from(int first) {
            List<TopicIdPartition> targets = request.targets();
            for (int i = first; i < targets.size(); i++) {
                if (recordsLeft <= 0 || bytesLeft <= 0) {
                    break; // the budgets are spent: the rest wait for the next fetch
                }
                TopicIdPartition tp = targets.get(i);
                CompletableFuture<Acquired> answer = acquireOne(tp);
                if (!answer.isDone()) {
                    int next = i + 1;
                    answer.whenComplete((a, e) -> {
                        try {
                            add(tp, a, e);
                            from(next);
                        } catch (RuntimeException t) {
                            finished.completeExceptionally(t);
                        }
                    });
                    return finished;
                }
                if (answer.isCompletedExceptionally()) {
                    add(tp, null, failure(answer));
                } else {
                    add(tp, answer.getNow(null), null);
                }
            }
            finished.complete(result);
            return finished;
        }

        private CompletableFuture<Acquired> acquireOne(TopicIdPartition tp) {
            try {
                return partitions.acquire(request.groupId(), request.memberId(), tp,
                        (int) Math.min(Integer.MAX_VALUE, bytesLeft), recordsLeft, request.recordLimit());
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }

        private void add(TopicIdPartition tp, Acquired a, Throwable e) {
            if (e != null || a == null) {
                a = Acquired.failed(e == null ? Errors.UNKNOWN_SERVER_ERROR : errors.apply(e), null);
            }
            result.put(tp, a);
            if (a.error() != Errors.NONE) {
                failedAny = true;
                return;
            }
            if (!a.isEmpty()) {
                acquiredAny = true;
                for (Acquired.AcquiredRange r : a.ranges()) {
                    recordsLeft -= (int) Math.min(Integer.MAX_VALUE, r.lastOffset() - r.firstOffset() + 1);
                }
                bytesLeft -= a.records().sizeInBytes();
            }
        }
    }

    private static Throwable failure(CompletableFuture<?> failed) {
        try {
            failed.join();
            return null;
        } catch (RuntimeException e) {
            return e;
        }
    }
}
