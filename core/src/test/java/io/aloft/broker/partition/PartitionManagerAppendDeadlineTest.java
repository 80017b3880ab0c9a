package io.aloft.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.log.AppendResult;
import io.aloft.broker.log.LogConfig;
import io.aloft.broker.log.LogFixture;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import io.aloft.stream.metadata.StreamMetadata;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A produce queued behind a partition that opens only after the request's timeout is refused with
 * REQUEST_TIMED_OUT and not appended: the client gave up on it, and an idempotent producer may
 * have moved on (a late append duplicated a resent batch or broke its sequence). The appends that
 * queued behind it are refused too (appending them would leave a gap where it was); appends that
 * arrive after that are appended as before.
 */
class PartitionManagerAppendDeadlineTest {
    private static final int SELF = 1;
    private static final TopicPartition TP = new TopicPartition("late", 0);

    @TempDir
    Path dir;

    @Test
    void openReadyAfterTheDeadline_appendAndThoseQueuedBehindRefusedAndNotApplied() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try (LogFixture f = new LogFixture(dir)) {
            List<Long> streams = List.of(f.store.createStream().get(10, TimeUnit.SECONDS),
                    f.store.createStream().get(10, TimeUnit.SECONDS));
            MetadataCache cache = new MetadataCache();
            cache.putTopic(new TopicInfo(UUID.randomUUID(), TP.topic(), Map.of(),
                    List.of(new PartitionInfo(0, SELF, 1, streams))));
            // The controller's answer about who holds the streams comes only when the test says so.
            CompletableFuture<Void> controllerAnswers = new CompletableFuture<>();
            PartitionManager partitions = new PartitionManager(SELF, cache, f.store, heldUntil(
                    new AtomicReference<>(controllerAnswers), f.metadata), LogConfig::defaults, f.clock::get,
                    scheduler, 60_000);
            try {
                CompletableFuture<AppendResult> late = partitions.append(TP, records("late"),
                        System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50));
                CompletableFuture<AppendResult> queuedBehind = partitions.append(TP, records("queued-behind"),
                        System.nanoTime() + TimeUnit.SECONDS.toNanos(60));
                Thread.sleep(200);
                controllerAnswers.complete(null);

                LogFixture.assertFails(Errors.REQUEST_TIMED_OUT, late);
                LogFixture.assertFails(Errors.REQUEST_TIMED_OUT, queuedBehind);
                assertEquals(0, LogFixture.get(partitions.append(TP, records("next"))).baseOffset(),
                        "nothing of the refused appends is in the log");
                assertEquals(1, LogFixture.get(partitions.append(TP, records("after"),
                        System.nanoTime() + TimeUnit.SECONDS.toNanos(60))).baseOffset());
            } finally {
                partitions.close();
            }
        } finally {
            scheduler.shutdownNow();
        }
    }

    /**
     * An open that fails fails every append that waited for it, not only the first: the next
     * append would otherwise open the log again and land where the failed ones should have been.
     */
    @Test
    void openFails_everyAppendWaitingForItRefused_nextOneAppendedAtTheStart() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try (LogFixture f = new LogFixture(dir)) {
            List<Long> streams = List.of(f.store.createStream().get(10, TimeUnit.SECONDS),
                    f.store.createStream().get(10, TimeUnit.SECONDS));
            MetadataCache cache = new MetadataCache();
            cache.putTopic(new TopicInfo(UUID.randomUUID(), TP.topic(), Map.of(),
                    List.of(new PartitionInfo(0, SELF, 1, streams))));
            CompletableFuture<Void> failing = new CompletableFuture<>();
            AtomicReference<CompletableFuture<Void>> controller = new AtomicReference<>(failing);
            PartitionManager partitions = new PartitionManager(SELF, cache, f.store, heldUntil(controller, f.metadata),
                    LogConfig::defaults, f.clock::get, scheduler, 60_000);
            try {
                long later = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                CompletableFuture<AppendResult> first = partitions.append(TP, records("first"), later);
                CompletableFuture<AppendResult> second = partitions.append(TP, records("second"), later);
                controller.set(CompletableFuture.completedFuture(null)); // the next open will succeed
                failing.completeExceptionally(new java.io.IOException("controller unavailable"));

                LogFixture.assertFails(Errors.KAFKA_STORAGE_ERROR, first);
                LogFixture.assertFails(Errors.KAFKA_STORAGE_ERROR, second);
                assertEquals(0, LogFixture.get(partitions.append(TP, records("retried"), later)).baseOffset(),
                        "nothing of the refused appends is in the log");
            } finally {
                partitions.close();
            }
        } finally {
            scheduler.shutdownNow();
        }
    }

    /**
     * A new topic's first batches can reach its broker before the topic does (UNKNOWN_TOPIC_OR_PARTITION,
     * not appended); a later batch of the same idempotent producer arriving once the topic is known
     * must wait for them, since the log would accept a producer it does not know at any sequence.
     */
    @Test
    void producersEarlierBatchRefusedUnappended_laterBatchWaitsForItsRetry() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try (LogFixture f = new LogFixture(dir)) {
            List<Long> streams = List.of(f.store.createStream().get(10, TimeUnit.SECONDS),
                    f.store.createStream().get(10, TimeUnit.SECONDS));
            MetadataCache cache = new MetadataCache(); // the topic is not known here yet
            PartitionManager partitions = new PartitionManager(SELF, cache, f.store, f.metadata, LogConfig::defaults,
                    f.clock::get, scheduler, 60_000);
            try {
                long pid = 42;
                LogFixture.assertFails(Errors.UNKNOWN_TOPIC_OR_PARTITION, partitions.append(TP, idempotent(pid, 0)));
                cache.putTopic(new TopicInfo(UUID.randomUUID(), TP.topic(), Map.of(),
                        List.of(new PartitionInfo(0, SELF, 1, streams))));
                LogFixture.assertFails(Errors.NOT_LEADER_OR_FOLLOWER, partitions.append(TP, idempotent(pid, 1)));
                // The retries, in order: nothing missing.
                assertEquals(0, LogFixture.get(partitions.append(TP, idempotent(pid, 0))).baseOffset());
                assertEquals(1, LogFixture.get(partitions.append(TP, idempotent(pid, 1))).baseOffset());
                // Another producer was never held back.
                assertEquals(2, LogFixture.get(partitions.append(TP, idempotent(pid + 1, 7))).baseOffset());

                // The same when the refusal named the topic by an id not known yet (UNKNOWN_TOPIC_ID).
                long other = pid + 2;
                UUID laterId = UUID.randomUUID();
                partitions.refusedUnknownTopicId(laterId, 0, idempotent(other, 0));
                TopicPartition later = new TopicPartition("later", 0);
                List<Long> laterStreams = List.of(f.store.createStream().get(10, TimeUnit.SECONDS),
                        f.store.createStream().get(10, TimeUnit.SECONDS));
                cache.putTopic(new TopicInfo(laterId, later.topic(), Map.of(),
                        List.of(new PartitionInfo(0, SELF, 1, laterStreams))));
                LogFixture.assertFails(Errors.NOT_LEADER_OR_FOLLOWER, partitions.append(later, idempotent(other, 1)));
                assertEquals(0, LogFixture.get(partitions.append(later, idempotent(other, 0))).baseOffset());
                assertEquals(1, LogFixture.get(partitions.append(later, idempotent(other, 1))).baseOffset());
            } finally {
                partitions.close();
            }
        } finally {
            scheduler.shutdownNow();
        }
    }

    /** Bad input: produces naming made-up topic ids must not grow the broker's memory of refusals without bound. */
    @Test
    void refusalsByUnknownTopicId_areCapped() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try (LogFixture f = new LogFixture(dir)) {
            PartitionManager partitions = new PartitionManager(SELF, new MetadataCache(), f.store, f.metadata,
                    LogConfig::defaults, f.clock::get, scheduler, 60_000);
            try {
                MemoryRecords batch = idempotent(7, 0);
                for (int i = 0; i < PartitionWriters.MAX_REFUSED_TOPIC_IDS + 500; i++) {
                    partitions.refusedUnknownTopicId(UUID.randomUUID(), 0, batch);
                }
                assertEquals(PartitionWriters.MAX_REFUSED_TOPIC_IDS, partitions.refusedTopicIdCount());
            } finally {
                partitions.close();
            }
        } finally {
            scheduler.shutdownNow();
        }
    }

    private static MemoryRecords idempotent(long pid, int sequence) {
        return MemoryRecords.withIdempotentRecords(Compression.NONE, pid, (short) 0, sequence,
                LogFixture.rec(LogFixture.T0, "p" + pid + "-" + sequence));
    }

    private static MemoryRecords records(String value) {
        return MemoryRecords.withRecords(Compression.NONE, LogFixture.rec(LogFixture.T0, value));
    }

    /** {@code delegate}, whose describeStream answers only once the gate in force when it was called completes. */
    private static StreamMetadata heldUntil(AtomicReference<CompletableFuture<Void>> gate, StreamMetadata delegate) {
        return (StreamMetadata) Proxy.newProxyInstance(StreamMetadata.class.getClassLoader(),
                new Class<?>[] {StreamMetadata.class}, (proxy, method, args) -> {
                    if (method.getName().equals("describeStream")) {
                        return gate.get().thenCompose(v -> {
                            try {
                                return (CompletableFuture<?>) method.invoke(delegate, args);
                            } catch (IllegalAccessException | InvocationTargetException e) {
                                return CompletableFuture.failedFuture(e);
                            }
                        });
                    }
                    try {
                        return method.invoke(delegate, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
