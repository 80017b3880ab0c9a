package io.aloft.stream.metadata;

import static io.aloft.stream.metadata.StateFixture.NODE;
import static io.aloft.stream.metadata.StateFixture.SIZE;
import static io.aloft.stream.metadata.StateFixture.range;
import static io.aloft.stream.metadata.StreamMetadataException.Code.INVALID_REQUEST;
import static io.aloft.stream.metadata.StreamMetadataException.Code.OBJECT_NOT_FOUND;
import static io.aloft.stream.metadata.StreamMetadataException.Code.OBJECT_STATE;
import static io.aloft.stream.metadata.StreamMetadataException.Code.OFFSET_MISMATCH;
import static io.aloft.stream.metadata.StreamMetadataException.Code.STREAM_NOT_FOUND;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Compaction commits: stream-set objects merged or split, stream objects merged. */
class StreamMetadataStateCompactionTest {

    private final StateFixture f = new StateFixture();
    private final StreamMetadataState state = f.state;
    private long a;
    private long b;
    private long first;
    private long second;
    private long third;

    /** Three uploads: a [0,10) b [0,5); a [10,20) b [5,8); a [20,30). */
    @BeforeEach
    void uploads() {
        a = f.openStream();
        b = f.openStream();
        first = f.commitStreamSet(range(a, 1, 0, 10), range(b, 1, 0, 5));
        second = f.commitStreamSet(range(a, 1, 10, 20), range(b, 1, 5, 8));
        third = f.commitStreamSet(range(a, 1, 20, 30));
    }

    private void compact(long id, List<StreamRange> ranges, List<StreamObjectSpec> split, Long... compacted) {
        state.commitStreamSetObject(f.request(id, ranges, split, List.of(compacted)));
    }

    @Test
    void commitStreamSetObject_compaction_replacesObjectsWithoutMovingEnds() {
        long merged = f.prepare();
        f.now = 2_000;

        compact(merged, List.of(range(a, 1, 0, 20), range(b, 1, 0, 8)), List.of(), first, second);

        assertEquals(S3Object.State.MARKED_FOR_DELETION, f.stateOf(first));
        assertEquals(2_000, f.object(first).markedForDeletionAtMs());
        assertEquals(S3Object.State.MARKED_FOR_DELETION, f.stateOf(second));
        assertEquals(30, state.describeStream(a).endOffset());
        assertEquals(8, state.describeStream(b).endOffset());
        assertEquals(List.of(merged, third), f.objectIds(a));
        assertEquals(List.of(merged), f.objectIds(b));
        // The merged object keeps the place of the oldest one it replaces.
        assertEquals(List.of(merged, third), state.getStreamSetObjects(NODE).stream().map(S3Object::objectId).toList());
    }

    @Test
    void commitStreamSetObject_compactionSplittingAStream_streamObjectTakesItsRange() {
        long merged = f.prepare();
        long split = f.prepare();

        compact(merged, List.of(range(b, 1, 0, 8)), List.of(new StreamObjectSpec(split, SIZE, range(a, 1, 0, 20))),
                first, second);

        assertEquals(List.of(split, third), f.objectIds(a));
        assertEquals(S3Object.Type.STREAM, f.object(split).type());
        assertEquals(List.of(merged), f.objectIds(b));
    }

    @Test
    void commitStreamSetObject_compactionIntoStreamObjectsOnly_setObjectIdMinusOne() {
        long sa = f.prepare();
        long sb = f.prepare();

        compact(-1, List.of(), List.of(new StreamObjectSpec(sa, SIZE, range(a, 1, 0, 10)),
                new StreamObjectSpec(sb, SIZE, range(b, 1, 0, 5))), first);

        assertEquals(List.of(sa, second, third), f.objectIds(a));
        assertEquals(List.of(sb, second), f.objectIds(b));
    }

    @Test
    void commitStreamSetObject_compactionWithNonContiguousInputs_gapKept() {
        long merged = f.prepare();
        long split = f.prepare();

        // a [0,10) and [20,30) with [10,20) still in `second`: one range in the set object, one split out.
        compact(merged, List.of(range(a, 1, 0, 10), range(b, 1, 0, 5)),
                List.of(new StreamObjectSpec(split, SIZE, range(a, 1, 20, 30))), first, third);

        assertEquals(List.of(merged, second, split), f.objectIds(a));
    }

    @Test
    void commitStreamSetObject_compactionLosingOrAddingData_offsetMismatch() {
        long merged = f.prepare();

        f.assertRejected(OFFSET_MISMATCH, () -> compact(merged, List.of(range(a, 1, 0, 19), range(b, 1, 0, 8)),
                List.of(), first, second));
        f.assertRejected(OFFSET_MISMATCH, () -> compact(merged, List.of(range(a, 1, 0, 20)), List.of(),
                first, second));
        f.assertRejected(OFFSET_MISMATCH, () -> compact(merged, List.of(range(a, 1, 0, 21), range(b, 1, 0, 8)),
                List.of(), first, second));
        // [0,30) would claim data that `third` holds and is not being compacted.
        f.assertRejected(OFFSET_MISMATCH, () -> compact(merged, List.of(range(a, 1, 0, 30), range(b, 1, 0, 8)),
                List.of(), first, second));
    }

    @Test
    void commitStreamSetObject_compactionOutputOverlapsItself_invalidRequest() {
        long merged = f.prepare();
        long split = f.prepare();

        f.assertRejected(INVALID_REQUEST, () -> compact(merged, List.of(range(a, 1, 0, 10), range(b, 1, 0, 5)),
                List.of(new StreamObjectSpec(split, SIZE, range(a, 1, 5, 10))), first));
    }

    @Test
    void commitStreamSetObject_compactedObjectNotCommittedSetObject_rejected() {
        long merged = f.prepare();
        long prepared = f.prepare();
        long streamObject = f.commitStreamObject(range(a, 1, 30, 40));

        f.assertRejected(OBJECT_STATE, () -> compact(merged, List.of(range(a, 1, 0, 10)), List.of(), prepared));
        f.assertRejected(OBJECT_NOT_FOUND, () -> compact(merged, List.of(range(a, 1, 0, 10)), List.of(), 999L));
        f.assertRejected(INVALID_REQUEST, () -> compact(merged, List.of(range(a, 1, 30, 40)), List.of(),
                streamObject));
    }

    @Test
    void commitStreamSetObject_compactingAnAlreadyCompactedObject_objectState() {
        long merged = f.prepare();
        compact(merged, List.of(range(a, 1, 0, 10), range(b, 1, 0, 5)), List.of(), first);
        long again = f.prepare();

        f.assertRejected(OBJECT_STATE, () -> compact(again, List.of(range(a, 1, 0, 10), range(b, 1, 0, 5)),
                List.of(), first));
    }

    @Test
    void commitStreamSetObject_compactionAfterPartialTrim_keptOrDroppedPrefixAccepted() {
        state.trimStream(new TrimStreamRequest(a, 1, 5));
        long kept = f.prepare();

        compact(kept, List.of(range(a, 1, 0, 10), range(b, 1, 0, 5)), List.of(), first);

        assertEquals(List.of(kept, second, third), f.objectIds(a));
        long dropped = f.prepare();
        compact(dropped, List.of(range(a, 1, 5, 20), range(b, 1, 0, 8)), List.of(), kept, second);
        assertEquals(List.of(dropped, third), f.objectIds(a));
        state.checkConsistency();
    }

    @Test
    void commitStreamSetObject_compactionAfterStreamDeleted_deadOutputMarkedAtOnce() {
        state.deleteStream(new DeleteStreamRequest(b, 1));
        long merged = f.prepare();
        long splitB = f.prepare();
        f.now = 3_000;

        // The compactor read b before it was deleted and still wrote it out.
        compact(merged, List.of(range(a, 1, 0, 20)), List.of(new StreamObjectSpec(splitB, SIZE, range(b, 1, 0, 8))),
                first, second);

        assertEquals(S3Object.State.COMMITTED, f.stateOf(merged));
        assertEquals(S3Object.State.MARKED_FOR_DELETION, f.stateOf(splitB));
        assertEquals(3_000, f.object(splitB).markedForDeletionAtMs());
        assertEquals(List.of(merged, third), f.objectIds(a));
    }

    @Test
    void commitStreamSetObject_compactionKeepingTrimmedData_releasedByLaterTrim() {
        state.trimStream(new TrimStreamRequest(a, 1, 10));
        long merged = f.prepare();

        compact(merged, List.of(range(a, 1, 0, 10), range(b, 1, 0, 5)), List.of(), first);
        state.trimStream(new TrimStreamRequest(b, 1, 5));

        assertEquals(S3Object.State.MARKED_FOR_DELETION, f.stateOf(merged));
        state.checkConsistency();
    }

    @Test
    void commitStreamObject_contiguousSources_replacedByOne() {
        long s1 = f.commitStreamObject(range(a, 1, 30, 40));
        long s2 = f.commitStreamObject(range(a, 1, 40, 45));
        long s3 = f.commitStreamObject(range(a, 1, 45, 60));
        long merged = f.prepare();
        f.now = 4_000;

        state.commitStreamObject(new CommitStreamObjectRequest(new StreamObjectSpec(merged, 99, range(a, 1, 30, 60)),
                List.of(s2, s1, s3), f.now));

        assertEquals(List.of(first, second, third, merged), f.objectIds(a));
        assertEquals(new S3Object(merged, S3Object.Type.STREAM, S3Object.State.COMMITTED, 99,
                List.of(range(a, 1, 30, 60)), NODE, 4_000, -1), f.object(merged));
        for (long s : List.of(s1, s2, s3)) {
            assertEquals(S3Object.State.MARKED_FOR_DELETION, f.stateOf(s));
        }
        assertEquals(60, state.describeStream(a).endOffset());
    }

    @Test
    void commitStreamObject_sourcesNotCoveringExactly_offsetMismatch() {
        long s1 = f.commitStreamObject(range(a, 1, 30, 40));
        long s2 = f.commitStreamObject(range(a, 1, 40, 45));
        long s3 = f.commitStreamObject(range(a, 1, 45, 60));
        long merged = f.prepare();

        // A gap (s2 missing), a short target, a long target.
        f.assertRejected(OFFSET_MISMATCH, () -> state.commitStreamObject(new CommitStreamObjectRequest(
                new StreamObjectSpec(merged, SIZE, range(a, 1, 30, 60)), List.of(s1, s3), f.now)));
        f.assertRejected(OFFSET_MISMATCH, () -> state.commitStreamObject(new CommitStreamObjectRequest(
                new StreamObjectSpec(merged, SIZE, range(a, 1, 30, 44)), List.of(s1, s2), f.now)));
        f.assertRejected(OFFSET_MISMATCH, () -> state.commitStreamObject(new CommitStreamObjectRequest(
                new StreamObjectSpec(merged, SIZE, range(a, 1, 29, 45)), List.of(s1, s2), f.now)));
    }

    @Test
    void commitStreamObject_badSources_rejected() {
        long s1 = f.commitStreamObject(range(a, 1, 30, 40));
        long other = f.commitStreamObject(range(b, 1, 8, 10));
        long merged = f.prepare();
        StreamObjectSpec spec = new StreamObjectSpec(merged, SIZE, range(a, 1, 30, 40));

        f.assertRejected(INVALID_REQUEST, () -> state.commitStreamObject(
                new CommitStreamObjectRequest(spec, List.of(), f.now)));
        f.assertRejected(INVALID_REQUEST, () -> state.commitStreamObject(
                new CommitStreamObjectRequest(spec, List.of(s1, s1), f.now)));
        f.assertRejected(INVALID_REQUEST, () -> state.commitStreamObject(
                new CommitStreamObjectRequest(spec, List.of(first), f.now)));
        f.assertRejected(INVALID_REQUEST, () -> state.commitStreamObject(
                new CommitStreamObjectRequest(spec, List.of(other), f.now)));
        f.assertRejected(OBJECT_NOT_FOUND, () -> state.commitStreamObject(
                new CommitStreamObjectRequest(spec, List.of(777L), f.now)));
        f.assertRejected(OBJECT_STATE, () -> state.commitStreamObject(
                new CommitStreamObjectRequest(new StreamObjectSpec(s1, SIZE, range(a, 1, 30, 40)), List.of(merged),
                        f.now)));
    }

    @Test
    void commitStreamObject_sourceAlreadyReplaced_objectState() {
        long s1 = f.commitStreamObject(range(a, 1, 30, 40));
        long merged = f.prepare();
        state.commitStreamObject(new CommitStreamObjectRequest(new StreamObjectSpec(merged, SIZE,
                range(a, 1, 30, 40)), List.of(s1), f.now));
        long again = f.prepare();

        f.assertRejected(OBJECT_STATE, () -> state.commitStreamObject(new CommitStreamObjectRequest(
                new StreamObjectSpec(again, SIZE, range(a, 1, 30, 40)), List.of(s1), f.now)));
    }

    @Test
    void commitStreamObject_sourcePartlyTrimmed_livePartMustMatch() {
        long s1 = f.commitStreamObject(range(a, 1, 30, 40));
        long s2 = f.commitStreamObject(range(a, 1, 40, 50));
        state.trimStream(new TrimStreamRequest(a, 1, 35));
        long merged = f.prepare();

        f.assertRejected(OFFSET_MISMATCH, () -> state.commitStreamObject(new CommitStreamObjectRequest(
                new StreamObjectSpec(merged, SIZE, range(a, 1, 36, 50)), List.of(s1, s2), f.now)));
        state.commitStreamObject(new CommitStreamObjectRequest(
                new StreamObjectSpec(merged, SIZE, range(a, 1, 35, 50)), List.of(s1, s2), f.now));

        assertEquals(List.of(merged), f.objectIds(a));
    }

    @Test
    void commitStreamObject_streamDeleted_streamNotFound() {
        long s1 = f.commitStreamObject(range(a, 1, 30, 40));
        long merged = f.prepare();
        state.deleteStream(new DeleteStreamRequest(a, 1));

        f.assertRejected(STREAM_NOT_FOUND, () -> state.commitStreamObject(new CommitStreamObjectRequest(
                new StreamObjectSpec(merged, SIZE, range(a, 1, 30, 40)), List.of(s1), f.now)));
    }
}
