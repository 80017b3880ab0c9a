package io.aloft.stream.metadata;

import static io.aloft.stream.metadata.StreamMetadataException.Code.FENCED;
import static io.aloft.stream.metadata.StreamMetadataException.Code.INVALID_REQUEST;
import static io.aloft.stream.metadata.StreamMetadataException.Code.OFFSET_MISMATCH;
import static io.aloft.stream.metadata.StreamMetadataException.Code.STREAM_NOT_FOUND;
import static io.aloft.stream.metadata.StreamMetadataException.Code.STREAM_NOT_OPEN;
import static io.aloft.stream.metadata.StreamMetadataState.error;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Validates a {@link ReplaceStreamRangeRequest} against a {@link StreamMetadataState} and turns it
 * into a {@link CommitPlan}. Reads the state and never changes it. Stateless; call it on the
 * state's thread.
 *
 * <h2>Rules</h2>
 * <ul>
 *   <li>The request: at least one new object ({@code INVALID_REQUEST}); {@code 0 <= start < end};
 *       distinct object ids, non-negative sizes, every range of the request's stream and epoch
 *       ({@code INVALID_REQUEST}); the ranges, ordered, tile {@code [start, end)} with no gap or
 *       overlap ({@code OFFSET_MISMATCH}).</li>
 *   <li>The stream exists ({@code STREAM_NOT_FOUND}), is open ({@code STREAM_NOT_OPEN}) and the
 *       request carries its current epoch ({@code FENCED}): only the owner rewrites, and an owner
 *       fenced while it rewrote commits nothing. {@code end} is at most the stream's committed end
 *       ({@code OFFSET_MISMATCH}): data still in a WAL cannot be replaced.</li>
 *   <li>The new ids are prepared and unexpired ({@code OBJECT_NOT_FOUND}, {@code OBJECT_STATE}).</li>
 *   <li>Every committed object with live data of the stream in {@code [start, end)} gives it up,
 *       whatever kind it is and however it got there (an upload, a merge of stream-set objects, a
 *       split, an earlier replacement): no source ids are named, so a merge of small objects that
 *       committed while the rewrite ran does not void it. Such an object's range of the stream is
 *       removed, or shrunk to its live part outside {@code [start, end)}; a range that would keep
 *       live data on both sides is refused ({@code INVALID_REQUEST}: an object holds one range per
 *       stream). An object left without live data is marked for deletion (a stream object, or a
 *       stream-set object whose other streams are gone); one that keeps live data of another stream
 *       stays, with the smaller range list.</li>
 *   <li>Nothing about the bytes is checked (metadata cannot read objects): the writer guarantees
 *       the new objects hold the range's offsets, each batch where it was.</li>
 * </ul>
 * Trims racing the rewrite are harmless: what lies below the stream's start is dead on both sides,
 * and a new object left without live data is marked for deletion at once.
 */
final class RangeReplacementPlanner {
    private RangeReplacementPlanner() {
    }

    static CommitPlan plan(StreamMetadataState state, ReplaceStreamRangeRequest r, long now) {
        checkShape(r);
        StreamInfo s = state.stream(r.streamId());
        if (s == null) {
            throw error(STREAM_NOT_FOUND, "stream " + r.streamId());
        }
        if (s.state() != StreamInfo.State.OPEN) {
            throw error(STREAM_NOT_OPEN, "range replacement in closed stream " + s.streamId());
        }
        if (r.epoch() != s.epoch()) {
            throw error(FENCED, "range replacement in stream " + s.streamId() + " with epoch " + r.epoch()
                    + ", its epoch is " + s.epoch());
        }
        if (r.endOffset() > s.endOffset()) {
            throw error(OFFSET_MISMATCH, "range replacement of [" + r.startOffset() + ", " + r.endOffset()
                    + ") in stream " + s.streamId() + " reaches past its committed end " + s.endOffset());
        }
        List<StoredObject> prepared = new ArrayList<>();
        for (StreamObjectSpec spec : r.objects()) {
            prepared.add(CommitPlanner.requirePrepared(state, spec.objectId(), now));
        }

        List<Long> marks = new ArrayList<>();
        List<StoredObject> updates = new ArrayList<>();
        for (ObjectRef ref : state.liveRanges(s.streamId(), r.startOffset(), r.endOffset())) {
            StoredObject old = state.requireObject(ref.objectId());
            StreamRange kept = remainder(s, ref.range(), r);
            List<StreamRange> ranges = new ArrayList<>();
            for (StreamRange range : old.object().ranges()) {
                if (range.streamId() != s.streamId()) {
                    ranges.add(range);
                } else if (kept != null) {
                    ranges.add(kept);
                }
            }
            S3Object o = old.object();
            S3Object changed = new S3Object(o.objectId(), o.type(), o.state(), o.size(), ranges, o.nodeId(),
                    o.committedAtMs(), o.markedForDeletionAtMs());
            if (state.hasLiveData(changed)) {
                updates.add(old.withObject(changed));
            } else {
                marks.add(old.id());
            }
        }

        List<StoredObject> commits = new ArrayList<>();
        for (int i = 0; i < prepared.size(); i++) {
            StreamObjectSpec spec = r.objects().get(i);
            commits.add(CommitPlanner.committed(prepared.get(i), S3Object.Type.STREAM, spec.objectSize(),
                    List.of(spec.range()), prepared.get(i).object().nodeId(), now, -1));
        }
        return new CommitPlan(marks, updates, List.of(), commits);
    }

    private static void checkShape(ReplaceStreamRangeRequest r) {
        if (r.objects().isEmpty()) {
            throw error(INVALID_REQUEST, "range replacement in stream " + r.streamId() + " without objects");
        }
        if (r.startOffset() < 0 || r.endOffset() <= r.startOffset()) {
            throw error(INVALID_REQUEST, "range replacement of [" + r.startOffset() + ", " + r.endOffset()
                    + ") in stream " + r.streamId() + ": need 0 <= start < end");
        }
        List<Long> ids = new ArrayList<>();
        for (StreamObjectSpec spec : r.objects()) {
            StreamRange range = spec.range();
            if (spec.objectSize() < 0) {
                throw error(INVALID_REQUEST, "stream object " + spec.objectId() + " has size " + spec.objectSize());
            }
            if (range.streamId() != r.streamId() || range.epoch() != r.epoch()) {
                throw error(INVALID_REQUEST, "stream object " + spec.objectId() + " holds stream " + range.streamId()
                        + " at epoch " + range.epoch() + ", not stream " + r.streamId() + " at epoch " + r.epoch());
            }
            ids.add(spec.objectId());
        }
        CommitPlanner.checkDistinct(ids);
        List<StreamRange> sorted = new ArrayList<>(r.objects().stream().map(StreamObjectSpec::range).toList());
        sorted.sort(Comparator.comparingLong(StreamRange::startOffset));
        long expected = r.startOffset();
        for (StreamRange range : sorted) {
            if (range.startOffset() != expected) {
                throw error(OFFSET_MISMATCH, "the new objects of stream " + r.streamId() + " do not tile ["
                        + r.startOffset() + ", " + r.endOffset() + "): one starts at " + range.startOffset()
                        + " where " + expected + " was expected");
            }
            expected = range.endOffset();
        }
        if (expected != r.endOffset()) {
            throw error(OFFSET_MISMATCH, "the new objects of stream " + r.streamId() + " end at " + expected
                    + ", not at " + r.endOffset());
        }
    }

    /**
     * What stays of {@code range} once {@code [start, end)} is taken from it: its live part below
     * {@code start} or its part at or above {@code end}, or null if nothing live stays.
     */
    private static StreamRange remainder(StreamInfo s, StreamRange range, ReplaceStreamRangeRequest r) {
        long lowStart = Math.max(range.startOffset(), s.startOffset());
        boolean below = lowStart < Math.min(range.endOffset(), r.startOffset());
        boolean above = range.endOffset() > r.endOffset();
        if (below && above) {
            throw error(INVALID_REQUEST, "range replacement of [" + r.startOffset() + ", " + r.endOffset()
                    + ") in stream " + s.streamId() + " lies inside the range [" + range.startOffset() + ", "
                    + range.endOffset() + ") of one object, which would keep two ranges of the stream");
        }
        if (below) {
            return new StreamRange(range.streamId(), range.epoch(), lowStart, r.startOffset());
        }
        if (above) {
            return new StreamRange(range.streamId(), range.epoch(), Math.max(range.startOffset(), r.endOffset()),
                    range.endOffset());
        }
        return null;
    }
}
