package io.aloft.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.log.AppendResult;
import io.aloft.broker.log.LogFixture;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.log.PartitionLogException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One writer per partition: appends from many threads reach a partition's log in the order each
 * thread made them, also when they all queued behind the log's open; a partition waiting for its
 * open holds up no other; an open that fails refuses what waited for it and nothing after.
 */
class PartitionWritersTest {
    private static final TopicPartition OTHER = new TopicPartition("other", 0);

    @TempDir
    Path dir;

    @Test
    void appendsFromManyThreadsQueuedBehindAnOpen_reachTheLogInEachThreadsOrder() throws Exception {
        try (LogFixture f = new LogFixture(dir)) {
            PartitionLog log = f.open();
            CompletableFuture<Void> opened = new CompletableFuture<>();
            PartitionWriters writers = new PartitionWriters(tp -> opened.thenApply(v -> log), topic -> null);
            int threads = 4;
            int perThread = 50;
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<List<CompletableFuture<AppendResult>>>> submitted = new ArrayList<>();
            try {
                for (int t = 0; t < threads; t++) {
                    long producerId = 100 + t;
                    submitted.add(pool.submit(() -> {
                        go.await();
                        List<CompletableFuture<AppendResult>> mine = new ArrayList<>();
                        for (int seq = 0; seq < perThread; seq++) {
                            if (seq == perThread / 2) {
                                opened.complete(null); // half arrive while the log opens, half after
                            }
                            mine.add(writers.append(LogFixture.TP, idempotent(producerId, seq), Long.MAX_VALUE));
                        }
                        return mine;
                    }));
                }
                go.countDown();
                for (Future<List<CompletableFuture<AppendResult>>> s : submitted) {
                    long previous = -1;
                    // An idempotent producer's batches out of order would fail with OUT_OF_ORDER_SEQUENCE.
                    for (CompletableFuture<AppendResult> append : s.get(10, TimeUnit.SECONDS)) {
                        long offset = LogFixture.get(append).baseOffset();
                        assertTrue(offset > previous, "a thread's appends are placed in its order");
                        previous = offset;
                    }
                }
                assertEquals(threads * perThread, log.highWatermark());
                assertEquals(0, writers.writerCount(), "all appended: no writer kept");
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void aPartitionWaitingForItsOpen_holdsUpNoOther_andItsFailedOpenRefusesOnlyWhatWaited() throws Exception {
        try (LogFixture f = new LogFixture(dir)) {
            PartitionLog log = f.open();
            CompletableFuture<PartitionLog> otherOpens = new CompletableFuture<>();
            List<CompletableFuture<PartitionLog>> opens = new ArrayList<>(List.of(otherOpens));
            PartitionWriters writers = new PartitionWriters(tp -> tp.equals(OTHER)
                    ? (opens.isEmpty() ? CompletableFuture.completedFuture(log) : opens.remove(0))
                    : CompletableFuture.completedFuture(log), topic -> null);

            CompletableFuture<AppendResult> waiting1 = writers.append(OTHER, plain("w1"), Long.MAX_VALUE);
            CompletableFuture<AppendResult> waiting2 = writers.append(OTHER, plain("w2"), Long.MAX_VALUE);
            assertEquals(0, LogFixture.get(writers.append(LogFixture.TP, plain("a"), Long.MAX_VALUE)).baseOffset());
            assertFalse(waiting1.isDone() || waiting2.isDone(), "still waiting for their open");

            otherOpens.completeExceptionally(new PartitionLogException(Errors.KAFKA_STORAGE_ERROR, "object storage down"));
            LogFixture.assertFails(Errors.KAFKA_STORAGE_ERROR, waiting1);
            LogFixture.assertFails(Errors.KAFKA_STORAGE_ERROR, waiting2);
            assertEquals(0, writers.writerCount());
            assertEquals(1, LogFixture.get(writers.append(OTHER, plain("after"), Long.MAX_VALUE)).baseOffset(),
                    "an append after the failed open opens again and is appended");
        }
    }

    private static MemoryRecords idempotent(long pid, int sequence) {
        return MemoryRecords.withIdempotentRecords(Compression.NONE, pid, (short) 0, sequence,
                LogFixture.rec(LogFixture.T0, "p" + pid + "-" + sequence));
    }

    private static MemoryRecords plain(String value) {
        return MemoryRecords.withRecords(Compression.NONE, LogFixture.rec(LogFixture.T0, value));
    }
}
