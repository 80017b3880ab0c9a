package io.aloft.broker.share.fetch;

import io.aloft.broker.share.partition.AcknowledgeResult;
import io.aloft.broker.share.partition.Acknowledgement;
import io.aloft.broker.share.partition.Acquired;
import io.aloft.broker.share.partition.SharePartitions;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * SharePartitions for tests: each partition answers acquisitions from a queue of scripted
 * {@link Acquired}s (nothing acquired when empty), acknowledgements with a scripted result (NONE
 * by default), and records every call. Wakes are kept until {@link #makeAvailable} runs them.
 * Thread-safe (synchronized).
 */
public class FakeSharePartitions implements SharePartitions {
    public record AcquireCall(String groupId, String memberId, TopicIdPartition tp, int maxBytes, int maxRecords,
            boolean recordLimit) {
    }

    public record AcknowledgeCall(String groupId, String memberId, TopicIdPartition tp, List<Acknowledgement> acks) {
    }

    private final Map<TopicIdPartition, Queue<Acquired>> toAcquire = new HashMap<>();
    private final Map<TopicIdPartition, AcknowledgeResult> ackResults = new HashMap<>();
    private final Map<TopicIdPartition, List<Runnable>> wakes = new HashMap<>();
    public final List<AcquireCall> acquires = new CopyOnWriteArrayList<>();
    public final List<AcknowledgeCall> acknowledges = new CopyOnWriteArrayList<>();
    public final List<String> released = new CopyOnWriteArrayList<>();
    /** "acquire p" / "acknowledge p" / "release m", in call order. */
    public final List<String> events = new CopyOnWriteArrayList<>();
    public final List<TopicIdPartition> cancelled = new CopyOnWriteArrayList<>();

    /** The next acquisition of {@code tp} gives {@code a}. */
    public synchronized FakeSharePartitions willAcquire(TopicIdPartition tp, Acquired a) {
        toAcquire.computeIfAbsent(key(tp), k -> new ArrayDeque<>()).add(a);
        return this;
    }

    public synchronized FakeSharePartitions acknowledgeAnswers(TopicIdPartition tp, AcknowledgeResult r) {
        ackResults.put(key(tp), r);
        return this;
    }

    /** Runs (once) the wakes registered on {@code tp}. */
    public void makeAvailable(TopicIdPartition tp) {
        List<Runnable> run;
        synchronized (this) {
            run = wakes.remove(key(tp));
        }
        if (run != null) {
            run.forEach(Runnable::run);
        }
    }

    public synchronized int waiting(TopicIdPartition tp) {
        List<Runnable> w = wakes.get(key(tp));
        return w == null ? 0 : w.size();
    }

    private static TopicIdPartition key(TopicIdPartition tp) {
        return new TopicIdPartition(tp.topicId(), tp.partition(), null);
    }

    @Override
    public synchronized CompletableFuture<Acquired> acquire(String groupId, String memberId, TopicIdPartition tp,
            int maxBytes, int maxRecords, boolean recordLimit) {
        events.add("acquire " + tp.partition());
        acquires.add(new AcquireCall(groupId, memberId, tp, maxBytes, maxRecords, recordLimit));
        Queue<Acquired> q = toAcquire.get(key(tp));
        Acquired a = q == null || q.isEmpty() ? new Acquired(Errors.NONE, null,
                io.aloft.broker.log.BatchRecords.EMPTY, List.of(), 30_000) : q.poll();
        return CompletableFuture.completedFuture(a);
    }

    @Override
    public synchronized CompletableFuture<AcknowledgeResult> acknowledge(String groupId, String memberId,
            TopicIdPartition tp, List<Acknowledgement> acknowledgements) {
        events.add("acknowledge " + tp.partition());
        acknowledges.add(new AcknowledgeCall(groupId, memberId, tp, acknowledgements));
        return CompletableFuture.completedFuture(ackResults.getOrDefault(key(tp), AcknowledgeResult.OK));
    }

    @Override
    public CompletableFuture<Void> releaseMember(String groupId, String memberId) {
        released.add(groupId + "/" + memberId);
        events.add("release " + memberId);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public synchronized boolean wakeOnAvailable(String groupId, TopicIdPartition tp, Runnable wake) {
        Queue<Acquired> q = toAcquire.get(key(tp));
        if (q != null && !q.isEmpty()) {
            return false;
        }
        wakes.computeIfAbsent(key(tp), k -> new ArrayList<>()).add(wake);
        return true;
    }

    @Override
    public synchronized void cancelWake(String groupId, TopicIdPartition tp, Runnable wake) {
        List<Runnable> w = wakes.get(key(tp));
        if (w != null && w.remove(wake)) {
            cancelled.add(tp);
        }
    }
}
