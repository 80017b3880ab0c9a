package io.aloft.broker.log.cleaner;

import static io.aloft.broker.log.LogFixture.T0;
import static io.aloft.broker.log.LogFixture.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.log.LogFixture;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.log.TimestampOffset;
import io.aloft.stream.metadata.ReplaceStreamRangeRequest;
import io.aloft.stream.metadata.StreamMetadata;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cleanings of a real partition log (WAL file, file:// objects, in-memory metadata): what readers
 * see afterwards, offsets and gaps, several passes, tombstones, producers, restarts and a crash
 * between the metadata commit and the checkpoint.
 */
class LogCleanerTest {
    /** Compacted, and nothing is held back as the active segment once a second has passed. */
    private static final Map<String, String> COMPACT = Map.of("cleanup.policy", "compact", "segment.ms", "1",
            "min.cleanable.dirty.ratio", "0.01", "delete.retention.ms", "60000");

    @TempDir
    Path dir;

    private LogFixture fx;
    private final List<PartitionLog> logs = new ArrayList<>();
    private final ScheduledExecutorService unused = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void tearDown() throws Exception {
        unused.shutdownNow();
        if (fx != null) {
            fx.close();
        }
    }

    private PartitionLog open(Map<String, String> config) throws Exception {
        if (fx == null) {
            fx = new LogFixture(dir);
        }
        PartitionLog log = fx.open(config);
        logs.clear();
        logs.add(log);
        return log;
    }

    private LogCleaner cleaner(long dedupeBytes) {
        CleanerConfig config = CleanerConfig.fromProperties(Map.of(CleanerConfig.DEDUPE_BUFFER_SIZE_CONFIG,
                Long.toString(dedupeBytes)));
        return new LogCleaner(config, () -> List.copyOf(logs), () -> true, fx.clock::get, unused);
    }

    private static SimpleRecord rec(String key, String value, long ts) {
        return new SimpleRecord(ts, key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    /** Appends one batch per call of {@code perBatch} records: key k(i % keys), value "r" + i. */
    private void produce(PartitionLog log, int from, int count, int perBatch, int keys) throws Exception {
        produce(log, "k", from, count, perBatch, keys);
    }

    /** As above with keys {@code prefix + (i % keys)}; record timestamps are the clock's. */
    private void produce(PartitionLog log, String prefix, int from, int count, int perBatch, int keys)
            throws Exception {
        for (int i = from; i < from + count; i += perBatch) {
            SimpleRecord[] batch = new SimpleRecord[Math.min(perBatch, from + count - i)];
            for (int j = 0; j < batch.length; j++) {
                int n = i + j;
                batch[j] = rec(prefix + (n % keys), "r" + n, fx.clock.get() + n);
            }
            get(log.append(MemoryRecords.withRecords(Compression.NONE, batch)));
        }
    }

    /** Uploads what the log cache holds and lets time pass, so everything is cleanable. */
    private void settle() throws Exception {
        get(fx.store.flush());
        fx.clock.addAndGet(100_000);
    }

    /** Every record from the log start, checking that the batches tile the offsets exactly. */
    private static List<Record> readAll(PartitionLog log) throws Exception {
        List<Record> out = new ArrayList<>();
        long next = log.logStartOffset();
        while (next < log.highWatermark()) {
            MemoryRecords read = get(log.read(next, 64 * 1024, true)).records();
            assertTrue(read.sizeInBytes() > 0, "data at " + next);
            for (RecordBatch b : read.batches()) {
                if (b.nextOffset() <= next) {
                    continue;
                }
                assertTrue(b.baseOffset() <= next, "batch at " + b.baseOffset() + " leaves a hole at " + next);
                b.ensureValid();
                for (Record r : b) {
                    if (r.offset() >= next) {
                        out.add(r);
                    }
                }
                next = b.nextOffset();
            }
        }
        return out;
    }

    private static Map<String, String> latest(List<Record> records) {
        Map<String, String> m = new LinkedHashMap<>();
        for (Record r : records) {
            String key = StandardCharsets.UTF_8.decode(r.key()).toString();
            m.put(key, r.hasValue() ? StandardCharsets.UTF_8.decode(r.value()).toString() : null);
        }
        return m;
    }

    private static String key(Record r) {
        return StandardCharsets.UTF_8.decode(r.key()).toString();
    }

    @Test
    void clean_keepsTheLatestRecordOfEachKeyAtItsOffset() throws Exception {
        PartitionLog log = open(COMPACT);
        produce(log, 0, 100, 10, 10);
        Map<String, String> before = latest(readAll(log));
        settle();

        List<RangeCleaner.Result> done = cleaner(1 << 20).cleanNow();

        assertEquals(1, done.size());
        assertEquals(100, done.get(0).end());
        List<Record> after = readAll(log);
        assertEquals(10, after.size(), "one record per key");
        assertEquals(before, latest(after));
        for (Record r : after) {
            assertEquals(90 + Integer.parseInt(key(r).substring(1)), r.offset(), "each record at its original offset");
        }
        assertEquals(0, log.logStartOffset());
        assertEquals(100, log.highWatermark());
        assertTrue(cleaner(1 << 20).cleanNow().isEmpty(), "nothing left to clean");
    }

    @Test
    void clean_again_afterMoreUpdates_keepsOnlyTheNewest() throws Exception {
        PartitionLog log = open(COMPACT);
        produce(log, 0, 100, 10, 10);
        settle();
        cleaner(1 << 20).cleanNow();
        long compactedSize = log.sizeInBytes();
        produce(log, 100, 50, 10, 5);
        settle();

        cleaner(1 << 20).cleanNow();

        Map<String, String> expected = new HashMap<>();
        for (int k = 0; k < 10; k++) {
            expected.put("k" + k, k < 5 ? "r" + (145 + k) : "r" + (90 + k));
        }
        List<Record> after = readAll(log);
        assertEquals(10, after.size());
        assertEquals(expected, latest(after));
        assertTrue(log.sizeInBytes() < compactedSize * 3, "the index follows the compacted data: "
                + log.sizeInBytes() + " vs " + compactedSize);
    }

    @Test
    void clean_moreKeysThanTheMapHolds_takesSeveralPassesAndLosesNothing() throws Exception {
        PartitionLog log = open(COMPACT);
        produce(log, 0, 2_000, 50, 600);
        Map<String, String> expected = latest(readAll(log));
        settle();
        // 4 KiB: 170 slots, 153 keys per pass.
        LogCleaner cleaner = cleaner(4096);

        List<RangeCleaner.Result> done = cleaner.cleanNow();

        assertTrue(done.size() > 3, "passes: " + done.size());
        assertFalse(done.get(0).reachedCleanableEnd());
        assertTrue(done.get(done.size() - 1).reachedCleanableEnd());
        List<Record> after = readAll(log);
        assertEquals(expected, latest(after));
        assertEquals(600, after.size());
    }

    @Test
    void tombstone_readableUntilItsHorizon_thenGone() throws Exception {
        PartitionLog log = open(COMPACT);
        produce(log, 0, 20, 10, 10);
        get(log.append(MemoryRecords.withRecords(Compression.NONE, rec("k3", null, fx.clock.get()))));
        settle();
        cleaner(1 << 20).cleanNow();
        Map<String, String> first = latest(readAll(log));
        assertTrue(first.containsKey("k3") && first.get("k3") == null, "the tombstone is still there: " + first);
        assertEquals(10, first.size());

        fx.clock.addAndGet(60_000);
        produce(log, "x", 100, 10, 10, 10);
        settle();
        cleaner(1 << 20).cleanNow();

        Map<String, String> second = latest(readAll(log));
        assertFalse(second.containsKey("k3"), "past delete.retention.ms the tombstone went: " + second);
        assertEquals(19, second.size());
    }

    @Test
    void producersLastBatch_keptEmpty_soItsSequenceSurvives() throws Exception {
        PartitionLog log = open(COMPACT);
        get(log.append(MemoryRecords.withIdempotentRecords(Compression.NONE, 42L, (short) 0, 0,
                rec("a", "1", T0), rec("b", "2", T0))));
        get(log.append(MemoryRecords.withRecords(Compression.NONE, rec("a", "3", T0), rec("b", "4", T0))));
        settle();

        cleaner(1 << 20).cleanNow();

        MemoryRecords all = get(log.read(0, 1 << 20, true)).records();
        RecordBatch first = all.batches().iterator().next();
        assertEquals(42L, first.producerId());
        assertEquals(0, first.countOrNull());
        assertEquals(1, first.lastOffset());
        // A retry of that batch is still recognised as a duplicate.
        assertEquals(0, get(log.append(MemoryRecords.withIdempotentRecords(Compression.NONE, 42L, (short) 0, 0,
                rec("a", "1", T0), rec("b", "2", T0)))).baseOffset());
        assertEquals(List.of("3", "4"), readAll(log).stream()
                .map(r -> StandardCharsets.UTF_8.decode(r.value()).toString()).toList());
    }

    @Test
    void reopened_afterCompaction_readsTheCompactedData() throws Exception {
        PartitionLog log = open(COMPACT);
        produce(log, 0, 200, 10, 10);
        long before = log.sizeInBytes();
        settle();
        cleaner(1 << 20).cleanNow();
        long after = log.sizeInBytes();
        assertTrue(after < before / 5, before + " -> " + after);

        PartitionLog reopened = open(COMPACT);

        assertEquals(200, reopened.highWatermark());
        assertEquals(after, reopened.sizeInBytes());
        assertEquals(10, readAll(reopened).size());
        assertTrue(cleaner(1 << 20).cleanNow().isEmpty(), "the cleaned-up-to offset survived the restart");
    }

    @Test
    void offsetForTimestamp_overCompactedData_findsTheNextRecordLeft() throws Exception {
        PartitionLog log = open(COMPACT);
        produce(log, 0, 100, 10, 10);
        settle();
        cleaner(1 << 20).cleanNow();

        Optional<TimestampOffset> found = get(log.offsetForTimestamp(T0 + 10));

        assertEquals(90, found.orElseThrow().offset(), "the records from 10 to 89 are gone");
        assertEquals(T0 + 90, found.get().timestamp());
        assertEquals(Optional.empty(), get(log.offsetForTimestamp(T0 + 100)));
        assertEquals(99, get(log.maxTimestamp()).orElseThrow().offset());
    }

    @Test
    void compactOnly_neitherRetentionNorDeleteRecords() throws Exception {
        Map<String, String> config = new HashMap<>(COMPACT);
        config.put("retention.ms", "1");
        PartitionLog log = open(config);
        produce(log, 0, 20, 10, 10);
        fx.clock.addAndGet(10_000);

        assertEquals(0, get(log.applyRetention(fx.clock.get())));
        LogFixture.assertFails(Errors.POLICY_VIOLATION, log.deleteRecordsBefore(10));
    }

    @Test
    void compactDelete_deleteRecordsAndRetentionOverCompactedData() throws Exception {
        Map<String, String> config = new HashMap<>(COMPACT);
        config.put("cleanup.policy", "compact,delete");
        PartitionLog log = open(config);
        produce(log, 0, 100, 10, 10);
        settle();
        cleaner(1 << 20).cleanNow();

        assertEquals(50, get(log.deleteRecordsBefore(50)));

        assertEquals(50, log.logStartOffset());
        List<Record> left = readAll(log);
        assertEquals(10, left.size(), "the records at 90..99 are all above the new start");
        assertEquals(100, log.highWatermark());
    }

    @Test
    void crashAfterTheMetadataCommit_reopenedLogIndexesTheCompactedData() throws Exception {
        AtomicBoolean loseTheReply = new AtomicBoolean(true);
        fx = new LogFixture(dir);
        fx.stopStore();
        // The commit applies, then its reply is lost: as if the broker died right after it.
        fx.metadataView = real -> losingReplacementReplies(real, loseTheReply);
        fx.startStore();
        PartitionLog log = open(COMPACT);
        produce(log, 0, 200, 10, 10);
        settle();

        List<RangeCleaner.Result> done = cleaner(1 << 20).cleanNow();

        assertTrue(done.isEmpty(), "the cleaning saw its commit fail");
        assertEquals(10, readAll(log).size(), "yet the compacted data is in force, and reads follow metadata");
        // Crash: the store goes away without the log writing its last checkpoint.
        fx.crashed(log);
        fx.stopStore();
        loseTheReply.set(false);
        fx.startStore();

        PartitionLog reopened = open(COMPACT);

        assertEquals(10, readAll(reopened).size());
        assertEquals(200, reopened.highWatermark());
        assertTrue(reopened.sizeInBytes() < 2_000, "the index was rebuilt from the compacted data: "
                + reopened.sizeInBytes());
        // Cleaning again (the cleaned-up-to offset was not recorded) changes nothing.
        cleaner(1 << 20).cleanNow();
        assertEquals(latest(readAll(reopened)), latest(readAll(open(COMPACT))));
    }

    /** Metadata whose range replacements apply but answer with a failure while {@code lose} is set. */
    static StreamMetadata losingReplacementReplies(StreamMetadata real, AtomicBoolean lose) {
        return (StreamMetadata) Proxy.newProxyInstance(StreamMetadata.class.getClassLoader(),
                new Class<?>[] {StreamMetadata.class}, (proxy, method, args) -> {
                    Object result;
                    try {
                        result = method.invoke(real, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (lose.get() && args != null && args.length == 1
                            && args[0] instanceof ReplaceStreamRangeRequest) {
                        return ((CompletableFuture<?>) result).thenCompose(v -> CompletableFuture.failedFuture(
                                new IllegalStateException("reply lost")));
                    }
                    return result;
                });
    }

    @Test
    void cleanNow_whileNotAllowed_cleansNothing() throws Exception {
        PartitionLog log = open(COMPACT);
        produce(log, 0, 20, 10, 10);
        settle();
        LogCleaner notYet = new LogCleaner(CleanerConfig.defaults(), () -> List.of(log), () -> false,
                fx.clock::get, unused);

        assertTrue(notYet.cleanNow().isEmpty());
        assertEquals(20, readAll(log).size());
    }
}
