package io.aloft.stream.metadata;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The source of truth for streams and the objects that hold their data.
 *
 * <p>Every call is one small command or query whose arguments are plain values (records in this
 * package), so an implementation can replicate commands through a consensus log (the broker's
 * Ratis controller) or apply them in memory ({@link MemoryStreamMetadata}, for tests). A command
 * is validated and applied atomically: it either takes effect whole or fails with a
 * {@link StreamMetadataException} carrying a {@link StreamMetadataException.Code}, and changes
 * nothing.
 *
 * <p>Fencing: a stream has an epoch; {@link #openStream} with a higher epoch makes the caller its
 * owner, and every later command carrying another epoch than the current one (lower: a stale
 * owner; higher: an open that never took effect) fails with {@code FENCED}.
 *
 * <p>Time: commands that need it carry the caller's {@code nowMs}; the metadata's clock is the
 * largest one seen, so replicas agree and time never runs backwards. Objects marked for deletion by
 * a command without time (trim, delete) are stamped by the next command with time, so they always
 * wait the full deletion delay. The rules in full are in {@link StreamMetadataState} and
 * {@code CommitPlanner}.
 *
 * <p>Thread-safe; futures may complete on any thread.
 */
public interface StreamMetadata {

    /** Creates an empty stream (epoch 0, closed) and returns its id. */
    CompletableFuture<Long> createStream(CreateStreamRequest request);

    /**
     * Opens a stream for appending by {@code request.nodeId()} with {@code request.epoch()}, which
     * must be higher than the stream's current epoch (a stale or equal epoch fails with
     * {@code FENCED}). Opening a stream that another owner still holds open takes it over.
     */
    CompletableFuture<StreamInfo> openStream(OpenStreamRequest request);

    /** Closes a stream; the epoch must be the current one. Closing a closed stream is a no-op, so retries are safe. */
    CompletableFuture<Void> closeStream(CloseStreamRequest request);

    /**
     * Moves an open stream's start offset forward; the epoch must be the current one. Past the end
     * offset is {@code INVALID_REQUEST}; at or below the current start is a no-op. Objects whose
     * ranges lie wholly below it stop being returned and are released (stream objects marked for
     * deletion; stream-set objects once no live stream data is left in them).
     */
    CompletableFuture<Void> trimStream(TrimStreamRequest request);

    /** Deletes a stream, open or closed, with its current epoch, and releases all its data. */
    CompletableFuture<Void> deleteStream(DeleteStreamRequest request);

    /**
     * Allocates {@code count} consecutive object ids in state PREPARED. A prepared object that is
     * not committed within {@code ttlMs} is marked for deletion (its upload failed or its
     * writer died), so orphaned uploads are cleaned up: expiry is judged by the {@code nowMs} of
     * later commands, and the mark is dated at the deadline. Count is 1 to
     * {@value StreamMetadataState#MAX_PREPARE_COUNT}, ttl positive.
     *
     * @return the first id
     */
    CompletableFuture<Long> prepareObjects(PrepareObjectsRequest request);

    /**
     * Commits an uploaded stream-set object (and the stream objects split out of the same upload)
     * atomically. Each range must continue its stream exactly where the committed data ends, with
     * the stream's current epoch; objects listed as compacted are replaced by it and marked for
     * deletion. With compacted objects the commit is a compaction: the new ranges must hold exactly
     * the compacted objects' live data and end offsets do not move (see {@code CommitPlanner}).
     */
    CompletableFuture<Void> commitStreamSetObject(CommitStreamSetObjectRequest request);

    /**
     * Commits a stream object made by compaction, replacing the listed source objects: committed
     * stream objects of the same stream whose live data is exactly the new object's live range.
     */
    CompletableFuture<Void> commitStreamObject(CommitStreamObjectRequest request);

    /**
     * Replaces what an open stream holds at {@code [startOffset, endOffset)} with new stream
     * objects that tile the range (a key compaction's commit: same offsets, other bytes), with the
     * stream's current epoch. Objects holding data of the stream in the range give it up (their
     * range removed or shrunk; marked for deletion once nothing live is left in them); the rules are
     * in {@code RangeReplacementPlanner}. Needs controller feature level 2 where metadata is
     * replicated.
     */
    CompletableFuture<Void> replaceStreamRange(ReplaceStreamRangeRequest request);

    /**
     * Returns the committed objects holding data of {@code streamId} from {@code startOffset}
     * (inclusive) towards {@code endOffset} (exclusive; -1 for the end), ordered by their range
     * in that stream, at most {@code limit} (at least 1), each listed with the range of that stream
     * it holds (as stored: the first may begin below the stream's start offset). Objects wholly
     * below the start offset are never returned.
     */
    CompletableFuture<List<ObjectRef>> getObjects(long streamId, long startOffset, long endOffset, int limit);

    /** Committed stream-set objects written by {@code nodeId}, oldest first (for compaction). */
    CompletableFuture<List<S3Object>> getStreamSetObjects(int nodeId);

    /** Committed stream objects of one stream overlapping the range, ordered (for compaction). */
    CompletableFuture<List<S3Object>> getStreamObjects(long streamId, long startOffset, long endOffset, int limit);

    /** The stream's current state, or a failure with {@code STREAM_NOT_FOUND}. */
    CompletableFuture<StreamInfo> describeStream(long streamId);

    /**
     * Objects marked for deletion at least {@code delayMs} ago (by {@code nowMs}), by id: safe to
     * delete from object storage, after which {@link #objectsDeleted} forgets them. This is a
     * command, not a pure query: it moves the clock (expiring prepared objects and stamping marks).
     * Delete by object id alone: an expired prepared object's type is {@code UNKNOWN}.
     */
    CompletableFuture<List<S3Object>> getObjectsToDelete(long nowMs, long delayMs);

    /**
     * Records that these objects were deleted from object storage: each must be marked for deletion
     * ({@code OBJECT_STATE}) and known ({@code OBJECT_NOT_FOUND}: already forgotten), else none is
     * forgotten.
     */
    CompletableFuture<Void> objectsDeleted(List<Long> objectIds);
}
