package io.aloft.stream.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.FetchResult;
import io.aloft.stream.Stream;
import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.metadata.MemoryStreamMetadata;
import io.aloft.stream.metadata.StreamMetadata;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorages;
import io.aloft.wal.BlockDeviceWal;
import io.aloft.wal.WalConfig;
import io.aloft.wal.WriteAheadLog;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random appends, trims, flushes, reads, clean restarts and simulated crashes on many streams,
 * checked against an in-memory model. The seed is in every failure message; rerun one with
 * {@code -Daloft.random.seed=<seed>} ({@code -Daloft.random.ops} changes the operation count).
 *
 * <p>A clean restart closes the store (which uploads everything) and the WAL, and reopens both on
 * the same WAL file, objects and metadata, with every stream at epoch + 1. A crash abandons the
 * store after a flush and a few more appends (below the upload threshold, and with a clock that
 * never advances, so the abandoned store never uploads again) and closes its WAL under it; the
 * next store recovers those appends from the WAL. A trim is durable in metadata only as far as
 * the data is committed, so after a crash a stream may start below the model's start offset (never
 * above it): the model follows.
 */
class StreamStoreRandomizedTest {
    private static final int OPS = Integer.getInteger("aloft.random.ops", 3000);
    private static final long TIME_BUDGET_NANOS = TimeUnit.SECONDS.toNanos(12);

    @TempDir
    Path dir;

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @org.junit.jupiter.api.BeforeEach
    void setUpMetadata() throws Exception {
        metadata = newMetadata();
    }

    /** The metadata the test runs on; core's controller tests override it with the Ratis controller. */
    StreamMetadata newMetadata() throws Exception {
        return new MemoryStreamMetadata();
    }

    /** Releases what {@link #newMetadata()} started, after every store is closed. */
    void closeMetadata() throws Exception {
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        closeMetadata();
    }

    /** One stream of the model: batches by base offset, and the start and next offsets. */
    private static final class ModelStream {
        final TreeMap<Long, StreamRecordBatch> batches = new TreeMap<>();
        long start;
        long next;
        long epoch = 1;
        Stream handle;
    }

    private long seed;
    private Random random;
    private StreamStoreConfig config;
    private ObjectStorage storage;
    private StreamMetadata metadata;
    private WriteAheadLog wal;
    private StreamStore store;
    private final Map<Long, ModelStream> model = new TreeMap<>();
    private int cleanRestarts;
    private int crashes;

    @Test
    void randomOperations_matchModel() throws Exception {
        seed = Long.getLong("aloft.random.seed", System.nanoTime());
        random = new Random(seed);
        config = StreamStoreConfig.builder(1).uploadThresholdBytes(16 * 1024 + random.nextInt(112 * 1024))
                .logCacheSizeBytes((4 << 20) + random.nextInt(4 << 20)).uploadIntervalMs(60_000)
                .splitThresholdBytes(8 * 1024 + random.nextInt(64 * 1024)).objectBlockSizeBytes(1024 << random.nextInt(5))
                .blockCacheSizeBytes(1 << 20).build();
        storage = ObjectStorages.open(dir.resolve("objects").toUri().toString());
        toClose.add(storage);
        openStoreAndStreams();
        int streams = 8 + random.nextInt(9);
        for (int i = 0; i < streams; i++) {
            long id = store.createStream().get();
            ModelStream m = new ModelStream();
            m.handle = store.openStream(id, m.epoch).get();
            model.put(id, m);
        }
        long deadline = System.nanoTime() + TIME_BUDGET_NANOS;
        int op = 0;
        for (; op < OPS && System.nanoTime() < deadline; op++) {
            int dice = random.nextInt(100);
            ModelStream m = pick();
            if (dice < 65) {
                appendSome(m, 1 + random.nextInt(8), 3000);
            } else if (dice < 77) {
                trim(m);
            } else if (dice < 85) {
                store.flush().get(30, TimeUnit.SECONDS);
                assertEquals(0, store.pendingUploadBytes(), where("after flush"));
            } else if (dice < 95) {
                checkStream(m, "read at op " + op);
            } else if (dice < 98) {
                cleanRestart();
            } else {
                crashAndRecover();
            }
        }
        for (ModelStream m : model.values()) {
            checkStream(m, "end of run after " + op + " ops");
        }
        cleanRestart();
        for (ModelStream m : model.values()) {
            checkStream(m, "after the final restart");
        }
        assertTrue(op >= 200, where("made progress: " + op + " ops"));
        System.out.println("StreamStoreRandomizedTest: seed " + seed + ", " + op + " ops, " + cleanRestarts
                + " restarts, " + crashes + " crashes");
    }

    private ModelStream pick() {
        List<ModelStream> all = new ArrayList<>(model.values());
        return all.get(random.nextInt(all.size()));
    }

    private String where(String what) {
        return what + " (seed " + seed + "; rerun with -Daloft.random.seed=" + seed + ")";
    }

    private void appendSome(ModelStream m, int n, int maxSize) throws Exception {
        List<CompletableFuture<Long>> futures = new ArrayList<>();
        List<StreamRecordBatch> expected = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] bytes = new byte[1 + random.nextInt(maxSize)];
            random.nextBytes(bytes);
            int count = 1 + random.nextInt(5);
            expected.add(new StreamRecordBatch(m.handle.streamId(), m.epoch, m.next, count, ByteBuffer.wrap(bytes)));
            futures.add(m.handle.append(ByteBuffer.wrap(bytes), count));
            m.next += count;
        }
        for (int i = 0; i < n; i++) {
            StreamRecordBatch b = expected.get(i);
            assertEquals(b.baseOffset(), futures.get(i).get(10, TimeUnit.SECONDS), where("append base of " + m.handle));
            m.batches.put(b.baseOffset(), b);
        }
        assertEquals(m.next, m.handle.confirmOffset(), where("confirm offset of " + m.handle));
    }

    private void trim(ModelStream m) throws Exception {
        long target = m.start + (long) (random.nextDouble() * (m.next - m.start + 1));
        target = Math.min(target, m.next);
        m.handle.trim(target).get(10, TimeUnit.SECONDS);
        m.start = Math.max(m.start, target);
        assertEquals(m.start, m.handle.startOffset(), where("start offset of " + m.handle));
    }

    /** Reads the stream from its start offset to its end and compares every batch with the model. */
    private void checkStream(ModelStream m, String when) throws Exception {
        Stream s = m.handle;
        assertEquals(m.start, s.startOffset(), where("start of " + s + ", " + when));
        assertEquals(m.next, s.confirmOffset(), where("end of " + s + ", " + when));
        List<StreamRecordBatch> expected = new ArrayList<>();
        Long first = m.batches.floorKey(m.start);
        for (StreamRecordBatch b : m.batches.tailMap(first == null ? m.start : first, true).values()) {
            if (b.lastOffsetExclusive() > m.start) {
                expected.add(b);
            }
        }
        int i = 0;
        long next = m.start;
        while (next < s.confirmOffset()) {
            FetchResult r = s.fetch(next, Long.MAX_VALUE, 1 + random.nextInt(64 * 1024)).get(10, TimeUnit.SECONDS);
            assertFalse(r.batches().isEmpty(), where("no data at " + next + " of " + s + ", " + when));
            for (StreamRecordBatch b : r.batches()) {
                assertTrue(i < expected.size(), where("extra batch " + b + " in " + s + ", " + when));
                StreamRecordBatch e = expected.get(i++);
                assertEquals(e.baseOffset(), b.baseOffset(), where("batch " + i + " of " + s + ", " + when));
                assertEquals(e.count(), b.count(), where("count at " + e.baseOffset() + " of " + s + ", " + when));
                assertEquals(e.payloadView(), b.payloadView(),
                        where("payload at " + e.baseOffset() + " of " + s + ", " + when));
                next = b.lastOffsetExclusive();
            }
        }
        assertEquals(expected.size(), i, where("batches read from " + s + ", " + when));
    }

    private void openStoreAndStreams() throws Exception {
        wal = BlockDeviceWal.open(WalConfig.builder().path(dir.resolve("r.wal")).capacityBytes(32 << 20).build());
        // A clock that never moves: nothing is sealed by age, so an abandoned store stays still.
        store = StreamStore.open(config, wal, storage, metadata, () -> 0L);
        for (Map.Entry<Long, ModelStream> e : model.entrySet()) {
            ModelStream m = e.getValue();
            m.epoch++;
            m.handle = store.openStream(e.getKey(), m.epoch).get();
        }
    }

    private void cleanRestart() throws Exception {
        store.close();
        wal.close();
        openStoreAndStreams();
        cleanRestarts++;
        for (ModelStream m : model.values()) {
            assertEquals(m.start, m.handle.startOffset(), where("start after a clean restart of " + m.handle));
            assertEquals(m.next, m.handle.confirmOffset(), where("end after a clean restart of " + m.handle));
        }
    }

    private void crashAndRecover() throws Exception {
        store.flush().get(30, TimeUnit.SECONDS);
        // Acknowledged, only in the WAL: well below the upload threshold, so nothing is sealed.
        long budget = config.uploadThresholdBytes() / 2;
        while (budget > 4096) {
            ModelStream m = pick();
            int before = m.batches.size();
            appendSome(m, 1, 1000);
            budget -= m.batches.lastEntry().getValue().size() + 200L * (m.batches.size() - before);
        }
        wal.close(); // the process dies: the abandoned store never writes or uploads again
        openStoreAndStreams();
        crashes++;
        for (ModelStream m : model.values()) {
            long start = m.handle.startOffset();
            assertTrue(start <= m.start, where("a stream never starts past its acknowledged trim: " + m.handle
                    + ", model start " + m.start));
            m.start = start; // a trim of data not yet committed was not durable
            assertEquals(m.next, m.handle.confirmOffset(), where("end after recovery of " + m.handle));
        }
    }
}
