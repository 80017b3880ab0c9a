package io.aloft.stream.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.storage.ForwardingObjectStorage;
import io.aloft.stream.storage.MemoryObjectStorage;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorages;
import io.aloft.stream.storage.S3ServerExtension;
import io.aloft.wal.WalRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The WAL in object storage: group commit, recovery, trim, take-over fencing of a live writer (on
 * file:// and on a real S3 server, versitygw), a PUT whose answer was lost.
 */
class ObjectStorageWalTest {
    private static final String PREFIX = "wal/node-7/";

    @RegisterExtension
    static final S3ServerExtension S3 = new S3ServerExtension();

    @TempDir
    Path dir;

    private static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String text(ByteBuffer b) {
        return StandardCharsets.UTF_8.decode(b.duplicate()).toString();
    }

    private static Map<Long, String> recovered(ObjectStorageWal wal) {
        Map<Long, String> out = new TreeMap<>();
        wal.recover().forEachRemaining(r -> out.put(r.offset(), text(r.body())));
        return out;
    }

    /**
     * With a batch interval, appends after a PUT wait for the interval and go in one object; an
     * object that fills goes at once; close writes what waits without waiting out the interval.
     * The interval (an hour) is far longer than the test, so nothing here depends on timing.
     */
    @Test
    void batchInterval_appendsWaitAndShareOneObject_fullObjectGoesAtOnce_closeFlushes() throws Exception {
        MemoryObjectStorage storage = new MemoryObjectStorage();
        AtomicInteger puts = new AtomicInteger();
        ObjectStorage counted = new ForwardingObjectStorage(storage) {
            @Override
            public CompletableFuture<Boolean> putIfAbsent(String key, ByteBuffer data) {
                puts.incrementAndGet();
                return super.putIfAbsent(key, data);
            }
        };
        int maxObject = 64 * 1024;
        long hourMs = TimeUnit.HOURS.toMillis(1);
        Map<Long, String> acked = new TreeMap<>();
        List<CompletableFuture<Long>> waiting = new ArrayList<>();
        try (ObjectStorageWal wal = ObjectStorageWal.open(counted, PREFIX, maxObject, hourMs)) {
            // The first PUT of a log starts at once.
            acked.put(wal.append(text("first")).get(10, TimeUnit.SECONDS), "first");
            assertEquals(1, puts.get());
            // Small appends now wait for the interval.
            for (int i = 0; i < 10; i++) {
                waiting.add(wal.append(text("small-" + i)));
            }
            TimeUnit.MILLISECONDS.sleep(200);
            assertTrue(waiting.stream().noneMatch(CompletableFuture::isDone), "small appends wait for the interval");
            assertEquals(1, puts.get());
            // Appends that fill an object go without waiting: the first of them complete.
            String big = "x".repeat(16 * 1024);
            List<CompletableFuture<Long>> bigOnes = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                bigOnes.add(wal.append(text(big)));
            }
            for (int i = 0; i < 10; i++) {
                acked.put(waiting.get(i).get(10, TimeUnit.SECONDS), "small-" + i);
            }
            acked.put(bigOnes.get(0).get(10, TimeUnit.SECONDS), big);
            assertEquals(2, puts.get(), "the small appends and the first big ones went in one full object");
            assertTrue(!bigOnes.get(4).isDone(), "what did not fit waits for the interval again");
            wal.close(); // flushes
            for (int i = 1; i < 5; i++) {
                acked.put(bigOnes.get(i).get(10, TimeUnit.SECONDS), big);
            }
            assertEquals(3, puts.get());
        }
        try (ObjectStorageWal reopened = ObjectStorageWal.open(storage, PREFIX, maxObject, hourMs)) {
            assertEquals(acked, recovered(reopened));
        }
    }

    @Test
    void appends_groupCommitted_thenRecoveredInOrderOnReopen() throws Exception {
        ObjectStorage storage = new MemoryObjectStorage();
        // The first PUT is held until every append is in: they all wait for the next object.
        CompletableFuture<Void> release = new CompletableFuture<>();
        ObjectStorage held = new ForwardingObjectStorage(storage) {
            @Override
            public CompletableFuture<Boolean> putIfAbsent(String key, ByteBuffer data) {
                return release.thenCompose(v -> super.putIfAbsent(key, data));
            }
        };
        Map<Long, String> acked = new TreeMap<>();
        try (ObjectStorageWal wal = ObjectStorageWal.open(held, PREFIX, 64 * 1024)) {
            java.util.concurrent.atomic.AtomicInteger latencies = new java.util.concurrent.atomic.AtomicInteger();
            wal.stats().appendLatencyTo(nanos -> latencies.incrementAndGet());
            List<CompletableFuture<Long>> futures = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                futures.add(wal.append(text("record-" + i)));
            }
            release.complete(null);
            long previous = -1;
            for (int i = 0; i < futures.size(); i++) {
                long offset = futures.get(i).get(10, TimeUnit.SECONDS);
                assertTrue(offset > previous, "offsets increase in append order");
                previous = offset;
                acked.put(offset, "record-" + i);
            }
            assertEquals(2, wal.stats().writes(), "the first append alone, then the 499 that came meanwhile: "
                    + wal.stats());
            assertEquals(500, wal.stats().appends());
            assertEquals(500, latencies.get(), "one latency per durable append, recorded before it completes");
        }
        try (ObjectStorageWal reopened = ObjectStorageWal.open(storage, PREFIX, 64 * 1024)) {
            assertEquals(acked, recovered(reopened));
            long next = reopened.append(text("after reopen")).get(10, TimeUnit.SECONDS);
            assertTrue(next > ((TreeMap<Long, String>) acked).lastKey(), "writing goes on after the recovered end");
        }
    }

    @Test
    void trim_recordsBelowGoneFromRecovery_wholeObjectsBelowDeleted() throws Exception {
        ObjectStorage storage = new MemoryObjectStorage();
        List<Long> offsets = new ArrayList<>();
        try (ObjectStorageWal wal = ObjectStorageWal.open(storage, PREFIX, 256)) { // a few records per object
            for (int i = 0; i < 40; i++) {
                offsets.add(wal.append(text("r" + i)).get(10, TimeUnit.SECONDS));
            }
            int objectsBefore = storage.list(PREFIX).get().size();
            wal.trim(offsets.get(30)).get(10, TimeUnit.SECONDS);
            assertTrue(storage.list(PREFIX).get().size() < objectsBefore, "objects below the trim point deleted");
            assertEquals(offsets.get(30), wal.trimOffset());
        }
        try (ObjectStorageWal reopened = ObjectStorageWal.open(storage, PREFIX, 256)) {
            Map<Long, String> expected = new TreeMap<>();
            for (int i = 30; i < 40; i++) {
                expected.put(offsets.get(i), "r" + i);
            }
            assertEquals(expected, recovered(reopened));
        }
    }

    /** Conditional writes decide the race: the file system's link(2), and a real S3 server's If-None-Match. */
    @ParameterizedTest
    @ValueSource(strings = {"file", "s3"})
    void takeOver_whileOwnerWrites_everyAcknowledgedRecordRecovered_ownerFenced(String store) throws Exception {
        ObjectStorage storage = ObjectStorages.open(store.equals("s3") ? S3.newBucketUrl()
                : "file://" + dir.resolve("objects").toAbsolutePath());
        Map<Long, String> acked = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger fencedFailures = new AtomicInteger();
        List<Throwable> otherFailures = new java.util.concurrent.CopyOnWriteArrayList<>();
        ObjectStorageWal owner = ObjectStorageWal.open(storage, PREFIX, 4096);
        java.util.concurrent.Semaphore inFlight = new java.util.concurrent.Semaphore(500);
        Thread writer = new Thread(() -> {
            for (int i = 0; !stop.get(); i++) {
                String value = "v" + i;
                try {
                    if (!inFlight.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                        continue;
                    }
                } catch (InterruptedException e) {
                    return;
                }
                owner.append(text(value)).whenComplete((offset, error) -> {
                    inFlight.release();
                    if (error == null) {
                        acked.put(offset, value);
                    } else if (error instanceof WalFencedException) {
                        fencedFailures.incrementAndGet();
                    } else {
                        otherFailures.add(error);
                    }
                });
            }
        });
        writer.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (acked.size() < 200 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        ObjectStorageWal.TakenOver taken = ObjectStorageWal.takeOver(storage, PREFIX);
        // The owner learns at its next object: every append after that fails.
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> owner.append(text("too late")).get(10, TimeUnit.SECONDS));
        assertInstanceOf(WalFencedException.class, e.getCause());
        stop.set(true);
        writer.join(10_000);
        owner.close();

        assertEquals(List.of(), otherFailures);
        assertTrue(fencedFailures.get() > 0, "appends after the fence failed as fenced");
        Map<Long, String> recovered = new TreeMap<>();
        for (WalRecord r : taken.records()) {
            recovered.put(r.offset(), text(r.body()));
        }
        assertTrue(recovered.entrySet().containsAll(acked.entrySet()),
                "every acknowledged record is in what the take-over recovered (" + acked.size() + " acked, "
                        + recovered.size() + " recovered)");
        assertTrue(acked.keySet().stream().allMatch(o -> o < taken.fenceOffset()));

        // A take-over whose broker died before releasing is simply done again: the same records and fence.
        ObjectStorageWal.TakenOver redone = ObjectStorageWal.takeOver(storage, PREFIX);
        assertEquals(taken.fenceOffset(), redone.fenceOffset());
        assertEquals(taken.records().stream().map(WalRecord::offset).toList(),
                redone.records().stream().map(WalRecord::offset).toList());

        // The old owner restarting before the take-over was released (that broker died midway) recovers
        // those records itself: nothing before the fence is skipped.
        try (ObjectStorageWal early = ObjectStorageWal.open(storage, PREFIX, 4096)) {
            assertEquals(recovered, recovered(early));
        }

        // Released: the old owner, back as a new run, recovers nothing and writes after the fence.
        ObjectStorageWal.release(storage, PREFIX, taken.fenceOffset());
        assertEquals(List.of(), ObjectStorageWal.takeOver(storage, PREFIX).records(), "released: nothing left");
        try (ObjectStorageWal restarted = ObjectStorageWal.open(storage, PREFIX, 4096)) {
            assertEquals(Map.of(), recovered(restarted));
            assertTrue(restarted.append(text("new run")).get(10, TimeUnit.SECONDS) > taken.fenceOffset());
        }
        // And a second take-over of a log already taken over and released finds only what came since.
        ObjectStorageWal.TakenOver again = ObjectStorageWal.takeOver(storage, PREFIX);
        assertEquals(List.of("new run"), again.records().stream().map(r -> text(r.body())).toList());
        storage.close();
    }

    @Test
    void putWhoseAnswerWasLost_retriedAndRecognised_noDuplicate() throws Exception {
        MemoryObjectStorage memory = new MemoryObjectStorage();
        AtomicBoolean loseFirstAnswer = new AtomicBoolean(true);
        ObjectStorage lossy = new ForwardingObjectStorage(memory) {
            @Override
            public CompletableFuture<Boolean> putIfAbsent(String key, ByteBuffer data) {
                CompletableFuture<Boolean> stored = super.putIfAbsent(key, data);
                if (loseFirstAnswer.compareAndSet(true, false)) {
                    return stored.thenCompose(v -> CompletableFuture.failedFuture(
                            new java.io.UncheckedIOException(new java.io.IOException("connection reset"))));
                }
                return stored;
            }
        };
        try (ObjectStorageWal wal = ObjectStorageWal.open(lossy, PREFIX, 4096)) {
            long offset = wal.append(text("once")).get(10, TimeUnit.SECONDS);
            assertEquals(Map.of(offset, "once"), Map.copyOf(recoveredAfterReopen(memory)));
        }
        assertEquals(1, memory.list(PREFIX).get().size(), "one object, stored once");
    }

    private static Map<Long, String> recoveredAfterReopen(ObjectStorage storage) {
        try (ObjectStorageWal reopened = ObjectStorageWal.open(storage, PREFIX, 4096)) {
            return recovered(reopened);
        }
    }

    @Test
    void recordLargerThanAnObject_refused() {
        try (ObjectStorageWal wal = ObjectStorageWal.open(new MemoryObjectStorage(), PREFIX, 128)) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> wal.append(ByteBuffer.allocate(200)).get(10, TimeUnit.SECONDS));
            assertInstanceOf(IllegalArgumentException.class, e.getCause());
            assertEquals(Set.of(), Set.copyOf(recovered(wal).keySet()));
        }
    }
}
