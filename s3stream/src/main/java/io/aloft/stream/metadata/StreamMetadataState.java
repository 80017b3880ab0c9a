package io.aloft.stream.metadata;

import static io.aloft.stream.metadata.StreamMetadataException.Code.FENCED;
import static io.aloft.stream.metadata.StreamMetadataException.Code.INVALID_REQUEST;
import static io.aloft.stream.metadata.StreamMetadataException.Code.OBJECT_NOT_FOUND;
import static io.aloft.stream.metadata.StreamMetadataException.Code.OBJECT_STATE;
import static io.aloft.stream.metadata.StreamMetadataException.Code.STREAM_NOT_FOUND;
import static io.aloft.stream.metadata.StreamMetadataException.Code.STREAM_NOT_OPEN;

import io.aloft.stream.metadata.StreamMetadataException.Code;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The stream and object metadata as a deterministic state machine: the logic behind every
 * {@link StreamMetadata} implementation. {@link MemoryStreamMetadata} wraps it with a lock; the
 * broker's Ratis controller applies replicated commands to it.
 *
 * <p>Not thread-safe: confined to one thread, or externally synchronized.
 *
 * <h2>Determinism and atomicity</h2>
 * Every command method first validates against the current state without changing it, throwing
 * {@link StreamMetadataException} on the first problem, and only then applies its changes with
 * code that cannot fail. So a rejected command changes nothing, and the same commands in the same
 * order give the same state on every replica. There is no clock and no randomness inside: time is
 * the {@code nowMs} that commands carry, and the state's clock is the largest one applied so far
 * (it never runs backwards, whatever the callers' clocks do). Commands that carry time also expire
 * prepared objects whose ttl has passed and stamp objects marked for deletion by commands without
 * time; both happen only once the command is accepted.
 *
 * <h2>State</h2>
 * Primary (in {@link #snapshot()}): streams, objects, id counters and the clock. Derived (rebuilt by
 * {@link #restore}): per stream, the committed objects with live data of it, keyed by the start of
 * their range (a TreeMap, so an offset lookup is a floor plus a walk); per node, its committed
 * stream-set objects by order key; prepared deadlines; marked and unstamped ids.
 *
 * <h2>Liveness</h2>
 * A range of a committed object is live while its stream exists and the range ends above the
 * stream's start offset. Live ranges of one stream never overlap, so their start offsets are
 * unique keys. An object with no live range left is marked for deletion at once.
 *
 * <h2>Epochs</h2>
 * Close, trim and delete need the stream's current epoch exactly: a lower one is a stale owner, a
 * higher one an owner whose open never took effect; both get {@code FENCED}, so a caller has one
 * rule: "not the owner, stop". Open needs an epoch above the current one.
 */
public final class StreamMetadataState {

    /** An object or stream id meaning "none". */
    static final long NONE = -1;

    /** The most ids one prepare may allocate: a bound, so one command cannot exhaust every replica's memory. */
    public static final int MAX_PREPARE_COUNT = 10_000;

    private static final Comparator<Deadline> DEADLINE_ORDER =
            Comparator.comparingLong(Deadline::atMs).thenComparingLong(Deadline::objectId);

    // Primary state.
    private long nextStreamId;
    private long nextObjectId;
    private long nextOrderKey;
    private long clockMs;
    private final TreeMap<Long, StreamInfo> streams = new TreeMap<>();
    private final TreeMap<Long, StoredObject> objects = new TreeMap<>();

    // Derived state, kept in step by index()/unindex() whenever an object or a stream's start changes.
    private final Map<Long, TreeMap<Long, ObjectRef>> liveRanges = new HashMap<>();
    private final Map<Integer, TreeMap<Long, Long>> streamSetObjectsByNode = new HashMap<>();
    private final TreeSet<Deadline> preparedDeadlines = new TreeSet<>(DEADLINE_ORDER);
    private final TreeSet<Long> marked = new TreeSet<>();
    private final TreeSet<Long> unstamped = new TreeSet<>();

    private record Deadline(long atMs, long objectId) {
    }

    /** An empty state: no streams, no objects, clock at 0. */
    public StreamMetadataState() {
    }

    // ---- streams ----

    /** Creates an empty closed stream with epoch 0 and returns its id. */
    public long createStream(CreateStreamRequest request) {
        Objects.requireNonNull(request, "request");
        long id = nextStreamId++;
        streams.put(id, new StreamInfo(id, 0, StreamInfo.State.CLOSED, 0, 0, -1));
        return id;
    }

    /** Opens (or takes over) a stream with a higher epoch; returns its new state. */
    public StreamInfo openStream(OpenStreamRequest request) {
        StreamInfo s = requireStream(request.streamId());
        if (request.epoch() <= s.epoch()) {
            throw error(FENCED, "open of stream " + s.streamId() + " with epoch " + request.epoch()
                    + ", not above its epoch " + s.epoch());
        }
        StreamInfo opened = new StreamInfo(s.streamId(), request.epoch(), StreamInfo.State.OPEN, s.startOffset(),
                s.endOffset(), request.nodeId());
        streams.put(s.streamId(), opened);
        return opened;
    }

    /** Closes a stream. Closing a closed stream with its current epoch succeeds, so retries are safe. */
    public void closeStream(CloseStreamRequest request) {
        StreamInfo s = requireStream(request.streamId());
        checkEpoch(s, request.epoch(), "close");
        if (s.state() == StreamInfo.State.CLOSED) {
            return;
        }
        streams.put(s.streamId(), new StreamInfo(s.streamId(), s.epoch(), StreamInfo.State.CLOSED, s.startOffset(),
                s.endOffset(), -1));
    }

    /**
     * Moves an open stream's start forward (not past its end: {@code INVALID_REQUEST}; not backwards:
     * a no-op) and releases objects left without live data.
     */
    public void trimStream(TrimStreamRequest request) {
        StreamInfo s = requireStream(request.streamId());
        checkEpoch(s, request.epoch(), "trim");
        if (s.state() != StreamInfo.State.OPEN) {
            throw error(STREAM_NOT_OPEN, "trim of closed stream " + s.streamId());
        }
        long newStart = request.newStartOffset();
        if (newStart > s.endOffset()) {
            throw error(INVALID_REQUEST, "trim of stream " + s.streamId() + " to " + newStart + ", past its end "
                    + s.endOffset());
        }
        if (newStart <= s.startOffset()) {
            return;
        }
        streams.put(s.streamId(), new StreamInfo(s.streamId(), s.epoch(), s.state(), newStart, s.endOffset(),
                s.ownerNodeId()));
        List<ObjectRef> dropped = new ArrayList<>();
        TreeMap<Long, ObjectRef> ranges = liveRanges.get(s.streamId());
        if (ranges != null) {
            // Live ranges are disjoint, so ordered by start they are ordered by end too.
            Iterator<ObjectRef> it = ranges.values().iterator();
            while (it.hasNext()) {
                ObjectRef ref = it.next();
                if (ref.range().endOffset() > newStart) {
                    break;
                }
                dropped.add(ref);
                it.remove();
            }
            if (ranges.isEmpty()) {
                liveRanges.remove(s.streamId());
            }
        }
        releaseIfDead(dropped);
    }

    /** Deletes a stream (any state, current epoch) and releases every object left without live data. */
    public void deleteStream(DeleteStreamRequest request) {
        StreamInfo s = requireStream(request.streamId());
        checkEpoch(s, request.epoch(), "delete");
        streams.remove(s.streamId());
        TreeMap<Long, ObjectRef> ranges = liveRanges.remove(s.streamId());
        if (ranges != null) {
            releaseIfDead(ranges.values());
        }
    }

    // ---- objects ----

    /** Allocates consecutive prepared ids; returns the first. */
    public long prepareObjects(PrepareObjectsRequest request) {
        if (request.count() < 1 || request.count() > MAX_PREPARE_COUNT || request.ttlMs() <= 0) {
            throw error(INVALID_REQUEST, "prepare of " + request.count() + " objects with ttl " + request.ttlMs()
                    + " ms; count must be 1 to " + MAX_PREPARE_COUNT + " and ttl positive");
        }
        long now = effectiveNow(request.nowMs());
        advanceClock(now);
        long until = saturatedAdd(now, request.ttlMs());
        long first = nextObjectId;
        for (int i = 0; i < request.count(); i++) {
            long id = nextObjectId++;
            S3Object o = new S3Object(id, S3Object.Type.UNKNOWN, S3Object.State.PREPARED, 0, List.of(),
                    request.nodeId(), -1, -1);
            replace(null, new StoredObject(o, until, -1));
        }
        return first;
    }

    /** Commits a stream-set object and its split-out stream objects; the rules are in {@code CommitPlanner}. */
    public void commitStreamSetObject(CommitStreamSetObjectRequest request) {
        long now = effectiveNow(request.nowMs());
        CommitPlan plan = CommitPlanner.planStreamSetObject(this, request, now);
        advanceClock(now);
        apply(plan, now);
    }

    /** Commits a stream object made by compaction; the rules are in {@code CommitPlanner}. */
    public void commitStreamObject(CommitStreamObjectRequest request) {
        long now = effectiveNow(request.nowMs());
        CommitPlan plan = CommitPlanner.planStreamObject(this, request, now);
        advanceClock(now);
        apply(plan, now);
    }

    /**
     * Replaces a range of an open stream with new stream objects (a key compaction's commit); the
     * rules are in {@code RangeReplacementPlanner}.
     */
    public void replaceStreamRange(ReplaceStreamRangeRequest request) {
        long now = effectiveNow(request.nowMs());
        CommitPlan plan = RangeReplacementPlanner.plan(this, request, now);
        advanceClock(now);
        apply(plan, now);
    }

    /**
     * Objects marked for deletion at least {@code delayMs} before {@code nowMs}, by id. A command, not
     * a query: it advances the clock, so prepared objects past their ttl are marked (as of their
     * deadline) and marks without time are stamped with {@code nowMs} (and so wait the full delay).
     */
    public List<S3Object> getObjectsToDelete(long nowMs, long delayMs) {
        if (delayMs < 0) {
            throw error(INVALID_REQUEST, "negative deletion delay " + delayMs);
        }
        long now = effectiveNow(nowMs);
        advanceClock(now);
        List<S3Object> out = new ArrayList<>();
        for (long id : marked) {
            S3Object o = objects.get(id).object();
            if (now - o.markedForDeletionAtMs() >= delayMs) {
                out.add(o);
            }
        }
        return out;
    }

    /** Forgets deleted objects; each must be marked for deletion. Duplicate ids count once. */
    public void objectsDeleted(List<Long> objectIds) {
        Set<Long> ids = new LinkedHashSet<>(objectIds);
        for (long id : ids) {
            StoredObject e = requireObject(id);
            if (e.object().state() != S3Object.State.MARKED_FOR_DELETION) {
                throw error(OBJECT_STATE, "object " + id + " is " + e.object().state() + ", not marked for deletion");
            }
        }
        for (long id : ids) {
            unindex(objects.remove(id));
        }
    }

    // ---- queries (no state change) ----

    /** Committed objects with live data of the stream overlapping [start, end), by offset; end -1 = no end. */
    public List<ObjectRef> getObjects(long streamId, long startOffset, long endOffset, int limit) {
        return liveRangesOverlapping(streamId, startOffset, endOffset, limit, null);
    }

    /** Committed stream objects of the stream overlapping [start, end), by offset; end -1 = no end. */
    public List<S3Object> getStreamObjects(long streamId, long startOffset, long endOffset, int limit) {
        List<S3Object> out = new ArrayList<>();
        for (ObjectRef ref : liveRangesOverlapping(streamId, startOffset, endOffset, limit, S3Object.Type.STREAM)) {
            out.add(objects.get(ref.objectId()).object());
        }
        return out;
    }

    /** The node's committed stream-set objects, oldest first (by order key). */
    public List<S3Object> getStreamSetObjects(int nodeId) {
        List<S3Object> out = new ArrayList<>();
        TreeMap<Long, Long> byOrder = streamSetObjectsByNode.get(nodeId);
        if (byOrder != null) {
            for (long id : byOrder.values()) {
                out.add(objects.get(id).object());
            }
        }
        return out;
    }

    /** The stream's state; {@code STREAM_NOT_FOUND} if it does not exist. */
    public StreamInfo describeStream(long streamId) {
        return requireStream(streamId);
    }

    /** Every live range of the stream overlapping [start, end), by offset (for the planners). */
    List<ObjectRef> liveRanges(long streamId, long startOffset, long endOffset) {
        return liveRangesOverlapping(streamId, startOffset, endOffset, Integer.MAX_VALUE, null);
    }

    /** The object, or null (package use: tests and the planner). */
    StoredObject object(long objectId) {
        return objects.get(objectId);
    }

    /** The stream, or null. */
    StreamInfo stream(long streamId) {
        return streams.get(streamId);
    }

    // ---- snapshots ----

    /** The whole primary state as plain values. */
    public StreamMetadataSnapshot snapshot() {
        return new StreamMetadataSnapshot(nextStreamId, nextObjectId, nextOrderKey, clockMs,
                new ArrayList<>(streams.values()), new ArrayList<>(objects.values()));
    }

    /** A state equal to the one {@code snapshot} was taken of; derived indexes are rebuilt. */
    public static StreamMetadataState restore(StreamMetadataSnapshot snapshot) {
        StreamMetadataState state = new StreamMetadataState();
        state.nextStreamId = snapshot.nextStreamId();
        state.nextObjectId = snapshot.nextObjectId();
        state.nextOrderKey = snapshot.nextOrderKey();
        state.clockMs = snapshot.clockMs();
        for (StreamInfo s : snapshot.streams()) {
            state.streams.put(s.streamId(), s);
        }
        // Streams first: whether a range is live depends on its stream.
        for (StoredObject o : snapshot.objects()) {
            state.replace(null, o);
        }
        return state;
    }

    /** An independent copy. */
    public StreamMetadataState copy() {
        return restore(snapshot());
    }

    /** The canonical text form of {@link #snapshot()}. */
    public String dump() {
        return snapshot().dump();
    }

    /**
     * Fails if the incrementally kept indexes differ from ones rebuilt from the primary state, a
     * committed object has no live data, or live ranges overlap (tests).
     */
    void checkConsistency() {
        StreamMetadataState rebuilt = restore(snapshot());
        if (!liveRanges.equals(rebuilt.liveRanges)
                || !streamSetObjectsByNode.equals(rebuilt.streamSetObjectsByNode)
                || !preparedDeadlines.equals(rebuilt.preparedDeadlines)
                || !marked.equals(rebuilt.marked)
                || !unstamped.equals(rebuilt.unstamped)) {
            throw new IllegalStateException("derived indexes out of step with the primary state:\n" + dump());
        }
        for (StoredObject o : objects.values()) {
            if (o.object().state() == S3Object.State.COMMITTED && !hasLiveData(o.object())) {
                throw new IllegalStateException("committed object " + o.id() + " has no live data:\n" + dump());
            }
        }
        for (Map.Entry<Long, TreeMap<Long, ObjectRef>> e : liveRanges.entrySet()) {
            long prevEnd = Long.MIN_VALUE;
            for (ObjectRef ref : e.getValue().values()) {
                if (ref.range().startOffset() < prevEnd) {
                    throw new IllegalStateException("overlapping live ranges in stream " + e.getKey() + ":\n" + dump());
                }
                prevEnd = ref.range().endOffset();
            }
        }
    }

    // ---- internals ----

    /** True if some range of the object is live (its stream exists and it ends above the stream's start). */
    boolean hasLiveData(S3Object o) {
        for (StreamRange r : o.ranges()) {
            StreamInfo s = streams.get(r.streamId());
            if (s != null && r.endOffset() > s.startOffset()) {
                return true;
            }
        }
        return false;
    }

    /** Up to {@code limit} live ranges of the stream overlapping [start, end), of {@code type} (null: any). */
    private List<ObjectRef> liveRangesOverlapping(long streamId, long startOffset, long endOffset, int limit,
            S3Object.Type type) {
        if (limit < 1 || startOffset < 0 || (endOffset != -1 && endOffset < startOffset)) {
            throw error(INVALID_REQUEST, "bad range query [" + startOffset + ", " + endOffset + ") limit " + limit
                    + " on stream " + streamId);
        }
        StreamInfo s = requireStream(streamId);
        long from = Math.max(startOffset, s.startOffset());
        TreeMap<Long, ObjectRef> ranges = liveRanges.get(streamId);
        if (ranges == null || (endOffset != -1 && from >= endOffset)) {
            return List.of();
        }
        // Ranges are disjoint: only the one starting at or below `from` can contain it.
        Long floor = ranges.floorKey(from);
        NavigableMap<Long, ObjectRef> tail = floor == null ? ranges : ranges.tailMap(floor, true);
        List<ObjectRef> out = new ArrayList<>();
        for (ObjectRef ref : tail.values()) {
            if (endOffset != -1 && ref.range().startOffset() >= endOffset) {
                break;
            }
            if (ref.range().endOffset() > from && (type == null || ref.type() == type)) {
                out.add(ref);
                if (out.size() == limit) {
                    break;
                }
            }
        }
        return out;
    }

    private void apply(CommitPlan plan, long now) {
        // Replaced objects go first so their ranges leave the index before the new ones arrive.
        for (long id : plan.markIds()) {
            StoredObject old = objects.get(id);
            replace(old, old.markedForDeletion(now));
        }
        for (StoredObject changed : plan.objectUpdates()) {
            replace(objects.get(changed.id()), changed);
        }
        for (StreamInfo s : plan.streamUpdates()) {
            streams.put(s.streamId(), s);
        }
        for (StoredObject c : plan.commits()) {
            StoredObject committed = c;
            if (c.object().type() == S3Object.Type.STREAM_SET && c.orderKey() == -1) {
                committed = new StoredObject(c.object(), c.preparedUntilMs(), nextOrderKey++);
            }
            if (!hasLiveData(committed.object())) {
                // Compaction raced a trim or delete: everything it wrote is already dead.
                committed = committed.markedForDeletion(now);
            }
            replace(objects.get(c.id()), committed);
        }
    }

    /** Marks (without time) each referenced object that no longer has live data. */
    private void releaseIfDead(Iterable<ObjectRef> refs) {
        for (ObjectRef ref : refs) {
            StoredObject e = objects.get(ref.objectId());
            if (e.object().state() == S3Object.State.COMMITTED && !hasLiveData(e.object())) {
                replace(e, e.markedForDeletion(-1));
            }
        }
    }

    private long effectiveNow(long nowMs) {
        return Math.max(clockMs, nowMs);
    }

    /** Moves the clock to {@code now}: expires prepared objects and stamps unstamped marks. */
    private void advanceClock(long now) {
        clockMs = now;
        while (!preparedDeadlines.isEmpty() && preparedDeadlines.first().atMs() <= now) {
            Deadline d = preparedDeadlines.first();
            StoredObject e = objects.get(d.objectId());
            // Marked as of the deadline, not of whenever a command happened to notice it.
            replace(e, e.markedForDeletion(d.atMs()));
        }
        for (long id : new ArrayList<>(unstamped)) {
            StoredObject e = objects.get(id);
            replace(e, e.markedForDeletion(now));
        }
    }

    /** Stores {@code now} in place of {@code old} (either may be null) and keeps every index in step. */
    private void replace(StoredObject old, StoredObject now) {
        if (old != null) {
            unindex(old);
            objects.remove(old.id());
        }
        if (now != null) {
            objects.put(now.id(), now);
            index(now);
        }
    }

    private void index(StoredObject e) {
        S3Object o = e.object();
        switch (o.state()) {
            case PREPARED -> preparedDeadlines.add(new Deadline(e.preparedUntilMs(), o.objectId()));
            case COMMITTED -> {
                for (StreamRange r : o.ranges()) {
                    StreamInfo s = streams.get(r.streamId());
                    if (s == null || r.endOffset() <= s.startOffset()) {
                        continue;
                    }
                    ObjectRef prev = liveRanges.computeIfAbsent(r.streamId(), k -> new TreeMap<>())
                            .put(r.startOffset(), new ObjectRef(o.objectId(), o.type(), o.size(), r));
                    if (prev != null && prev.objectId() != o.objectId()) {
                        // Validation guarantees disjoint live ranges; reaching here is a bug.
                        throw new IllegalStateException("objects " + prev.objectId() + " and " + o.objectId()
                                + " both start stream " + r.streamId() + " at " + r.startOffset());
                    }
                }
                if (o.type() == S3Object.Type.STREAM_SET) {
                    streamSetObjectsByNode.computeIfAbsent(o.nodeId(), k -> new TreeMap<>())
                            .put(e.orderKey(), o.objectId());
                }
            }
            case MARKED_FOR_DELETION -> {
                marked.add(o.objectId());
                if (o.markedForDeletionAtMs() == -1) {
                    unstamped.add(o.objectId());
                }
            }
        }
    }

    private void unindex(StoredObject e) {
        S3Object o = e.object();
        switch (o.state()) {
            case PREPARED -> preparedDeadlines.remove(new Deadline(e.preparedUntilMs(), o.objectId()));
            case COMMITTED -> {
                for (StreamRange r : o.ranges()) {
                    TreeMap<Long, ObjectRef> ranges = liveRanges.get(r.streamId());
                    // A trim or delete may have dropped this range from the index already.
                    if (ranges != null && ranges.containsKey(r.startOffset())
                            && ranges.get(r.startOffset()).objectId() == o.objectId()) {
                        ranges.remove(r.startOffset());
                        if (ranges.isEmpty()) {
                            liveRanges.remove(r.streamId());
                        }
                    }
                }
                if (o.type() == S3Object.Type.STREAM_SET) {
                    TreeMap<Long, Long> byOrder = streamSetObjectsByNode.get(o.nodeId());
                    byOrder.remove(e.orderKey());
                    if (byOrder.isEmpty()) {
                        streamSetObjectsByNode.remove(o.nodeId());
                    }
                }
            }
            case MARKED_FOR_DELETION -> {
                marked.remove(o.objectId());
                unstamped.remove(o.objectId());
            }
        }
    }

    private StreamInfo requireStream(long streamId) {
        StreamInfo s = streams.get(streamId);
        if (s == null) {
            throw error(STREAM_NOT_FOUND, "stream " + streamId);
        }
        return s;
    }

    StoredObject requireObject(long objectId) {
        StoredObject e = objects.get(objectId);
        if (e == null) {
            throw error(OBJECT_NOT_FOUND, "object " + objectId);
        }
        return e;
    }

    private static void checkEpoch(StreamInfo s, long epoch, String op) {
        if (epoch != s.epoch()) {
            throw error(FENCED, op + " of stream " + s.streamId() + " with epoch " + epoch + ", "
                    + (epoch < s.epoch() ? "below" : "above") + " its epoch " + s.epoch());
        }
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        // Overflow only when both have the same sign and the sum's sign differs.
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }

    static StreamMetadataException error(Code code, String message) {
        return new StreamMetadataException(code, message);
    }
}
