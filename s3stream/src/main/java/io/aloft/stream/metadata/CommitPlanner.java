package io.aloft.stream.metadata;

import static io.aloft.stream.metadata.StreamMetadataException.Code.FENCED;
import static io.aloft.stream.metadata.StreamMetadataException.Code.INVALID_REQUEST;
import static io.aloft.stream.metadata.StreamMetadataException.Code.OBJECT_STATE;
import static io.aloft.stream.metadata.StreamMetadataException.Code.OFFSET_MISMATCH;
import static io.aloft.stream.metadata.StreamMetadataException.Code.STREAM_NOT_FOUND;
import static io.aloft.stream.metadata.StreamMetadataException.Code.STREAM_NOT_OPEN;
import static io.aloft.stream.metadata.StreamMetadataState.NONE;
import static io.aloft.stream.metadata.StreamMetadataState.error;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Validates object commits against a {@link StreamMetadataState} and turns them into
 * {@link CommitPlan}s. Reads the state and never changes it, so a rejected commit leaves no trace.
 * Stateless; call it on the state's thread.
 *
 * <h2>Stream-set object commits</h2>
 * Common to both kinds: {@code objectId} is a prepared id, or -1 with no ranges and at least one
 * stream object (everything was split out); a stream-set object has at least one range and at most
 * one per stream; every new object id is prepared and unexpired ({@code OBJECT_NOT_FOUND},
 * {@code OBJECT_STATE}); ids are distinct and sizes non-negative ({@code INVALID_REQUEST}).
 *
 * <p><b>Upload</b> ({@code compactedObjectIds} empty): new data. Each range (of the stream-set object
 * or of a stream object) needs an existing ({@code STREAM_NOT_FOUND}), open ({@code STREAM_NOT_OPEN})
 * stream whose epoch equals the range's ({@code FENCED}). Per stream, the ranges ordered by offset
 * must chain from the stream's end offset with no gap or overlap ({@code OFFSET_MISMATCH}); the end
 * offset moves to the last one's end.
 *
 * <p><b>Compaction</b> ({@code compactedObjectIds} not empty): old data rewritten. The compacted
 * objects must be committed ({@code OBJECT_STATE}) stream-set objects ({@code INVALID_REQUEST}), of
 * any node (the new one is listed under the request's node).
 * Epochs and stream states are not checked and end offsets do not move: the data was fenced when it
 * was first committed. The new ranges of a stream must not overlap ({@code INVALID_REQUEST}), and
 * their live part (the part at or above the stream's current start; nothing for a deleted stream)
 * must equal, offset for offset, the live part of the compacted objects' ranges
 * ({@code OFFSET_MISMATCH}). Comparing live parts lets a compaction that raced a trim or a delete
 * still commit: data trimmed meanwhile may be kept or dropped, and a new object left with no live
 * data is marked for deletion straight away. The compacted objects are marked for deletion, and the
 * new stream-set object takes the lowest order key among them.
 *
 * <h2>Stream object commits (compaction)</h2>
 * The new id is prepared; the sources are distinct, committed ({@code OBJECT_STATE}) stream objects
 * ({@code INVALID_REQUEST}) of the new object's stream, which must exist; the sources' live data must
 * be one contiguous span equal to the live part of the new range ({@code OFFSET_MISMATCH}). The
 * sources are marked for deletion.
 */
final class CommitPlanner {

    /** A half-open offset span [start, end). */
    private record Span(long start, long end) {
        @Override
        public String toString() {
            return "[" + start + ", " + end + ")";
        }
    }

    private CommitPlanner() {
    }

    static CommitPlan planStreamSetObject(StreamMetadataState state, CommitStreamSetObjectRequest r, long now) {
        checkShape(r);
        StoredObject sso = r.objectId() == NONE ? null : requirePrepared(state, r.objectId(), now);
        List<StoredObject> split = new ArrayList<>();
        for (StreamObjectSpec spec : r.streamObjects()) {
            split.add(requirePrepared(state, spec.objectId(), now));
        }
        List<StoredObject> compacted = new ArrayList<>();
        for (long id : r.compactedObjectIds()) {
            compacted.add(requireCommittedStreamSet(state, id));
        }

        List<StreamInfo> streamUpdates;
        long orderKey = -1;
        if (compacted.isEmpty()) {
            streamUpdates = planAppend(state, r);
        } else {
            checkCompaction(state, r, compacted);
            streamUpdates = List.of();
            orderKey = compacted.stream().mapToLong(StoredObject::orderKey).min().getAsLong();
        }

        List<StoredObject> commits = new ArrayList<>();
        if (sso != null) {
            commits.add(committed(sso, S3Object.Type.STREAM_SET, r.objectSize(), r.ranges(), r.nodeId(), now,
                    orderKey));
        }
        for (int i = 0; i < split.size(); i++) {
            StreamObjectSpec spec = r.streamObjects().get(i);
            commits.add(committed(split.get(i), S3Object.Type.STREAM, spec.objectSize(), List.of(spec.range()),
                    r.nodeId(), now, -1));
        }
        return new CommitPlan(r.compactedObjectIds(), List.of(), streamUpdates, commits);
    }

    static CommitPlan planStreamObject(StreamMetadataState state, CommitStreamObjectRequest r, long now) {
        StreamObjectSpec spec = r.object();
        List<Long> sources = r.sourceObjectIds();
        if (sources.isEmpty()) {
            throw error(INVALID_REQUEST, "stream object " + spec.objectId() + " commit without source objects");
        }
        if (spec.objectSize() < 0) {
            throw error(INVALID_REQUEST, "stream object " + spec.objectId() + " has size " + spec.objectSize());
        }
        List<Long> ids = new ArrayList<>(sources);
        ids.add(spec.objectId());
        checkDistinct(ids);
        StoredObject target = requirePrepared(state, spec.objectId(), now);
        long streamId = spec.range().streamId();
        StreamInfo s = state.stream(streamId);
        if (s == null) {
            throw error(STREAM_NOT_FOUND, "stream " + streamId + " of stream object " + spec.objectId());
        }
        List<Span> in = new ArrayList<>();
        for (long id : sources) {
            S3Object o = state.requireObject(id).object();
            if (o.state() != S3Object.State.COMMITTED) {
                throw error(OBJECT_STATE, "source object " + id + " is " + o.state());
            }
            if (o.type() != S3Object.Type.STREAM || o.ranges().get(0).streamId() != streamId) {
                throw error(INVALID_REQUEST, "source object " + id + " is not a stream object of stream " + streamId);
            }
            addLive(s, o.ranges().get(0), in);
        }
        List<Span> merged = merge(in);
        List<Span> out = new ArrayList<>();
        addLive(s, spec.range(), out);
        if (merged.size() != 1 || !merged.equals(out)) {
            throw error(OFFSET_MISMATCH, "stream object " + spec.objectId() + " holds " + out + " of stream "
                    + streamId + " but its sources hold " + merged);
        }
        StoredObject commit = committed(target, S3Object.Type.STREAM, spec.objectSize(), List.of(spec.range()),
                target.object().nodeId(), now, -1);
        return new CommitPlan(sources, List.of(), List.of(), List.of(commit));
    }

    private static void checkShape(CommitStreamSetObjectRequest r) {
        if (r.objectId() == NONE) {
            if (!r.ranges().isEmpty()) {
                throw error(INVALID_REQUEST, "ranges given without a stream-set object (object id -1)");
            }
            if (r.streamObjects().isEmpty()) {
                throw error(INVALID_REQUEST, "nothing to commit: no stream-set object and no stream objects");
            }
        } else if (r.ranges().isEmpty()) {
            throw error(INVALID_REQUEST, "stream-set object " + r.objectId() + " without ranges");
        }
        if (r.objectSize() < 0) {
            throw error(INVALID_REQUEST, "stream-set object " + r.objectId() + " has size " + r.objectSize());
        }
        Set<Long> streams = new HashSet<>();
        for (StreamRange range : r.ranges()) {
            if (!streams.add(range.streamId())) {
                throw error(INVALID_REQUEST, "stream-set object " + r.objectId() + " has two ranges of stream "
                        + range.streamId());
            }
        }
        List<Long> ids = new ArrayList<>();
        if (r.objectId() != NONE) {
            ids.add(r.objectId());
        }
        for (StreamObjectSpec spec : r.streamObjects()) {
            if (spec.objectSize() < 0) {
                throw error(INVALID_REQUEST, "stream object " + spec.objectId() + " has size " + spec.objectSize());
            }
            ids.add(spec.objectId());
        }
        ids.addAll(r.compactedObjectIds());
        checkDistinct(ids);
    }

    /** New end offsets for an upload's streams, after checking existence, state, epoch and continuity. */
    private static List<StreamInfo> planAppend(StreamMetadataState state, CommitStreamSetObjectRequest r) {
        Map<Long, List<StreamRange>> byStream = new LinkedHashMap<>();
        for (StreamRange range : allRanges(r)) {
            StreamInfo s = state.stream(range.streamId());
            if (s == null) {
                throw error(STREAM_NOT_FOUND, "stream " + range.streamId());
            }
            if (s.state() != StreamInfo.State.OPEN) {
                throw error(STREAM_NOT_OPEN, "commit to closed stream " + s.streamId());
            }
            if (range.epoch() != s.epoch()) {
                throw error(FENCED, "commit to stream " + s.streamId() + " with epoch " + range.epoch()
                        + ", its epoch is " + s.epoch());
            }
            byStream.computeIfAbsent(range.streamId(), k -> new ArrayList<>()).add(range);
        }
        List<StreamInfo> updates = new ArrayList<>();
        for (Map.Entry<Long, List<StreamRange>> e : byStream.entrySet()) {
            StreamInfo s = state.stream(e.getKey());
            long expected = s.endOffset();
            for (StreamRange range : sortedByStart(e.getValue())) {
                if (range.startOffset() != expected) {
                    throw error(OFFSET_MISMATCH, "commit to stream " + s.streamId() + " at " + range.startOffset()
                            + ", expected " + expected);
                }
                expected = range.endOffset();
            }
            updates.add(new StreamInfo(s.streamId(), s.epoch(), s.state(), s.startOffset(), expected,
                    s.ownerNodeId()));
        }
        return updates;
    }

    /** Checks that a compaction's output holds exactly the compacted objects' live data. */
    private static void checkCompaction(StreamMetadataState state, CommitStreamSetObjectRequest r,
            List<StoredObject> compacted) {
        Map<Long, List<Span>> in = new TreeMap<>();
        for (StoredObject c : compacted) {
            for (StreamRange range : c.object().ranges()) {
                addLive(state.stream(range.streamId()), range, in.computeIfAbsent(range.streamId(),
                        k -> new ArrayList<>()));
            }
        }
        Map<Long, List<StreamRange>> outRanges = new TreeMap<>();
        for (StreamRange range : allRanges(r)) {
            outRanges.computeIfAbsent(range.streamId(), k -> new ArrayList<>()).add(range);
        }
        Map<Long, List<Span>> out = new TreeMap<>();
        for (Map.Entry<Long, List<StreamRange>> e : outRanges.entrySet()) {
            long prevEnd = Long.MIN_VALUE;
            List<Span> live = out.computeIfAbsent(e.getKey(), k -> new ArrayList<>());
            for (StreamRange range : sortedByStart(e.getValue())) {
                if (range.startOffset() < prevEnd) {
                    throw error(INVALID_REQUEST, "compaction output overlaps itself in stream " + e.getKey()
                            + " at " + range.startOffset());
                }
                prevEnd = range.endOffset();
                addLive(state.stream(e.getKey()), range, live);
            }
        }
        Set<Long> streamIds = new TreeSet<>(in.keySet());
        streamIds.addAll(out.keySet());
        for (long streamId : streamIds) {
            List<Span> before = merge(in.getOrDefault(streamId, List.of()));
            List<Span> after = merge(out.getOrDefault(streamId, List.of()));
            if (!before.equals(after)) {
                throw error(OFFSET_MISMATCH, "compaction output holds " + after + " of stream " + streamId
                        + " but the compacted objects hold " + before);
            }
        }
    }

    /** Adds the live part of {@code range} (at or above the start of stream {@code s}; none if deleted). */
    private static void addLive(StreamInfo s, StreamRange range, List<Span> into) {
        if (s == null) {
            return;
        }
        long start = Math.max(range.startOffset(), s.startOffset());
        if (start < range.endOffset()) {
            into.add(new Span(start, range.endOffset()));
        }
    }

    /** Sorted, with touching or overlapping spans joined. */
    private static List<Span> merge(List<Span> spans) {
        List<Span> sorted = new ArrayList<>(spans);
        sorted.sort(Comparator.comparingLong(Span::start));
        List<Span> out = new ArrayList<>();
        for (Span s : sorted) {
            Span last = out.isEmpty() ? null : out.get(out.size() - 1);
            if (last != null && s.start() <= last.end()) {
                out.set(out.size() - 1, new Span(last.start(), Math.max(last.end(), s.end())));
            } else {
                out.add(s);
            }
        }
        return out;
    }

    private static List<StreamRange> allRanges(CommitStreamSetObjectRequest r) {
        List<StreamRange> all = new ArrayList<>(r.ranges());
        for (StreamObjectSpec spec : r.streamObjects()) {
            all.add(spec.range());
        }
        return all;
    }

    private static List<StreamRange> sortedByStart(List<StreamRange> ranges) {
        List<StreamRange> sorted = new ArrayList<>(ranges);
        sorted.sort(Comparator.comparingLong(StreamRange::startOffset));
        return sorted;
    }

    static void checkDistinct(List<Long> ids) {
        Set<Long> seen = new HashSet<>();
        for (long id : ids) {
            if (!seen.add(id)) {
                throw error(INVALID_REQUEST, "object " + id + " appears twice in one commit");
            }
        }
    }

    static StoredObject requirePrepared(StreamMetadataState state, long id, long now) {
        StoredObject e = state.requireObject(id);
        if (e.object().state() != S3Object.State.PREPARED) {
            throw error(OBJECT_STATE, "object " + id + " is " + e.object().state() + ", not prepared");
        }
        if (e.preparedUntilMs() <= now) {
            throw error(OBJECT_STATE, "prepared object " + id + " expired at " + e.preparedUntilMs());
        }
        return e;
    }

    private static StoredObject requireCommittedStreamSet(StreamMetadataState state, long id) {
        StoredObject e = state.requireObject(id);
        if (e.object().state() != S3Object.State.COMMITTED) {
            throw error(OBJECT_STATE, "compacted object " + id + " is " + e.object().state());
        }
        if (e.object().type() != S3Object.Type.STREAM_SET) {
            throw error(INVALID_REQUEST, "compacted object " + id + " is not a stream-set object");
        }
        return e;
    }

    static StoredObject committed(StoredObject prepared, S3Object.Type type, long size,
            List<StreamRange> ranges, int nodeId, long now, long orderKey) {
        S3Object o = new S3Object(prepared.id(), type, S3Object.State.COMMITTED, size, ranges, nodeId, now, -1);
        return new StoredObject(o, prepared.preparedUntilMs(), orderKey);
    }
}
