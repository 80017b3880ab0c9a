package io.aloft.wal;

import static io.aloft.wal.WalTestSupport.recoverAll;
import static io.aloft.wal.WalTestSupport.record;
import static io.aloft.wal.WalTestSupport.smallConfig;
import static io.aloft.wal.WalTestSupport.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BlockDeviceWalTest {
    @TempDir
    Path dir;

    @Test
    void append_thenReopen_recoversEveryRecordInOrder() throws Exception {
        WalConfig config = smallConfig(dir).build();
        List<Long> offsets = new ArrayList<>();
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            assertTrue(wal.directIo(), "ext4/tmpfs on this machine accept Direct IO");
            for (int i = 0; i < 100; i++) {
                offsets.add(wal.append(text("record-" + i)).get(5, TimeUnit.SECONDS));
            }
        }
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            List<WalRecord> recovered = recoverAll(wal);
            assertEquals(100, recovered.size());
            for (int i = 0; i < 100; i++) {
                assertEquals(offsets.get(i), recovered.get(i).offset());
                assertEquals("record-" + i, text(recovered.get(i).body()));
            }
        }
    }

    @Test
    void append_doesNotMoveCallerBufferPosition() throws Exception {
        try (BlockDeviceWal wal = BlockDeviceWal.open(smallConfig(dir).build())) {
            ByteBuffer buf = text("hello");
            wal.append(buf).get(5, TimeUnit.SECONDS);
            assertEquals(0, buf.position());
            assertEquals(5, buf.remaining());
        }
    }

    @Test
    void append_emptyRecord_isRecovered() throws Exception {
        WalConfig config = smallConfig(dir).build();
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            wal.append(ByteBuffer.allocate(0)).get(5, TimeUnit.SECONDS);
        }
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            List<WalRecord> recovered = recoverAll(wal);
            assertEquals(1, recovered.size());
            assertEquals(0, recovered.get(0).body().remaining());
        }
    }

    @Test
    void append_manyConcurrentAppenders_allDurableAndDistinct() throws Exception {
        WalConfig config = smallConfig(dir).capacityBytes(16 << 20).maxInflightWrites(2).build();
        int threads = 16;
        int perThread = 200;
        Map<Long, Long> idByOffset = new HashMap<>();
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            List<Thread> appenders = new ArrayList<>();
            List<List<CompletableFuture<Long>>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                List<CompletableFuture<Long>> mine = new ArrayList<>();
                futures.add(mine);
                int thread = t;
                appenders.add(new Thread(() -> {
                    for (int i = 0; i < perThread; i++) {
                        long id = thread * 1_000_000L + i;
                        mine.add(wal.append(record(id, 100 + (i * 37) % 3000)));
                    }
                }));
            }
            appenders.forEach(Thread::start);
            for (Thread t : appenders) {
                t.join();
            }
            for (int t = 0; t < threads; t++) {
                long previous = -1;
                for (int i = 0; i < perThread; i++) {
                    long offset = futures.get(t).get(i).get(10, TimeUnit.SECONDS);
                    assertTrue(offset > previous, "one appender's records keep their order");
                    previous = offset;
                    idByOffset.put(offset, t * 1_000_000L + i);
                }
            }
            assertEquals(threads * perThread, idByOffset.size(), "offsets are distinct");
            assertTrue(wal.stats().writes() < threads * perThread, "group commit merged appends into fewer writes");
        }
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            List<WalRecord> recovered = recoverAll(wal);
            assertEquals(threads * perThread, recovered.size());
            for (WalRecord r : recovered) {
                long id = idByOffset.get(r.offset());
                int i = (int) (id % 1_000_000);
                assertEquals(record(id, 100 + (i * 37) % 3000), r.body());
            }
        }
    }

    @Test
    void append_wrapsAroundRingWhenTrimmed() throws Exception {
        WalConfig config = smallConfig(dir).capacityBytes(128 * 1024).maxBatchBytes(16 * 1024).build();
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            long ring = wal.capacity();
            long last = 0;
            for (int i = 0; i < 200; i++) {
                // Odd sizes so records and padding land at every kind of distance from the ring end.
                last = wal.append(record(i, 1000 + (i * 131) % 5000)).get(5, TimeUnit.SECONDS);
                if (i % 5 == 4) {
                    wal.trim(last).get(5, TimeUnit.SECONDS);
                }
            }
            assertTrue(wal.nextOffset() > 4 * ring, "wrote several laps: " + wal.nextOffset());
            assertEquals(last, wal.trimOffset());
        }
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            List<WalRecord> recovered = recoverAll(wal);
            assertEquals(1, recovered.size(), "only the record at the trim point survives");
            assertEquals(record(199, 1000 + (199 * 131) % 5000), recovered.get(0).body());
        }
    }

    @Test
    void append_whenFull_waitsForTrimThenSucceeds() throws Exception {
        WalConfig config = smallConfig(dir).capacityBytes(128 * 1024).maxBatchBytes(16 * 1024)
                .appendTimeoutMs(10_000).build();
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            long first = wal.append(record(0, 8000)).get(5, TimeUnit.SECONDS);
            long second = -1;
            int n = 1;
            CompletableFuture<Long> blocked;
            while (true) {
                blocked = wal.append(record(n++, 8000));
                try {
                    long offset = blocked.get(500, TimeUnit.MILLISECONDS);
                    second = second < 0 ? offset : second;
                } catch (java.util.concurrent.TimeoutException e) {
                    break; // the ring is full: this append waits
                }
            }
            assertTrue(wal.stats().fullWaits() > 0);
            assertTrue(wal.usedBytes() <= wal.capacity());
            assertFalse(blocked.isDone());
            wal.trim(second).get(5, TimeUnit.SECONDS); // the first record's write is released
            long offset = blocked.get(5, TimeUnit.SECONDS);
            assertTrue(offset > first);
        }
    }

    @Test
    void append_whenFullPastTimeout_failsWithWalFullException() throws Exception {
        WalConfig config = smallConfig(dir).capacityBytes(128 * 1024).maxBatchBytes(16 * 1024)
                .appendTimeoutMs(200).build();
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            List<CompletableFuture<Long>> futures = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                futures.add(wal.append(record(i, 8000)));
            }
            int full = 0;
            int ok = 0;
            for (CompletableFuture<Long> f : futures) {
                try {
                    f.get(5, TimeUnit.SECONDS);
                    ok++;
                } catch (ExecutionException e) {
                    WalFullException cause = assertInstanceOf(WalFullException.class, e.getCause());
                    assertTrue(cause.getMessage().contains(WalConfig.APPEND_TIMEOUT_CONFIG), cause.getMessage());
                    full++;
                }
            }
            assertTrue(ok > 0 && full > 0, "ok=" + ok + " full=" + full);
            assertEquals(full, wal.stats().fullTimeouts());
        }
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            assertTrue(recoverAll(wal).size() < 30, "timed-out records were never written");
        }
    }

    @Test
    void append_recordLargerThanRingCanHold_failsClearly() throws Exception {
        try (BlockDeviceWal wal = BlockDeviceWal.open(smallConfig(dir).build())) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> wal.append(ByteBuffer.allocate(800 * 1024)).get(5, TimeUnit.SECONDS));
            assertInstanceOf(IllegalArgumentException.class, e.getCause());
            assertTrue(e.getCause().getMessage().contains(WalConfig.CAPACITY_CONFIG));
        }
    }

    @Test
    void append_recordLargerThanMaxBatch_isWrittenAlone() throws Exception {
        WalConfig config = smallConfig(dir).maxBatchBytes(8192).build();
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            wal.append(record(1, 100_000)).get(5, TimeUnit.SECONDS);
            wal.append(record(2, 10)).get(5, TimeUnit.SECONDS);
        }
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            List<WalRecord> recovered = recoverAll(wal);
            assertEquals(2, recovered.size());
            assertEquals(record(1, 100_000), recovered.get(0).body());
            assertEquals(record(2, 10), recovered.get(1).body());
        }
    }

    @Test
    void trim_dropsRecordsBelowOffsetFromRecovery() throws Exception {
        WalConfig config = smallConfig(dir).build();
        List<Long> offsets = new ArrayList<>();
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            for (int i = 0; i < 10; i++) {
                offsets.add(wal.append(text("r" + i)).get(5, TimeUnit.SECONDS));
            }
            long usedBefore = wal.usedBytes();
            wal.trim(offsets.get(6)).get(5, TimeUnit.SECONDS);
            assertEquals(offsets.get(6), wal.trimOffset());
            assertTrue(wal.usedBytes() <= usedBefore);
        }
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            List<WalRecord> recovered = recoverAll(wal);
            assertEquals(List.of("r6", "r7", "r8", "r9"), recovered.stream().map(r -> text(r.body())).toList());
        }
    }

    @Test
    void trim_pastLastRecord_releasesEveryWrite() throws Exception {
        WalConfig config = smallConfig(dir).build();
        long last = 0;
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            for (int i = 0; i < 10; i++) {
                last = wal.append(text("r" + i)).get(5, TimeUnit.SECONDS);
            }
            wal.trim(last + 1).get(5, TimeUnit.SECONDS);
            assertEquals(0, wal.usedBytes(), "the last write held only records below the trim point");
            assertEquals(last + 1, wal.trimOffset());
            wal.append(text("after")).get(5, TimeUnit.SECONDS);
        }
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            assertEquals(List.of("after"), recoverAll(wal).stream().map(r -> text(r.body())).toList());
        }
    }

    @Test
    void trim_beyondEnd_isRejected() throws Exception {
        try (BlockDeviceWal wal = BlockDeviceWal.open(smallConfig(dir).build())) {
            wal.append(text("x")).get(5, TimeUnit.SECONDS);
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> wal.trim(wal.nextOffset() + 1_000_000).get(5, TimeUnit.SECONDS));
            assertInstanceOf(IllegalArgumentException.class, e.getCause());
        }
    }

    @Test
    void trim_freesSpaceForNewAppends() throws Exception {
        WalConfig config = smallConfig(dir).capacityBytes(128 * 1024).maxBatchBytes(16 * 1024).appendTimeoutMs(0)
                .build();
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            for (int round = 0; round < 20; round++) {
                long last = 0;
                for (int i = 0; i < 10; i++) {
                    last = wal.append(record(i, 4000)).get(5, TimeUnit.SECONDS);
                }
                wal.trim(last + 1).get(5, TimeUnit.SECONDS);
            }
            assertTrue(wal.nextOffset() > 4 * wal.capacity());
            assertEquals(0, wal.stats().fullTimeouts());
        }
    }

    @Test
    void reset_discardsEverything() throws Exception {
        WalConfig config = smallConfig(dir).build();
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            for (int i = 0; i < 10; i++) {
                wal.append(text("r" + i));
            }
            wal.reset().get(5, TimeUnit.SECONDS);
            wal.append(text("after")).get(5, TimeUnit.SECONDS);
        }
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            assertEquals(List.of("after"), recoverAll(wal).stream().map(r -> text(r.body())).toList());
        }
    }

    @Test
    void close_completesAcceptedAppendsAndRejectsNewOnes() throws Exception {
        BlockDeviceWal wal = BlockDeviceWal.open(smallConfig(dir).build());
        List<CompletableFuture<Long>> futures = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            futures.add(wal.append(record(i, 1000)));
        }
        wal.close();
        for (CompletableFuture<Long> f : futures) {
            assertTrue(f.isDone() && !f.isCompletedExceptionally());
        }
        ExecutionException e = assertThrows(ExecutionException.class, () -> wal.append(text("late")).get());
        assertInstanceOf(WalClosedException.class, e.getCause());
        wal.close(); // idempotent
    }

    @Test
    void open_bufferedMode_roundTrips() throws Exception {
        WalConfig config = smallConfig(dir).directIo(false).build();
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            assertFalse(wal.directIo());
            wal.append(text("buffered")).get(5, TimeUnit.SECONDS);
        }
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            assertEquals("buffered", text(recoverAll(wal).get(0).body()));
        }
    }

    @Test
    void open_fileSystemRefusesDirectIo_fallsBackToBufferedWrites() throws Exception {
        // Every file system on this machine (ext4, and tmpfs on this kernel) accepts O_DIRECT, so the
        // refusal is stood in for by an opener that fails like the kernel does (EINVAL).
        WalConfig config = smallConfig(dir).build();
        try (BlockDeviceWal wal = BlockDeviceWal.open(config, (path, options) -> {
            for (var o : options) {
                if (o == com.sun.nio.file.ExtendedOpenOption.DIRECT) {
                    throw new java.nio.file.FileSystemException(path.toString(), null, "Invalid argument");
                }
            }
            return java.nio.channels.FileChannel.open(path, options);
        })) {
            assertFalse(wal.directIo());
            wal.append(text("fallback")).get(5, TimeUnit.SECONDS);
        }
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            assertTrue(wal.directIo());
            assertEquals("fallback", text(recoverAll(wal).get(0).body()));
        }
    }

    @Test
    void open_afterReopenManyTimes_keepsAppending() throws Exception {
        WalConfig config = smallConfig(dir).build();
        for (int i = 0; i < 10; i++) {
            try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
                assertEquals(i, recoverAll(wal).size());
                wal.append(text("r" + i)).get(5, TimeUnit.SECONDS);
            }
        }
    }
}
