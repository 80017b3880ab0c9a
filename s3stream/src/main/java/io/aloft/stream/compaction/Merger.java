package io.aloft.stream.compaction;

import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.metadata.CommitStreamObjectRequest;
import io.aloft.stream.metadata.CommitStreamSetObjectRequest;
import io.aloft.stream.metadata.PrepareObjectsRequest;
import io.aloft.stream.metadata.S3Object;
import io.aloft.stream.metadata.StreamInfo;
import io.aloft.stream.metadata.StreamMetadata;
import io.aloft.stream.metadata.StreamMetadataException;
import io.aloft.stream.metadata.StreamObjectSpec;
import io.aloft.stream.metadata.StreamRange;
import io.aloft.stream.object.DataBlock;
import io.aloft.stream.object.DataBlockIndex;
import io.aloft.stream.object.ObjectReader;
import io.aloft.stream.object.ObjectSummary;
import io.aloft.stream.object.ObjectUploader;
import io.aloft.stream.object.ObjectWriterConfig;
import io.aloft.stream.storage.ObjectStorage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two merges of compaction, each a blocking sequence run on the compaction thread:
 *
 * <ul>
 *   <li>{@link #mergeStreamSetObjects}: consecutive small stream-set objects of this node (oldest
 *       first, up to the byte budget) are read and rewritten as one stream-set object, with each
 *       stream's live data (at or above its start offset, within the range metadata gives the
 *       object, which a range replacement may have shrunk or removed; nothing of a deleted stream)
 *       in (stream, offset) order. A stream whose live data there is at least the split threshold, or
 *       whose data there is not one contiguous run, gets stream objects instead (one per run; the
 *       stream-set object holds at most one run per stream). Committed as a compaction
 *       ({@code compactedObjectIds} = the inputs).</li>
 *   <li>{@link #mergeStreamObjects}: a contiguous run of a stream's small stream objects is
 *       rewritten as one stream object and committed with the run as its sources.</li>
 * </ul>
 *
 * <p>Output ids are prepared with the configured ttl before anything is written. A commit that
 * metadata rejects (an input was released or compacted meanwhile, the ids expired) abandons the
 * output: it stays prepared until the ttl and is then marked for deletion, and nothing else changes.
 * Data trimmed between reading and committing is harmless: metadata compares live parts only.
 *
 * <p>Thread-safety: confined to the compaction thread, except {@link #beforeCommit}, a test hook
 * that may be set from any thread.
 */
final class Merger {
    private static final Logger log = LoggerFactory.getLogger(Merger.class);

    /** Most stream objects of one stream looked at per round. */
    static final int STREAM_OBJECT_LIMIT = 1000;
    /** Blocks read ahead while copying, bounding memory to about this many blocks. */
    private static final int READ_AHEAD_BLOCKS = 8;

    private final CompactionConfig config;
    private final ObjectStorage storage;
    private final StreamMetadata metadata;
    private final LongSupplier clock;
    private final ObjectWriterConfig writerConfig;
    private volatile Runnable beforeCommit = () -> { };

    /**
     * What one merge did.
     *
     * @param inputIds the objects merged
     * @param outputIds the objects written
     * @param committed whether metadata accepted the commit (else the outputs are abandoned)
     * @param bytesRead the inputs' total size
     * @param bytesWritten the outputs' total size
     */
    record Outcome(List<Long> inputIds, List<Long> outputIds, boolean committed, long bytesRead,
            long bytesWritten) {
    }

    /** Objects and bytes the listings of this round returned (compaction thread only; see CompactionStats). */
    private long seenObjects;
    private long seenBytes;

    /** Starts counting what this round's listings return. */
    void startRound() {
        seenObjects = 0;
        seenBytes = 0;
    }

    long seenObjects() {
        return seenObjects;
    }

    long seenBytes() {
        return seenBytes;
    }

    private List<S3Object> seen(List<S3Object> listed) {
        seenObjects += listed.size();
        for (S3Object o : listed) {
            seenBytes += o.size();
        }
        return listed;
    }

    /**
     * A block of an input object, to copy within {@code [from, to)}: the part of the stream that is
     * live (at or above its start) and inside the range metadata gives the object, which may be
     * smaller than what the object holds (a range replacement shrank it).
     */
    private record Piece(ObjectReader reader, DataBlockIndex block, long from, long to) {
        long start() {
            return Math.max(block.startOffset(), from);
        }

        long end() {
            return Math.min(block.endOffset(), to);
        }
    }

    /** One stream's contiguous blocks, in offset order. */
    private static final class Run {
        final long streamId;
        final List<Piece> pieces = new ArrayList<>();
        long bytes;

        Run(long streamId) {
            this.streamId = streamId;
        }

        long end() {
            return pieces.get(pieces.size() - 1).end();
        }

        void add(Piece p) {
            pieces.add(p);
            bytes += p.block().size();
        }
    }

    Merger(CompactionConfig config, ObjectStorage storage, StreamMetadata metadata, LongSupplier clock) {
        this.config = config;
        this.storage = storage;
        this.metadata = metadata;
        this.clock = clock;
        this.writerConfig = ObjectWriterConfig.builder().blockSize(config.objectBlockSizeBytes()).build();
    }

    /** Test hook: runs after the outputs are written, just before the commit. */
    void beforeCommit(Runnable hook) {
        this.beforeCommit = hook;
    }

    /**
     * Merges this node's oldest run of small stream-set objects that fits {@code budget} bytes.
     *
     * @return null if there was nothing to merge
     * @throws RuntimeException a storage or metadata failure other than a rejected commit; the
     *     outputs written so far are abandoned
     */
    Outcome mergeStreamSetObjects(long budget) {
        List<S3Object> picked = pickStreamSetObjects(seen(Await.of(metadata.getStreamSetObjects(config.nodeId()))),
                budget);
        if (picked.size() < 2) {
            return null;
        }
        Map<Long, StreamInfo> streams = new TreeMap<>();
        for (S3Object o : picked) {
            for (StreamRange r : o.ranges()) {
                if (!streams.containsKey(r.streamId())) {
                    streams.put(r.streamId(), describe(r.streamId()));
                }
            }
        }
        TreeMap<Long, List<Piece>> pieces = new TreeMap<>();
        for (S3Object o : picked) {
            addLivePieces(o, streams, pieces);
        }
        List<Run> shared = new ArrayList<>();
        List<Run> split = new ArrayList<>();
        for (Map.Entry<Long, List<Piece>> e : pieces.entrySet()) {
            List<Run> runs = runs(e.getKey(), e.getValue());
            boolean sharedTaken = false;
            for (Run run : runs) {
                if (run.bytes >= config.splitThresholdBytes() || sharedTaken) {
                    split.add(run);
                } else {
                    shared.add(run);
                    sharedTaken = true;
                }
            }
        }
        List<Long> inputIds = picked.stream().map(S3Object::objectId).toList();
        long bytesRead = picked.stream().mapToLong(S3Object::size).sum();
        if (shared.isEmpty() && split.isEmpty()) {
            // Everything in them died meanwhile: metadata releases such objects by itself.
            return new Outcome(inputIds, List.of(), false, bytesRead, 0);
        }
        int count = split.size() + (shared.isEmpty() ? 0 : 1);
        long firstId = Await.of(metadata.prepareObjects(new PrepareObjectsRequest(config.nodeId(), count,
                config.prepareTtlMs(), clock.getAsLong())));
        List<Long> outputIds = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            outputIds.add(firstId + i);
        }
        long nextId = firstId;
        long bytesWritten = 0;
        ObjectSummary sso = null;
        if (!shared.isEmpty()) {
            sso = write(nextId++, shared);
            bytesWritten += sso.size();
        }
        List<StreamObjectSpec> streamObjects = new ArrayList<>();
        for (Run run : split) {
            ObjectSummary so = write(nextId++, List.of(run));
            bytesWritten += so.size();
            streamObjects.add(new StreamObjectSpec(so.objectId(), so.size(), so.ranges().get(0)));
        }
        CommitStreamSetObjectRequest request = new CommitStreamSetObjectRequest(config.nodeId(),
                sso == null ? -1 : sso.objectId(), sso == null ? 0 : sso.size(),
                sso == null ? List.of() : sso.ranges(), streamObjects, inputIds, clock.getAsLong());
        boolean committed = commit(() -> metadata.commitStreamSetObject(request), "stream-set objects " + inputIds
                + " into " + outputIds);
        return new Outcome(inputIds, outputIds, committed, bytesRead, bytesWritten);
    }

    /**
     * Merges the first contiguous run of small stream objects of {@code streamId} that fits
     * {@code budget} bytes.
     *
     * @return null if there was nothing to merge (or the stream is gone)
     * @throws RuntimeException as {@link #mergeStreamSetObjects}
     */
    Outcome mergeStreamObjects(long streamId, long budget) {
        StreamInfo info = describe(streamId);
        if (info == null) {
            return null;
        }
        List<S3Object> picked = pickStreamObjects(seen(Await.of(metadata.getStreamObjects(streamId,
                info.startOffset(), -1, STREAM_OBJECT_LIMIT))), budget);
        if (picked.size() < 2) {
            return null;
        }
        TreeMap<Long, List<Piece>> pieces = new TreeMap<>();
        for (S3Object o : picked) {
            addLivePieces(o, Map.of(streamId, info), pieces);
        }
        List<Long> inputIds = picked.stream().map(S3Object::objectId).toList();
        long bytesRead = picked.stream().mapToLong(S3Object::size).sum();
        List<Piece> live = pieces.get(streamId);
        if (live == null) {
            return new Outcome(inputIds, List.of(), false, bytesRead, 0);
        }
        List<Run> runs = runs(streamId, live);
        if (runs.size() != 1) {
            throw new IllegalStateException("stream " + streamId + ": stream objects " + inputIds
                    + " have contiguous ranges but their blocks are not contiguous");
        }
        long id = Await.of(metadata.prepareObjects(new PrepareObjectsRequest(config.nodeId(), 1,
                config.prepareTtlMs(), clock.getAsLong())));
        ObjectSummary so = write(id, runs);
        CommitStreamObjectRequest request = new CommitStreamObjectRequest(
                new StreamObjectSpec(id, so.size(), so.ranges().get(0)), inputIds, clock.getAsLong());
        boolean committed = commit(() -> metadata.commitStreamObject(request), "stream " + streamId
                + " stream objects " + inputIds + " into " + id);
        return new Outcome(inputIds, List.of(id), committed, bytesRead, so.size());
    }

    /** Oldest run of at least two consecutive small objects fitting the budget, or fewer if none. */
    private List<S3Object> pickStreamSetObjects(List<S3Object> objects, long budget) {
        return pick(objects, budget, (prev, next) -> true);
    }

    /** First run of at least two small stream objects, each starting where the previous ends. */
    private List<S3Object> pickStreamObjects(List<S3Object> objects, long budget) {
        return pick(objects, budget, (prev, next) -> prev.ranges().get(0).endOffset()
                == next.ranges().get(0).startOffset());
    }

    private interface Adjacency {
        boolean follows(S3Object prev, S3Object next);
    }

    private List<S3Object> pick(List<S3Object> objects, long budget, Adjacency adjacency) {
        List<S3Object> window = new ArrayList<>();
        long bytes = 0;
        for (S3Object o : objects) {
            boolean small = o.size() < config.smallObjectBytes() && o.size() <= budget;
            boolean follows = window.isEmpty() || adjacency.follows(window.get(window.size() - 1), o);
            if (!small || !follows) {
                if (window.size() >= 2) {
                    return window;
                }
                window.clear();
                bytes = 0;
                if (!small) {
                    continue;
                }
            }
            while (!window.isEmpty() && bytes + o.size() > budget) {
                if (window.size() >= 2) {
                    return window;
                }
                bytes -= window.remove(0).size();
            }
            window.add(o);
            bytes += o.size();
        }
        return window;
    }

    /** The stream, or null if it was deleted. */
    private StreamInfo describe(long streamId) {
        try {
            return Await.of(metadata.describeStream(streamId));
        } catch (StreamMetadataException e) {
            if (e.code() == StreamMetadataException.Code.STREAM_NOT_FOUND) {
                return null;
            }
            throw e;
        }
    }

    /**
     * Adds the object's blocks that hold live data of existing streams within the object's ranges
     * in metadata, by stream.
     */
    private void addLivePieces(S3Object o, Map<Long, StreamInfo> streams, TreeMap<Long, List<Piece>> into) {
        Map<Long, StreamRange> ranges = new TreeMap<>();
        for (StreamRange r : o.ranges()) {
            ranges.put(r.streamId(), r);
        }
        ObjectReader reader = ObjectReader.open(storage, o.objectId(), o.size());
        for (DataBlockIndex block : Await.of(reader.index())) {
            StreamInfo s = streams.get(block.streamId());
            StreamRange range = ranges.get(block.streamId());
            if (s == null || range == null) {
                continue; // deleted stream, or data the object no longer holds for metadata
            }
            long from = Math.max(s.startOffset(), range.startOffset());
            if (block.endOffset() <= from || block.startOffset() >= range.endOffset()) {
                continue; // trimmed away, or outside the object's range
            }
            into.computeIfAbsent(block.streamId(), k -> new ArrayList<>())
                    .add(new Piece(reader, block, from, range.endOffset()));
        }
    }

    /** Splits one stream's blocks into contiguous runs. */
    private static List<Run> runs(long streamId, List<Piece> pieces) {
        List<Piece> sorted = new ArrayList<>(pieces);
        sorted.sort(Comparator.comparingLong(Piece::start));
        List<Run> runs = new ArrayList<>();
        Run current = null;
        for (Piece p : sorted) {
            if (current != null && p.start() < current.end()) {
                throw new IllegalStateException("stream " + streamId + ": block " + p.block() + " of object "
                        + p.reader().objectId() + " overlaps data of another input, which ends at " + current.end());
            }
            if (current == null || p.start() != current.end()) {
                current = new Run(streamId);
                runs.add(current);
            }
            current.add(p);
        }
        return runs;
    }

    /** Writes the runs' live batches (runs in stream order) as object {@code objectId}. */
    private ObjectSummary write(long objectId, List<Run> runs) {
        ObjectUploader uploader = ObjectUploader.create(storage, objectId, writerConfig);
        boolean finishing = false;
        try {
            for (Run run : runs) {
                List<CompletableFuture<DataBlock>> reads = new ArrayList<>();
                int next = 0;
                for (int i = 0; i < run.pieces.size(); i++) {
                    while (next < run.pieces.size() && next < i + READ_AHEAD_BLOCKS) {
                        Piece p = run.pieces.get(next++);
                        reads.add(p.reader().readBlock(p.block()));
                    }
                    DataBlock block = Await.of(reads.get(i));
                    reads.set(i, null); // let the block go once copied
                    Piece piece = run.pieces.get(i);
                    for (StreamRecordBatch batch : block.batches(piece.from(), piece.to())) {
                        uploader.write(batch);
                    }
                }
            }
            finishing = true;
            return Await.of(uploader.finish());
        } catch (RuntimeException e) {
            if (!finishing) {
                uploader.abort();
            }
            throw e;
        }
    }

    /** Runs the commit; true if accepted, false if metadata rejected it (logged, outputs abandoned). */
    private boolean commit(java.util.function.Supplier<CompletableFuture<Void>> commit, String what) {
        beforeCommit.run();
        try {
            Await.of(commit.get());
            return true;
        } catch (StreamMetadataException e) {
            log.info("Compaction of {} rejected by metadata, abandoning its output (expires with its prepare ttl):"
                    + " {}", what, e.getMessage());
            return false;
        }
    }
}
