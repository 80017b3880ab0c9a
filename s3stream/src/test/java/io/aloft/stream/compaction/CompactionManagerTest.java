package io.aloft.stream.compaction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.metadata.CommitStreamSetObjectRequest;
import io.aloft.stream.metadata.CreateStreamRequest;
import io.aloft.stream.metadata.DeleteStreamRequest;
import io.aloft.stream.metadata.MemoryStreamMetadata;
import io.aloft.stream.metadata.ObjectRef;
import io.aloft.stream.metadata.OpenStreamRequest;
import io.aloft.stream.metadata.PrepareObjectsRequest;
import io.aloft.stream.metadata.S3Object;
import io.aloft.stream.metadata.StreamObjectSpec;
import io.aloft.stream.metadata.TrimStreamRequest;
import io.aloft.stream.object.DataBlock;
import io.aloft.stream.object.DataBlockIndex;
import io.aloft.stream.object.ObjectKeys;
import io.aloft.stream.object.ObjectReader;
import io.aloft.stream.object.ObjectSummary;
import io.aloft.stream.object.ObjectUploader;
import io.aloft.stream.object.ObjectWriterConfig;
import io.aloft.stream.storage.ObjectInfo;
import io.aloft.stream.storage.ObjectNotFoundException;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorages;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompactionManagerTest {
    private static final int NODE = 1;
    private static final long EPOCH = 1;
    private static final long DELETE_DELAY = 1_000;
    private static final long PREPARE_TTL = 5_000;
    private static final long SPLIT = 64 * 1024;

    @TempDir
    Path dir;

    private ObjectStorage storage;
    private MemoryStreamMetadata metadata;
    private final AtomicLong clock = new AtomicLong(1_000);
    private final List<Long> openStreams = new ArrayList<>();
    private CompactionManager manager;

    @BeforeEach
    void setUp() {
        storage = ObjectStorages.open(dir.toUri().toString());
        metadata = new MemoryStreamMetadata();
        CompactionConfig config = CompactionConfig.builder(NODE)
                .smallObjectBytes(1 << 20)
                .maxMergeBytes(8 << 20)
                .splitThresholdBytes(SPLIT)
                .deleteDelayMs(DELETE_DELAY)
                .prepareTtlMs(PREPARE_TTL)
                .objectBlockSizeBytes(4096)
                .build();
        manager = new CompactionManager(config, storage, metadata, () -> List.copyOf(openStreams), clock::get);
    }

    @AfterEach
    void tearDown() {
        manager.close();
        storage.close();
    }

    @Test
    void runOnce_smallStreamSetObjects_mergedIntoOneAndInputsDeletedAfterDelay() throws Exception {
        long s0 = stream();
        long s1 = stream();
        Map<Long, List<StreamRecordBatch>> expected = new TreeMap<>();
        List<Long> inputs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Map<Long, List<StreamRecordBatch>> upload = new TreeMap<>();
            upload.put(s0, batches(s0, i * 10L, 2, 5, 100));
            upload.put(s1, batches(s1, i * 6L, 3, 2, 50));
            upload.forEach((s, b) -> expected.computeIfAbsent(s, k -> new ArrayList<>()).addAll(b));
            inputs.add(uploadStreamSet(upload));
        }
        long inputBytes = await(metadata.getStreamSetObjects(NODE)).stream().mapToLong(S3Object::size).sum();

        CompactionRound round = runOnce();

        assertEquals(inputs, round.compactedObjectIds());
        assertEquals(1, round.newObjectIds().size());
        List<S3Object> ssos = await(metadata.getStreamSetObjects(NODE));
        assertEquals(1, ssos.size());
        S3Object merged = ssos.get(0);
        CompactionStats stats = manager.stats();
        assertEquals(1, stats.rounds());
        assertEquals(1, stats.merges());
        assertEquals(4, stats.objectsMerged());
        assertEquals(1, stats.objectsWritten());
        assertEquals(inputBytes, stats.bytesRead());
        assertEquals(merged.size(), stats.bytesWritten());
        assertEquals(4, stats.seenObjects(), "the round listed the four inputs");
        assertEquals(inputBytes, stats.seenBytes());
        assertEquals(round.newObjectIds().get(0), merged.objectId());
        for (long s : List.of(s0, s1)) {
            assertBatchesEqual(expected.get(s), read(merged, s));
            List<ObjectRef> refs = await(metadata.getObjects(s, 0, -1, 10));
            assertEquals(List.of(merged.objectId()), refs.stream().map(ObjectRef::objectId).toList());
        }
        assertTrue(round.deletedObjectIds().isEmpty(), "deleted before the delay: " + round.deletedObjectIds());
        inputs.forEach(id -> assertTrue(exists(id)));

        clock.addAndGet(DELETE_DELAY);
        CompactionRound later = runOnce();

        assertEquals(Set.copyOf(inputs), Set.copyOf(later.deletedObjectIds()));
        inputs.forEach(id -> assertFalse(exists(id), "object " + id + " still stored"));
        assertEquals(2, stats.rounds());
        assertEquals(4, stats.objectsDeleted());
        assertEquals(1, stats.seenObjects(), "the second round listed the merged object only");
        assertEquals(merged.size(), stats.seenBytes());
        assertTrue(exists(merged.objectId()));
        assertTrue(await(metadata.getObjectsToDelete(clock.get(), 0)).isEmpty());
        assertBatchesEqual(expected.get(s0), read(merged, s0));
    }

    @Test
    void runOnce_bigStreamInMergedData_splitIntoStreamObject() throws Exception {
        long big = stream();
        long small = stream();
        Map<Long, List<StreamRecordBatch>> expected = new TreeMap<>();
        for (int i = 0; i < 3; i++) {
            Map<Long, List<StreamRecordBatch>> upload = new TreeMap<>();
            upload.put(big, batches(big, i * 10L, 10, 1, 3_000)); // 30 KB per object, 90 KB merged
            upload.put(small, batches(small, i, 1, 1, 10));
            upload.forEach((s, b) -> expected.computeIfAbsent(s, k -> new ArrayList<>()).addAll(b));
            uploadStreamSet(upload);
        }

        CompactionRound round = runOnce();

        assertEquals(3, round.compactedObjectIds().size());
        assertEquals(2, round.newObjectIds().size());
        List<ObjectRef> bigRefs = await(metadata.getObjects(big, 0, -1, 10));
        assertEquals(1, bigRefs.size());
        assertEquals(S3Object.Type.STREAM, bigRefs.get(0).type());
        assertEquals(30, bigRefs.get(0).range().endOffset());
        S3Object bigObject = await(metadata.getStreamObjects(big, 0, -1, 10)).get(0);
        assertBatchesEqual(expected.get(big), read(bigObject, big));
        List<S3Object> ssos = await(metadata.getStreamSetObjects(NODE));
        assertEquals(1, ssos.size());
        assertEquals(List.of(small), ssos.get(0).ranges().stream().map(r -> r.streamId()).toList());
        assertBatchesEqual(expected.get(small), read(ssos.get(0), small));
    }

    @Test
    void runOnce_trimmedAndDeletedData_droppedFromMergedObject() throws Exception {
        long trimmed = stream();
        long kept = stream();
        long deleted = stream();
        Map<Long, List<StreamRecordBatch>> expected = new TreeMap<>();
        for (int i = 0; i < 3; i++) {
            Map<Long, List<StreamRecordBatch>> upload = new TreeMap<>();
            upload.put(trimmed, batches(trimmed, i * 10L, 2, 5, 100));
            upload.put(kept, batches(kept, i * 10L, 2, 5, 100));
            upload.put(deleted, batches(deleted, i * 10L, 2, 5, 100));
            upload.forEach((s, b) -> expected.computeIfAbsent(s, k -> new ArrayList<>()).addAll(b));
            uploadStreamSet(upload);
        }
        await(metadata.trimStream(new TrimStreamRequest(trimmed, EPOCH, 17))); // inside the batch [15, 20)
        await(metadata.deleteStream(new DeleteStreamRequest(deleted, EPOCH)));

        CompactionRound round = runOnce();

        assertEquals(3, round.compactedObjectIds().size());
        S3Object merged = await(metadata.getStreamSetObjects(NODE)).get(0);
        assertEquals(List.of(trimmed, kept), merged.ranges().stream().map(r -> r.streamId()).toList());
        assertEquals(15, merged.ranges().get(0).startOffset(), "the batch holding the start is kept whole");
        List<StreamRecordBatch> live = expected.get(trimmed).stream().filter(b -> b.lastOffsetExclusive() > 17)
                .toList();
        assertBatchesEqual(live, read(merged, trimmed));
        assertBatchesEqual(expected.get(kept), read(merged, kept));
        assertTrue(read(merged, deleted).isEmpty());
    }

    @Test
    void runOnce_contiguousSmallStreamObjects_mergedIntoOne() throws Exception {
        long s = stream();
        openStreams.add(s);
        List<StreamRecordBatch> expected = new ArrayList<>();
        List<Long> sources = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            List<StreamRecordBatch> b = batches(s, i * 8L, 4, 2, 200);
            expected.addAll(b);
            sources.add(uploadStreamObject(b));
        }
        long other = stream(); // one stream object alone: nothing to merge
        openStreams.add(other);
        uploadStreamObject(batches(other, 0, 1, 1, 10));

        CompactionRound round = runOnce();

        assertEquals(sources, round.compactedObjectIds());
        List<S3Object> objects = await(metadata.getStreamObjects(s, 0, -1, 10));
        assertEquals(1, objects.size());
        assertEquals(round.newObjectIds(), List.of(objects.get(0).objectId()));
        assertEquals(0, objects.get(0).ranges().get(0).startOffset());
        assertEquals(24, objects.get(0).ranges().get(0).endOffset());
        assertBatchesEqual(expected, read(objects.get(0), s));
        assertEquals(1, await(metadata.getStreamObjects(other, 0, -1, 10)).size());

        clock.addAndGet(DELETE_DELAY);
        assertEquals(Set.copyOf(sources), Set.copyOf(runOnce().deletedObjectIds()));
        sources.forEach(id -> assertFalse(exists(id)));
    }

    @Test
    void runOnce_inputReleasedBeforeCommit_commitRejectedAndNothingLost() throws Exception {
        long s0 = stream();
        long s1 = stream();
        List<StreamRecordBatch> s0Old = batches(s0, 0, 2, 5, 100);
        long a = uploadStreamSet(Map.of(s0, s0Old));
        List<StreamRecordBatch> s0New = batches(s0, 10, 2, 5, 100);
        List<StreamRecordBatch> s1Data = batches(s1, 0, 2, 5, 100);
        long b = uploadStreamSet(new TreeMap<>(Map.of(s0, s0New, s1, s1Data)));
        // Between reading and committing, a trim releases object a: the merge no longer matches.
        manager.beforeCommit(() -> metadata.trimStream(new TrimStreamRequest(s0, EPOCH, 10)).join());

        CompactionRound round = runOnce();

        assertTrue(round.compactedObjectIds().isEmpty());
        assertEquals(1, round.abandonedObjectIds().size());
        long abandoned = round.abandonedObjectIds().get(0);
        manager.beforeCommit(() -> { });
        List<S3Object> ssos = await(metadata.getStreamSetObjects(NODE));
        assertEquals(List.of(b), ssos.stream().map(S3Object::objectId).toList());
        assertEquals(List.of(b), await(metadata.getObjects(s0, 10, -1, 10)).stream().map(ObjectRef::objectId).toList());
        assertEquals(List.of(b), await(metadata.getObjects(s1, 0, -1, 10)).stream().map(ObjectRef::objectId).toList());
        assertBatchesEqual(s0New, read(ssos.get(0), s0));
        assertBatchesEqual(s1Data, read(ssos.get(0), s1));

        // The released input goes after the delay; the abandoned output once its prepare expires.
        clock.addAndGet(DELETE_DELAY);
        assertEquals(List.of(a), runOnce().deletedObjectIds());
        assertTrue(exists(abandoned));
        clock.addAndGet(PREPARE_TTL + DELETE_DELAY);
        assertEquals(List.of(abandoned), runOnce().deletedObjectIds());
        assertFalse(exists(abandoned));
        assertTrue(exists(b));
        assertBatchesEqual(s1Data, read(ssos.get(0), s1));
    }

    @Test
    void runOnce_manyRoundsLater_deletesOnlyUnreferencedObjects() throws Exception {
        long s0 = stream();
        for (int i = 0; i < 3; i++) {
            uploadStreamSet(Map.of(s0, batches(s0, i * 4L, 2, 2, 100)));
        }
        long big = uploadStreamSet(Map.of(s0, batches(s0, 12, 200, 1, 8_000))); // 1.6 MB: not small
        for (int i = 0; i < 3; i++) {
            clock.addAndGet(DELETE_DELAY * 10);
            runOnce();
        }
        await(metadata.trimStream(new TrimStreamRequest(s0, EPOCH, 2)));
        clock.addAndGet(DELETE_DELAY * 10);
        runOnce();

        Set<Long> referenced = new HashSet<>();
        for (ObjectRef ref : await(metadata.getObjects(s0, 0, -1, 100))) {
            referenced.add(ref.objectId());
        }
        assertTrue(referenced.contains(big));
        assertEquals(2, referenced.size());
        Set<Long> stored = new HashSet<>();
        for (ObjectInfo info : await(storage.list(""))) {
            ObjectKeys.objectId(info.key()).ifPresent(stored::add);
        }
        assertEquals(referenced, stored);
        assertEquals(212, totalCount(s0, referenced));
    }

    @Test
    void runOnce_storageDeleteFails_metadataKeepsObjectsAndNextRoundRetries() throws Exception {
        AtomicLong failDeletes = new AtomicLong(1);
        ObjectStorage real = storage;
        ObjectStorage flaky = (ObjectStorage) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ObjectStorage.class}, (proxy, method, args) -> {
                    if (method.getName().equals("delete") && failDeletes.getAndDecrement() > 0) {
                        return CompletableFuture.failedFuture(new IllegalStateException("injected delete failure"));
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        manager.close();
        manager = new CompactionManager(CompactionConfig.builder(NODE).deleteDelayMs(DELETE_DELAY).build(), flaky,
                metadata, List::of, clock::get);
        long s0 = stream();
        List<Long> inputs = List.of(uploadStreamSet(Map.of(s0, batches(s0, 0, 1, 1, 10))),
                uploadStreamSet(Map.of(s0, batches(s0, 1, 1, 1, 10))));
        assertEquals(inputs, runOnce().compactedObjectIds());
        clock.addAndGet(DELETE_DELAY);

        CompactionRound failed = runOnce();

        assertTrue(failed.deletedObjectIds().isEmpty());
        assertEquals(Set.copyOf(inputs), Set.copyOf(await(metadata.getObjectsToDelete(clock.get(), DELETE_DELAY))
                .stream().map(S3Object::objectId).toList()));
        inputs.forEach(id -> assertTrue(exists(id)));
        assertEquals(Set.copyOf(inputs), Set.copyOf(runOnce().deletedObjectIds()));
        inputs.forEach(id -> assertFalse(exists(id)));
    }

    @Test
    void runOnce_afterRangeReplacements_copiesOnlyWhatMetadataLeavesTheObjects() throws Exception {
        long s0 = stream();
        long s1 = stream();
        long first = uploadStreamSet(Map.of(s0, batches(s0, 0, 4, 5, 100), s1, batches(s1, 0, 2, 3, 50)));
        long second = uploadStreamSet(Map.of(s0, batches(s0, 20, 4, 5, 100), s1, batches(s1, 6, 2, 3, 50)));
        // s0's [0, 30) rewritten into a stream object: the first object gives up its range of s0,
        // the second keeps s0's [30, 40) only.
        List<StreamRecordBatch> rewritten = batches(s0, 0, 3, 10, 30);
        long replacement = await(metadata.prepareObjects(new PrepareObjectsRequest(NODE, 1, 60_000, clock.get())));
        ObjectSummary summary = upload(replacement, rewritten);
        await(metadata.replaceStreamRange(new io.aloft.stream.metadata.ReplaceStreamRangeRequest(s0, EPOCH, 0, 30,
                List.of(new StreamObjectSpec(replacement, summary.size(), summary.ranges().get(0))), clock.get())));

        CompactionRound round = runOnce();

        assertEquals(List.of(first, second), round.compactedObjectIds());
        S3Object merged = await(metadata.getStreamSetObjects(NODE)).get(0);
        assertBatchesEqual(batches(s0, 30, 2, 5, 100), read(merged, s0));
        List<StreamRecordBatch> s1Batches = new ArrayList<>(batches(s1, 0, 2, 3, 50));
        s1Batches.addAll(batches(s1, 6, 2, 3, 50));
        assertBatchesEqual(s1Batches, read(merged, s1));
        assertEquals(List.of(replacement, merged.objectId()), await(metadata.getObjects(s0, 0, -1, 10)).stream()
                .map(ObjectRef::objectId).toList());
    }

    @Test
    void runOnce_afterClose_fails() throws Exception {
        manager.start();
        assertThrows(IllegalStateException.class, manager::start);
        manager.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> manager.runOnce().get());
        assertInstanceOf(IllegalStateException.class, e.getCause());
    }

    @Test
    void config_badOrRepeatedValues_rejectedWithKey() {
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> CompactionConfig.builder(0).intervalMs(0));
        assertTrue(bad.getMessage().startsWith(CompactionConfig.INTERVAL_CONFIG), bad.getMessage());
        IllegalStateException twice = assertThrows(IllegalStateException.class,
                () -> CompactionConfig.builder(0).deleteDelayMs(1).deleteDelayMs(2));
        assertTrue(twice.getMessage().startsWith(CompactionConfig.DELETE_DELAY_CONFIG), twice.getMessage());
        IllegalArgumentException clash = assertThrows(IllegalArgumentException.class,
                () -> CompactionConfig.builder(0).smallObjectBytes(10).maxMergeBytes(5).build());
        assertTrue(clash.getMessage().startsWith(CompactionConfig.SMALL_OBJECT_CONFIG), clash.getMessage());
        CompactionConfig defaults = CompactionConfig.builder(3).build();
        assertEquals(CompactionConfig.INTERVAL.defaultValue(), defaults.intervalMs());
        assertEquals(16L << 20, defaults.smallObjectBytes());
        assertEquals(256L << 20, defaults.maxMergeBytes());
        assertEquals(8L << 20, defaults.splitThresholdBytes());
        assertEquals(60_000, defaults.deleteDelayMs());
    }

    // ---- helpers ----

    private CompactionRound runOnce() throws Exception {
        return manager.runOnce().get(10, TimeUnit.SECONDS);
    }

    private long stream() throws Exception {
        long id = await(metadata.createStream(new CreateStreamRequest(NODE)));
        await(metadata.openStream(new OpenStreamRequest(id, EPOCH, NODE)));
        return id;
    }

    /** {@code n} batches of {@code count} offsets each from {@code from}, with distinct payloads. */
    private static List<StreamRecordBatch> batches(long streamId, long from, int n, int count, int size) {
        List<StreamRecordBatch> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long base = from + (long) i * count;
            byte[] payload = new byte[size];
            for (int j = 0; j < size; j++) {
                payload[j] = (byte) (streamId * 31 + base * 7 + j);
            }
            out.add(new StreamRecordBatch(streamId, EPOCH, base, count, ByteBuffer.wrap(payload)));
        }
        return out;
    }

    /** Uploads and commits one stream-set object (streams in id order); returns its id. */
    private long uploadStreamSet(Map<Long, List<StreamRecordBatch>> byStream) throws Exception {
        long id = await(metadata.prepareObjects(new PrepareObjectsRequest(NODE, 1, 60_000, clock.get())));
        ObjectSummary summary = upload(id, new TreeMap<>(byStream).values().stream().flatMap(List::stream).toList());
        await(metadata.commitStreamSetObject(new CommitStreamSetObjectRequest(NODE, id, summary.size(),
                summary.ranges(), List.of(), List.of(), clock.get())));
        return id;
    }

    /** Uploads and commits one stream object (as an upload's split); returns its id. */
    private long uploadStreamObject(List<StreamRecordBatch> batches) throws Exception {
        long id = await(metadata.prepareObjects(new PrepareObjectsRequest(NODE, 1, 60_000, clock.get())));
        ObjectSummary summary = upload(id, batches);
        await(metadata.commitStreamSetObject(new CommitStreamSetObjectRequest(NODE, -1, 0, List.of(),
                List.of(new StreamObjectSpec(id, summary.size(), summary.ranges().get(0))), List.of(), clock.get())));
        return id;
    }

    private ObjectSummary upload(long id, List<StreamRecordBatch> batches) throws Exception {
        ObjectWriterConfig config = ObjectWriterConfig.builder().blockSize(4096).build();
        return await(ObjectUploader.upload(storage, id, batches, config));
    }

    /** Every batch of {@code streamId} in the object, via its index. */
    private List<StreamRecordBatch> read(S3Object object, long streamId) throws Exception {
        ObjectReader reader = ObjectReader.open(storage, object.objectId(), object.size());
        List<StreamRecordBatch> out = new ArrayList<>();
        for (DataBlockIndex block : await(reader.index())) {
            if (block.streamId() == streamId) {
                DataBlock data = await(reader.readBlock(block));
                out.addAll(data.batches());
            }
        }
        return out;
    }

    private long totalCount(long streamId, Set<Long> ids) throws Exception {
        long count = 0;
        for (ObjectRef ref : await(metadata.getObjects(streamId, 0, -1, 100))) {
            S3Object o = new S3Object(ref.objectId(), ref.type(), S3Object.State.COMMITTED, ref.objectSize(),
                    List.of(ref.range()), NODE, 0, -1);
            for (StreamRecordBatch b : read(o, streamId)) {
                count += b.count();
            }
        }
        return count;
    }

    private boolean exists(long objectId) {
        try {
            storage.head(ObjectKeys.key(objectId)).get(10, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ObjectNotFoundException) {
                return false;
            }
            throw new AssertionError(e);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static void assertBatchesEqual(List<StreamRecordBatch> expected, List<StreamRecordBatch> actual) {
        assertEquals(expected.size(), actual.size(), "batch count");
        for (int i = 0; i < expected.size(); i++) {
            StreamRecordBatch e = expected.get(i);
            StreamRecordBatch a = actual.get(i);
            assertEquals(e.streamId(), a.streamId());
            assertEquals(e.epoch(), a.epoch());
            assertEquals(e.baseOffset(), a.baseOffset());
            assertEquals(e.count(), a.count());
            assertArrayEquals(bytes(e.payloadView()), bytes(a.payloadView()), "payload of batch at " + e.baseOffset());
        }
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }
}
