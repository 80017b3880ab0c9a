package io.aloft.stream.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.FetchResult;
import io.aloft.stream.Stream;
import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.metadata.MemoryStreamMetadata;
import io.aloft.stream.metadata.ObjectRef;
import io.aloft.stream.metadata.StreamMetadata;
import io.aloft.stream.metadata.StreamMetadataException;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorages;
import io.aloft.wal.BlockDeviceWal;
import io.aloft.wal.WalConfig;
import io.aloft.wal.WriteAheadLog;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rewrites of a committed stream range: what readers see before and after, fencing, the log cache.
 * Metadata is in memory here; core runs the same tests on the Ratis controller.
 */
class RangeRewriteTest {
    @TempDir
    Path dir;

    private StreamMetadata metadata;
    private ObjectStorage storage;
    private WriteAheadLog wal;
    private StreamStore store;

    /** The metadata the tests run on (called once per test, after {@code dir} is set). */
    StreamMetadata newMetadata() throws Exception {
        return new MemoryStreamMetadata();
    }

    /** Releases what {@link #newMetadata()} started, after the store is closed. */
    void closeMetadata() throws Exception {
    }

    @BeforeEach
    void setUp() throws Exception {
        metadata = newMetadata();
        storage = ObjectStorages.open(dir.resolve("objects").toUri().toString());
        wal = BlockDeviceWal.open(WalConfig.builder().path(dir.resolve("a.wal")).capacityBytes(16 << 20).build());
        store = StreamStore.open(StreamStoreTest.smallConfig().build(), wal, storage, metadata);
    }

    @AfterEach
    void tearDown() throws Exception {
        store.close();
        wal.close();
        storage.close();
        closeMetadata();
    }

    private static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String text(StreamRecordBatch b) {
        return StandardCharsets.UTF_8.decode(b.payloadView()).toString();
    }

    /** 20 batches of 5 offsets ("old-0" .. "old-95"), committed to objects. */
    private Stream committedStream() throws Exception {
        Stream stream = store.openStream(store.createStream().get(), 1).get();
        for (int i = 0; i < 20; i++) {
            stream.append(text("old-" + (i * 5)), 5).get(10, TimeUnit.SECONDS);
        }
        store.flush().get(10, TimeUnit.SECONDS);
        assertEquals(100, stream.committedOffset());
        return stream;
    }

    private static List<StreamRecordBatch> readAll(Stream stream, long from) throws Exception {
        List<StreamRecordBatch> out = new ArrayList<>();
        long next = from;
        while (next < stream.confirmOffset()) {
            FetchResult r = stream.fetch(next, Long.MAX_VALUE, 1 << 20).get(10, TimeUnit.SECONDS);
            for (StreamRecordBatch b : r.batches()) {
                out.add(b);
                next = b.lastOffsetExclusive();
            }
        }
        return out;
    }

    @Test
    void commit_newBatchesServeTheRange_logCacheNoLongerServesTheOldOnes() throws Exception {
        Stream stream = committedStream();
        assertTrue(stream.fetch(0, 100, 1 << 20).get().cacheHit(), "the old batches are in the log cache");
        List<ObjectRef> before = metadata.getObjects(stream.streamId(), 0, -1, 100).get();

        RangeRewrite rewrite = store.rewriteRange(stream, 0, 50, 1 << 20);
        rewrite.write(text("new-0"), 0, 25);
        rewrite.write(text("new-25"), 25, 25);
        rewrite.commit().get(10, TimeUnit.SECONDS);

        List<StreamRecordBatch> all = readAll(stream, 0);
        assertEquals("new-0", text(all.get(0)));
        assertEquals("new-25", text(all.get(1)));
        assertEquals("old-50", text(all.get(2)));
        assertEquals(12, all.size());
        assertEquals(100, all.get(all.size() - 1).lastOffsetExclusive());
        // A read from inside the range gets the new batch holding the offset.
        assertEquals("new-25", text(stream.fetch(30, 100, 1).get().batches().get(0)));
        // The one upload held [0, 100): it keeps [50, 100).
        assertEquals(1, before.size());
        assertEquals(List.of(before.get(0).objectId()), metadata.getObjects(stream.streamId(), 50, -1, 100).get()
                .stream().map(ObjectRef::objectId).toList());
        assertEquals(List.of(50L), metadata.getObjects(stream.streamId(), 50, -1, 100).get().stream()
                .map(r -> r.range().startOffset()).toList());
    }

    @Test
    void commit_readerMidRange_continuesWithoutGapsOrRepeats() throws Exception {
        Stream stream = committedStream();
        List<StreamRecordBatch> firstHalf = stream.fetch(0, 100, 40).get().batches();
        long position = firstHalf.get(firstHalf.size() - 1).lastOffsetExclusive();
        assertTrue(position > 0 && position < 100, "the reader is inside the range: " + position);

        RangeRewrite rewrite = store.rewriteRange(stream, 0, 100, 60);
        for (int i = 0; i < 20; i++) {
            rewrite.write(text("new-" + (i * 5)), i * 5, 5);
        }
        rewrite.commit().get(10, TimeUnit.SECONDS);

        List<StreamRecordBatch> rest = readAll(stream, position);
        assertEquals(position, rest.get(0).baseOffset());
        assertEquals("new-" + position, text(rest.get(0)));
        long next = position;
        for (StreamRecordBatch b : rest) {
            assertEquals(next, b.baseOffset());
            next = b.lastOffsetExclusive();
        }
        assertEquals(100, next);
        assertTrue(metadata.getObjects(stream.streamId(), 0, -1, 100).get().size() > 1,
                "maxObjectBytes split the rewrite into several objects");
    }

    @Test
    void commit_afterANewerOwnerOpenedTheStream_fencedAndOldDataStays() throws Exception {
        Stream stream = committedStream();
        RangeRewrite rewrite = store.rewriteRange(stream, 0, 50, 1 << 20);
        rewrite.write(text("new-0"), 0, 50);
        store.openStream(stream.streamId(), 2).get();

        ExecutionException e = assertThrows(ExecutionException.class, () -> rewrite.commit().get(10,
                TimeUnit.SECONDS));
        StreamMetadataException rejected = assertInstanceOf(StreamMetadataException.class, e.getCause());
        assertEquals(StreamMetadataException.Code.FENCED, rejected.code());
        Stream reopened = store.openStream(stream.streamId(), 3).get();
        assertEquals("old-0", text(readAll(reopened, 0).get(0)));
    }

    @Test
    void write_batchesThatDoNotTileTheRange_refused() throws Exception {
        Stream stream = committedStream();
        RangeRewrite rewrite = store.rewriteRange(stream, 0, 50, 1 << 20);
        assertThrows(IllegalArgumentException.class, () -> rewrite.write(text("x"), 5, 5));
        rewrite.write(text("x"), 0, 10);
        assertThrows(IllegalArgumentException.class, () -> rewrite.write(text("x"), 10, 41));
        assertThrows(IllegalStateException.class, rewrite::commit);
        rewrite.abort();
        assertFalse(readAll(stream, 0).isEmpty());
        assertEquals("old-0", text(readAll(stream, 0).get(0)));
    }

    @Test
    void rewriteRange_beyondTheCommittedEnd_refused() throws Exception {
        Stream stream = committedStream();
        stream.append(text("tail"), 5).get(10, TimeUnit.SECONDS);
        assertThrows(IllegalArgumentException.class, () -> store.rewriteRange(stream, 0, 105, 1 << 20));
        assertThrows(IllegalArgumentException.class, () -> store.rewriteRange(stream, 10, 10, 1 << 20));
    }
}
