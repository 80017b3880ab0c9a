package io.aloft.stream.metadata;

import static io.aloft.stream.metadata.StateFixture.NODE;
import static io.aloft.stream.metadata.StateFixture.SIZE;
import static io.aloft.stream.metadata.StateFixture.TTL_MS;
import static io.aloft.stream.metadata.StateFixture.range;
import static io.aloft.stream.metadata.StreamMetadataException.Code.FENCED;
import static io.aloft.stream.metadata.StreamMetadataException.Code.INVALID_REQUEST;
import static io.aloft.stream.metadata.StreamMetadataException.Code.OBJECT_NOT_FOUND;
import static io.aloft.stream.metadata.StreamMetadataException.Code.OBJECT_STATE;
import static io.aloft.stream.metadata.StreamMetadataException.Code.OFFSET_MISMATCH;
import static io.aloft.stream.metadata.StreamMetadataException.Code.STREAM_NOT_FOUND;
import static io.aloft.stream.metadata.StreamMetadataException.Code.STREAM_NOT_OPEN;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Range replacements (a key compaction's commit): validation, fencing, and what happens to the old objects. */
class StreamMetadataStateReplaceRangeTest {

    private final StateFixture f = new StateFixture();
    private final StreamMetadataState state = f.state;
    private long a;
    private long b;
    private long shared;
    private long second;
    private long streamObject;

    /** a [0,10) and b [0,5) in one stream-set object; a [10,20) in another; a [20,30) in a stream object. */
    @BeforeEach
    void uploads() {
        a = f.openStream();
        b = f.openStream();
        shared = f.commitStreamSet(range(a, 1, 0, 10), range(b, 1, 0, 5));
        second = f.commitStreamSet(range(a, 1, 10, 20));
        streamObject = f.commitStreamObject(range(a, 1, 20, 30));
    }

    private StreamObjectSpec spec(long id, long start, long end) {
        return new StreamObjectSpec(id, SIZE, range(a, 1, start, end));
    }

    private ReplaceStreamRangeRequest request(long start, long end, StreamObjectSpec... objects) {
        return new ReplaceStreamRangeRequest(a, 1, start, end, List.of(objects), f.now);
    }

    @Test
    void replaceStreamRange_wholeStream_newObjectsServeItAndOldOnesGiveItUp() {
        long first = f.prepare(2);
        f.now = 2_000;

        state.replaceStreamRange(request(0, 30, spec(first, 0, 15), spec(first + 1, 15, 30)));

        assertEquals(List.of(first, first + 1), f.objectIds(a));
        // The shared object keeps b's data, and only that.
        assertEquals(S3Object.State.COMMITTED, f.stateOf(shared));
        assertEquals(List.of(range(b, 1, 0, 5)), f.object(shared).ranges());
        assertEquals(List.of(shared), f.objectIds(b));
        assertEquals(S3Object.State.MARKED_FOR_DELETION, f.stateOf(second));
        assertEquals(2_000, f.object(second).markedForDeletionAtMs());
        assertEquals(S3Object.State.MARKED_FOR_DELETION, f.stateOf(streamObject));
        assertEquals(S3Object.Type.STREAM, f.object(first).type());
        assertEquals(30, state.describeStream(a).endOffset(), "offsets never move");
        assertEquals(0, state.describeStream(a).startOffset());
        state.checkConsistency();
    }

    @Test
    void replaceStreamRange_endInsideAnObjectsRange_shrinksThatRange() {
        long id = f.prepare();

        state.replaceStreamRange(request(0, 15, spec(id, 0, 15)));

        assertEquals(List.of(range(a, 1, 15, 20)), f.object(second).ranges());
        assertEquals(S3Object.State.COMMITTED, f.stateOf(second));
        assertEquals(List.of(id, second, streamObject), f.objectIds(a));
        assertEquals(List.of(range(a, 1, 15, 20)), state.getObjects(a, 16, 17, 10).stream()
                .map(ObjectRef::range).toList());
        state.checkConsistency();
    }

    @Test
    void replaceStreamRange_startAboveObjectStart_keepsTheLivePartBelow() {
        long id = f.prepare();

        state.replaceStreamRange(request(15, 30, spec(id, 15, 30)));

        assertEquals(List.of(range(a, 1, 10, 15)), f.object(second).ranges());
        assertEquals(List.of(shared, second, id), f.objectIds(a));
        assertEquals(S3Object.State.MARKED_FOR_DELETION, f.stateOf(streamObject));
        state.checkConsistency();
    }

    @Test
    void replaceStreamRange_insideOneRange_refusedAsItWouldSplitTheObject() {
        long id = f.prepare();

        f.assertRejected(INVALID_REQUEST, () -> state.replaceStreamRange(request(12, 18, spec(id, 12, 18))));
    }

    @Test
    void replaceStreamRange_belowTheStreamStart_deadPartIsNotKept() {
        state.trimStream(new TrimStreamRequest(a, 1, 12));
        long id = f.prepare();

        // [12, 18) inside [10, 20): the part below 12 is dead, so nothing live stays on both sides.
        state.replaceStreamRange(request(12, 18, spec(id, 12, 18)));

        assertEquals(List.of(range(a, 1, 18, 20)), f.object(second).ranges());
        assertEquals(List.of(id, second, streamObject), f.objectIds(a));
        state.checkConsistency();
    }

    @Test
    void replaceStreamRange_staleEpoch_fenced() {
        long id = f.prepare();
        state.openStream(new OpenStreamRequest(a, 2, NODE));

        f.assertRejected(FENCED, () -> state.replaceStreamRange(request(0, 30, spec(id, 0, 30))));
    }

    @Test
    void replaceStreamRange_closedOrMissingStream_refused() {
        long id = f.prepare();
        f.assertRejected(STREAM_NOT_FOUND, () -> state.replaceStreamRange(new ReplaceStreamRangeRequest(99, 1, 0,
                10, List.of(new StreamObjectSpec(id, SIZE, range(99, 1, 0, 10))), f.now)));
        state.closeStream(new CloseStreamRequest(a, 1, NODE));
        f.assertRejected(STREAM_NOT_OPEN, () -> state.replaceStreamRange(request(0, 30, spec(id, 0, 30))));
    }

    @Test
    void replaceStreamRange_objectsThatDoNotTileTheRange_offsetMismatch() {
        long first = f.prepare(2);
        f.assertRejected(OFFSET_MISMATCH, () -> state.replaceStreamRange(request(0, 30, spec(first, 0, 10),
                spec(first + 1, 11, 30))));
        f.assertRejected(OFFSET_MISMATCH, () -> state.replaceStreamRange(request(0, 30, spec(first, 0, 10),
                spec(first + 1, 5, 30))));
        f.assertRejected(OFFSET_MISMATCH, () -> state.replaceStreamRange(request(0, 30, spec(first, 0, 10),
                spec(first + 1, 10, 25))));
        f.assertRejected(OFFSET_MISMATCH, () -> state.replaceStreamRange(request(0, 30, spec(first, 1, 10),
                spec(first + 1, 10, 30))));
    }

    @Test
    void replaceStreamRange_pastTheCommittedEnd_offsetMismatch() {
        long id = f.prepare();
        f.assertRejected(OFFSET_MISMATCH, () -> state.replaceStreamRange(request(0, 31, spec(id, 0, 31))));
    }

    @Test
    void replaceStreamRange_badShapes_invalidRequest() {
        long id = f.prepare();
        f.assertRejected(INVALID_REQUEST, () -> state.replaceStreamRange(request(0, 30)));
        f.assertRejected(INVALID_REQUEST, () -> state.replaceStreamRange(new ReplaceStreamRangeRequest(a, 1, -1, 30,
                List.of(spec(id, -1, 30)), f.now)));
        f.assertRejected(INVALID_REQUEST, () -> state.replaceStreamRange(request(0, 30,
                new StreamObjectSpec(id, SIZE, range(b, 1, 0, 30)))));
        f.assertRejected(INVALID_REQUEST, () -> state.replaceStreamRange(request(0, 30,
                new StreamObjectSpec(id, SIZE, range(a, 7, 0, 30)))));
        f.assertRejected(INVALID_REQUEST, () -> state.replaceStreamRange(request(0, 30,
                new StreamObjectSpec(id, -1, range(a, 1, 0, 30)))));
        f.assertRejected(INVALID_REQUEST, () -> state.replaceStreamRange(request(0, 30, spec(id, 0, 10),
                spec(id, 10, 30))));
    }

    @Test
    void replaceStreamRange_objectsNotPrepared_refused() {
        f.assertRejected(OBJECT_NOT_FOUND, () -> state.replaceStreamRange(request(0, 30, spec(12_345, 0, 30))));
        f.assertRejected(OBJECT_STATE, () -> state.replaceStreamRange(request(0, 30, spec(second, 0, 30))));
        long id = f.prepare();
        f.now += TTL_MS;
        f.assertRejected(OBJECT_STATE, () -> state.replaceStreamRange(request(0, 30, spec(id, 0, 30))));
    }

    @Test
    void replaceStreamRange_committedTwice_secondOneRefused() {
        long id = f.prepare();
        state.replaceStreamRange(request(0, 30, spec(id, 0, 30)));

        f.assertRejected(OBJECT_STATE, () -> state.replaceStreamRange(request(0, 30, spec(id, 0, 30))));
    }

    @Test
    void replaceStreamRange_trimmedPastItMeanwhile_newObjectsMarkedAtOnce() {
        long id = f.prepare();
        state.trimStream(new TrimStreamRequest(a, 1, 30));

        state.replaceStreamRange(request(0, 30, spec(id, 0, 30)));

        assertEquals(S3Object.State.MARKED_FOR_DELETION, f.stateOf(id));
        assertEquals(List.of(), f.objectIds(a));
        state.checkConsistency();
    }

    @Test
    void replaceStreamRange_thenMergingTheSharedObject_mergeMustLeaveOutTheReplacedRange() {
        long id = f.prepare();
        state.replaceStreamRange(request(0, 30, spec(id, 0, 30)));
        long other = f.commitStreamSet(range(b, 1, 5, 9));
        long merged = f.prepare();

        // A merge that still copies a's old data from the shared object does not match metadata.
        f.assertRejected(OFFSET_MISMATCH, () -> state.commitStreamSetObject(f.request(merged,
                List.of(range(a, 1, 0, 10), range(b, 1, 0, 9)), List.of(), List.of(shared, other))));
        state.commitStreamSetObject(f.request(merged, List.of(range(b, 1, 0, 9)), List.of(), List.of(shared, other)));

        assertEquals(S3Object.State.MARKED_FOR_DELETION, f.stateOf(shared));
        assertEquals(List.of(merged), f.objectIds(b));
        assertEquals(List.of(id), f.objectIds(a));
        state.checkConsistency();
    }

    @Test
    void replaceStreamRange_replacedObjectsAreDeletedAfterTheDelay() {
        long id = f.prepare();
        f.now = 5_000;
        state.replaceStreamRange(request(0, 30, spec(id, 0, 30)));

        assertEquals(List.of(), state.getObjectsToDelete(5_999, 1_000));
        assertEquals(List.of(second, streamObject), state.getObjectsToDelete(6_000, 1_000).stream()
                .map(S3Object::objectId).toList());
    }

    @Test
    void replaceStreamRange_snapshotRestoresTheSameState() {
        long id = f.prepare();
        state.replaceStreamRange(request(0, 15, spec(id, 0, 15)));

        StreamMetadataState restored = StreamMetadataState.restore(state.snapshot());

        assertEquals(state.dump(), restored.dump());
        restored.checkConsistency();
        assertEquals(state.getObjects(a, 0, -1, 10), restored.getObjects(a, 0, -1, 10));
    }
}
