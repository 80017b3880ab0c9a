package io.aloft.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where and in which order a partition's appends complete: on its records stream's
 * acknowledgement thread, never on the WAL's single completion thread (which would otherwise run
 * the high watermark moves, the fetches they wake and the produce responses of the whole node),
 * and, per partition, in offset order with the high watermark never behind an acknowledged append.
 */
class PartitionLogCompletionTest {
    @TempDir
    Path dir;

    @Test
    void wokenFetch_runsOnTheAckThread_notTheWalThread() throws Exception {
        try (LogFixture f = new LogFixture(dir)) {
            PartitionLog log = f.open();
            CompletableFuture<String> wokenOn = new CompletableFuture<>();
            assertTrue(log.wakeOnData(0, org.apache.kafka.common.IsolationLevel.READ_UNCOMMITTED,
                    () -> wokenOn.complete(Thread.currentThread().getName())));

            LogFixture.get(log.append(LogFixture.batch(1)));

            String thread = wokenOn.get(10, TimeUnit.SECONDS);
            assertTrue(thread.startsWith("aloft-stream-ack-"), "the high watermark moved on " + thread);
        }
    }

    @Test
    void concurrentAppendsToManyPartitions_eachAcknowledgedInOffsetOrder() throws Exception {
        int partitions = 8;
        int appenders = 4;
        int perAppender = 60;
        try (LogFixture f = new LogFixture(dir)) {
            List<PartitionLog> logs = new ArrayList<>();
            List<ConcurrentSkipListMap<Long, CompletableFuture<AppendResult>>> issued = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                List<Long> streams = List.of(f.store.createStream().get(10, TimeUnit.SECONDS),
                        f.store.createStream().get(10, TimeUnit.SECONDS));
                logs.add(PartitionLog.open(new TopicPartition("many", p), streams, f.store, 1, 1, LogConfig.defaults(),
                        f.clock::get).get(10, TimeUnit.SECONDS));
                issued.add(new ConcurrentSkipListMap<>());
            }
            List<String> violations = new CopyOnWriteArrayList<>();
            List<CompletableFuture<?>> all = new CopyOnWriteArrayList<>();
            ExecutorService pool = Executors.newFixedThreadPool(appenders);
            try {
                List<Future<?>> running = new ArrayList<>();
                for (int a = 0; a < appenders; a++) {
                    int appender = a;
                    running.add(pool.submit(() -> {
                        // Each partition has one appender, so the offsets an append takes are known up
                        // front; the appenders run at once, over different partitions.
                        long[] next = new long[partitions];
                        for (int i = 0; i < perAppender; i++) {
                            for (int p = appender; p < partitions; p += appenders) {
                                PartitionLog log = logs.get(p);
                                ConcurrentSkipListMap<Long, CompletableFuture<AppendResult>> mine = issued.get(p);
                                int count = 1 + i % 3;
                                long base = next[p];
                                next[p] += count;
                                CompletableFuture<AppendResult> append = log.append(LogFixture.batch(count));
                                mine.put(base, append);
                                all.add(append.thenAccept(r -> {
                                    if (r.baseOffset() != base) {
                                        violations.add(log.topicPartition() + ": expected offset " + base + ", got "
                                                + r.baseOffset());
                                    }
                                    // Every append of this partition below this one is acknowledged already.
                                    mine.headMap(base).forEach((earlierBase, earlier) -> {
                                        if (!earlier.isDone()) {
                                            violations.add(log.topicPartition() + ": " + base
                                                    + " acknowledged before " + earlierBase);
                                        }
                                    });
                                    if (log.highWatermark() <= r.lastOffset()) {
                                        violations.add(log.topicPartition() + ": " + base
                                                + " acknowledged with the high watermark at " + log.highWatermark());
                                    }
                                }));
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> r : running) {
                    r.get(60, TimeUnit.SECONDS);
                }
                CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            } finally {
                pool.shutdown();
            }
            assertEquals(List.of(), violations);
            long total = 0;
            for (PartitionLog log : logs) {
                total += log.highWatermark();
                log.close().get(10, TimeUnit.SECONDS);
            }
            long expected = 0;
            for (int i = 0; i < perAppender; i++) {
                expected += (long) partitions * (1 + i % 3);
            }
            assertEquals(expected, total, "every record acknowledged is below its partition's high watermark");
        }
    }
}
