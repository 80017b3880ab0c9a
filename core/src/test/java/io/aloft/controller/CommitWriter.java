package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.fail;

import io.aloft.controller.client.ControllerStreamMetadata;
import io.aloft.stream.metadata.CommitStreamSetObjectRequest;
import io.aloft.stream.metadata.CreateStreamRequest;
import io.aloft.stream.metadata.OpenStreamRequest;
import io.aloft.stream.metadata.PrepareObjectsRequest;
import io.aloft.stream.metadata.StreamRange;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Commits stream-set objects in a loop, as a broker's uploads would: each commit is a prepare of
 * one object id, then a commit of that object with ranges on one to three of the thread's own
 * streams, continuing each stream where its last acknowledged commit ended. Every commit whose
 * future completed successfully is recorded; nothing else is.
 *
 * <p>A commit that fails stops the writer and is reported by {@link #awaitAcked} and {@link #stop}:
 * the client promises to retry through leader changes for its whole request timeout, so in these
 * tests any failure is a finding, not noise. (A failed commit would also leave its outcome unknown,
 * which would make "exactly once" uncheckable.)
 */
final class CommitWriter implements AutoCloseable {
    static final int NODE_ID = 1;
    static final long EPOCH = 1;

    /** One acknowledged commit: the object and the ranges it was committed with. */
    record Ack(long objectId, List<StreamRange> ranges) {
    }

    private final ControllerStreamMetadata metadata;
    private final int threads;
    private final int streamsPerThread;
    private final long seed;
    private final List<Ack> acks = Collections.synchronizedList(new ArrayList<>());
    private final Map<Long, Long> ends = new ConcurrentHashMap<>();
    private final List<Long> streamIds = new ArrayList<>();
    private final List<Thread> workers = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean stopping;

    CommitWriter(ControllerStreamMetadata metadata, int threads, int streamsPerThread, long seed) {
        this.metadata = metadata;
        this.threads = threads;
        this.streamsPerThread = streamsPerThread;
        this.seed = seed;
    }

    /** Creates and opens the streams (waiting for the quorum), then starts the writing threads. */
    CommitWriter start() throws Exception {
        for (int i = 0; i < threads * streamsPerThread; i++) {
            long id = metadata.createStream(new CreateStreamRequest(NODE_ID)).get(60, TimeUnit.SECONDS);
            metadata.openStream(new OpenStreamRequest(id, EPOCH, NODE_ID)).get(60, TimeUnit.SECONDS);
            streamIds.add(id);
            ends.put(id, 0L);
        }
        for (int t = 0; t < threads; t++) {
            List<Long> own = streamIds.subList(t * streamsPerThread, (t + 1) * streamsPerThread);
            SplittableRandom random = new SplittableRandom(seed + t);
            Thread worker = new Thread(() -> run(own, random), "commit-writer-" + t);
            worker.setDaemon(true);
            workers.add(worker);
            worker.start();
        }
        return this;
    }

    private void run(List<Long> own, SplittableRandom random) {
        try {
            while (!stopping) {
                long objectId = metadata.prepareObjects(new PrepareObjectsRequest(NODE_ID, 1, 600_000,
                        System.currentTimeMillis())).get(60, TimeUnit.SECONDS);
                List<Long> pick = new ArrayList<>(own);
                Collections.shuffle(pick, new java.util.Random(random.nextLong()));
                List<StreamRange> ranges = new ArrayList<>();
                for (long stream : pick.subList(0, 1 + random.nextInt(Math.min(3, pick.size())))) {
                    long start = ends.get(stream);
                    ranges.add(new StreamRange(stream, EPOCH, start, start + 1 + random.nextInt(20)));
                }
                metadata.commitStreamSetObject(new CommitStreamSetObjectRequest(NODE_ID, objectId, 1_000, ranges,
                        List.of(), List.of(), System.currentTimeMillis())).get(60, TimeUnit.SECONDS);
                // Only this thread writes these streams, so its view of their ends is exact.
                ranges.forEach(r -> ends.put(r.streamId(), r.endOffset()));
                acks.add(new Ack(objectId, ranges));
            }
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
        }
    }

    int acked() {
        return acks.size();
    }

    /** Waits until {@code count} commits are acknowledged; fails if the writer failed or 60 s pass. */
    void awaitAcked(int count, String during) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (acks.size() < count) {
            Throwable e = failure.get();
            if (e != null) {
                throw new AssertionError("a commit failed " + during + " after " + acks.size() + " acks", e);
            }
            if (System.nanoTime() > deadline) {
                fail("only " + acks.size() + " of " + count + " commits acknowledged within 60 s " + during);
            }
            Thread.sleep(10);
        }
    }

    /** Stops the threads (after their commit in flight) and returns every acknowledged commit. */
    List<Ack> stop() throws InterruptedException {
        stopping = true;
        for (Thread w : workers) {
            w.join(TimeUnit.SECONDS.toMillis(90));
            if (w.isAlive()) {
                fail(w.getName() + " did not stop");
            }
        }
        Throwable e = failure.get();
        if (e != null) {
            throw new AssertionError("a commit failed after " + acks.size() + " acks", e);
        }
        return List.copyOf(acks);
    }

    List<Long> streamIds() {
        return List.copyOf(streamIds);
    }

    /** Each stream's end offset as the acknowledged commits left it. */
    Map<Long, Long> ends() {
        return new TreeMap<>(ends);
    }

    @Override
    public void close() {
        stopping = true;
    }
}
