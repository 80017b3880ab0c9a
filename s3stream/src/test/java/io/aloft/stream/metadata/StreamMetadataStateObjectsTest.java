package io.aloft.stream.metadata;

import static io.aloft.stream.metadata.StateFixture.NODE;
import static io.aloft.stream.metadata.StateFixture.SIZE;
import static io.aloft.stream.metadata.StateFixture.TTL_MS;
import static io.aloft.stream.metadata.StateFixture.range;
import static io.aloft.stream.metadata.StreamMetadataException.Code.INVALID_REQUEST;
import static io.aloft.stream.metadata.StreamMetadataException.Code.OBJECT_NOT_FOUND;
import static io.aloft.stream.metadata.StreamMetadataException.Code.OBJECT_STATE;
import static io.aloft.stream.metadata.StreamMetadataException.Code.STREAM_NOT_FOUND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Object lifecycle: prepare and expiry, release by trim and delete, the deletion queue, lookups, snapshots. */
class StreamMetadataStateObjectsTest {

    private final StateFixture f = new StateFixture();
    private final StreamMetadataState state = f.state;

    private static List<Long> ids(List<S3Object> objects) {
        return objects.stream().map(S3Object::objectId).toList();
    }

    private static List<Long> refIds(List<ObjectRef> refs) {
        return refs.stream().map(ObjectRef::objectId).toList();
    }

    @Test
    void prepareObjects_count_consecutivePreparedIds() {
        long first = f.prepare(3);
        long next = f.prepare(1);

        assertEquals(first + 3, next);
        for (long id = first; id < first + 3; id++) {
            assertEquals(new S3Object(id, S3Object.Type.UNKNOWN, S3Object.State.PREPARED, 0, List.of(), NODE, -1, -1),
                    f.object(id));
        }
    }

    @Test
    void prepareObjects_countOrTtlOutOfBounds_invalidRequest() {
        f.assertRejected(INVALID_REQUEST, () -> state.prepareObjects(new PrepareObjectsRequest(NODE, 0, TTL_MS, 0)));
        f.assertRejected(INVALID_REQUEST, () -> state.prepareObjects(new PrepareObjectsRequest(NODE, 1, 0, 0)));
        f.assertRejected(INVALID_REQUEST, () -> state.prepareObjects(new PrepareObjectsRequest(NODE,
                StreamMetadataState.MAX_PREPARE_COUNT + 1, TTL_MS, 0)));
    }

    @Test
    void getObjectsToDelete_preparedPastTtl_markedAsOfDeadline() {
        long id = f.prepare();
        long deadline = f.now + TTL_MS;

        assertEquals(List.of(), state.getObjectsToDelete(deadline - 1, 0));
        assertEquals(S3Object.State.PREPARED, f.stateOf(id));

        List<S3Object> due = state.getObjectsToDelete(deadline + 500, 500);

        assertEquals(List.of(id), ids(due));
        assertEquals(S3Object.State.MARKED_FOR_DELETION, f.stateOf(id));
        assertEquals(deadline, f.object(id).markedForDeletionAtMs());
    }

    @Test
    void commitStreamSetObject_preparedPastTtl_objectStateAndLaterMarked() {
        long a = f.openStream();
        long id = f.prepare();
        f.now += TTL_MS;

        f.assertRejected(OBJECT_STATE, () -> f.state.commitStreamSetObject(
                f.request(id, List.of(range(a, 1, 0, 10)), List.of(), List.of())));
        assertEquals(S3Object.State.PREPARED, f.stateOf(id));

        // Any accepted command carrying time expires it.
        f.prepare();
        assertEquals(S3Object.State.MARKED_FOR_DELETION, f.stateOf(id));
    }

    @Test
    void commitStreamSetObject_justBeforeTtl_accepted() {
        long a = f.openStream();
        long id = f.prepare();
        f.now += TTL_MS - 1;

        state.commitStreamSetObject(f.request(id, List.of(range(a, 1, 0, 10)), List.of(), List.of()));

        assertEquals(S3Object.State.COMMITTED, f.stateOf(id));
        f.now += TTL_MS;
        f.prepare();
        assertEquals(S3Object.State.COMMITTED, f.stateOf(id));
    }

    @Test
    void trimStream_streamObjectsWhollyBelowStart_markedOthersKept() {
        long a = f.openStream();
        long s1 = f.commitStreamObject(range(a, 1, 0, 10));
        long s2 = f.commitStreamObject(range(a, 1, 10, 20));
        long s3 = f.commitStreamObject(range(a, 1, 20, 30));

        state.trimStream(new TrimStreamRequest(a, 1, 20));

        assertEquals(S3Object.State.MARKED_FOR_DELETION, f.stateOf(s1));
        assertEquals(S3Object.State.MARKED_FOR_DELETION, f.stateOf(s2));
        assertEquals(List.of(s3), f.objectIds(a));
        state.trimStream(new TrimStreamRequest(a, 1, 25));
        assertEquals(S3Object.State.COMMITTED, f.stateOf(s3));
        assertEquals(List.of(s3), f.objectIds(a));
    }

    @Test
    void trimStream_streamSetObject_markedOnlyWhenEveryRangeTrimmed() {
        long a = f.openStream();
        long b = f.openStream();
        long shared = f.commitStreamSet(range(a, 1, 0, 10), range(b, 1, 0, 10));
        f.commitStreamSet(range(a, 1, 10, 20), range(b, 1, 10, 20));

        state.trimStream(new TrimStreamRequest(a, 1, 15));

        assertEquals(S3Object.State.COMMITTED, f.stateOf(shared));
        assertEquals(List.of(shared), ids(state.getStreamSetObjects(NODE)).subList(0, 1));
        state.trimStream(new TrimStreamRequest(b, 1, 10));
        assertEquals(S3Object.State.MARKED_FOR_DELETION, f.stateOf(shared));
        assertEquals(-1, f.object(shared).markedForDeletionAtMs());
        assertEquals(1, state.getStreamSetObjects(NODE).size());
        state.checkConsistency();
    }

    @Test
    void deleteStream_objects_releasedUnlessSharedWithLiveStream() {
        long a = f.openStream();
        long b = f.openStream();
        long shared = f.commitStreamSet(range(a, 1, 0, 10), range(b, 1, 0, 10));
        long onlyA = f.commitStreamSet(range(a, 1, 10, 20));
        long streamObject = f.commitStreamObject(range(a, 1, 20, 30));

        state.deleteStream(new DeleteStreamRequest(a, 1));

        assertEquals(S3Object.State.COMMITTED, f.stateOf(shared));
        assertEquals(S3Object.State.MARKED_FOR_DELETION, f.stateOf(onlyA));
        assertEquals(S3Object.State.MARKED_FOR_DELETION, f.stateOf(streamObject));
        state.deleteStream(new DeleteStreamRequest(b, 1));
        assertEquals(S3Object.State.MARKED_FOR_DELETION, f.stateOf(shared));
        state.checkConsistency();
    }

    @Test
    void getObjectsToDelete_markedByCompaction_dueAfterDelay() {
        long a = f.openStream();
        long s1 = f.commitStreamObject(range(a, 1, 0, 10));
        long merged = f.prepare();
        f.now = 10_000;
        state.commitStreamObject(new CommitStreamObjectRequest(new StreamObjectSpec(merged, SIZE,
                range(a, 1, 0, 10)), List.of(s1), f.now));

        assertEquals(List.of(), state.getObjectsToDelete(10_999, 1_000));
        assertEquals(List.of(s1), ids(state.getObjectsToDelete(11_000, 1_000)));
    }

    @Test
    void getObjectsToDelete_markedByTrim_stampedWhenSeenAndWaitsFullDelay() {
        long a = f.openStream();
        long s1 = f.commitStreamObject(range(a, 1, 0, 10));
        f.commitStreamObject(range(a, 1, 10, 20));
        state.trimStream(new TrimStreamRequest(a, 1, 10));

        // The trim carried no time; the first command with time stamps the mark.
        assertEquals(List.of(), state.getObjectsToDelete(50_000, 1_000));
        assertEquals(50_000, f.object(s1).markedForDeletionAtMs());
        assertEquals(List.of(), state.getObjectsToDelete(50_999, 1_000));
        assertEquals(List.of(s1), ids(state.getObjectsToDelete(51_000, 1_000)));
    }

    @Test
    void objectsDeleted_markedObjects_forgotten() {
        long a = f.openStream();
        long s1 = f.commitStreamObject(range(a, 1, 0, 10));
        long s2 = f.commitStreamObject(range(a, 1, 10, 20));
        state.trimStream(new TrimStreamRequest(a, 1, 20));
        List<S3Object> due = state.getObjectsToDelete(f.now, 0);

        state.objectsDeleted(ids(due));

        assertEquals(List.of(s1, s2), ids(due));
        assertEquals(null, state.object(s1));
        assertEquals(List.of(), state.getObjectsToDelete(f.now, 0));
        f.assertRejected(OBJECT_NOT_FOUND, () -> state.objectsDeleted(List.of(s1)));
    }

    @Test
    void objectsDeleted_oneNotMarked_objectStateAndNoneForgotten() {
        long a = f.openStream();
        long s1 = f.commitStreamObject(range(a, 1, 0, 10));
        long s2 = f.commitStreamObject(range(a, 1, 10, 20));
        long prepared = f.prepare();
        state.trimStream(new TrimStreamRequest(a, 1, 10));

        f.assertRejected(OBJECT_STATE, () -> state.objectsDeleted(List.of(s1, s2)));
        f.assertRejected(OBJECT_STATE, () -> state.objectsDeleted(List.of(s1, prepared)));
        f.assertRejected(OBJECT_NOT_FOUND, () -> state.objectsDeleted(List.of(s1, 555L)));
        assertEquals(S3Object.State.MARKED_FOR_DELETION, f.stateOf(s1));
    }

    @Test
    void getObjects_mixedObjects_orderedByOffsetAndFilteredByRange() {
        long a = f.openStream();
        long b = f.openStream();
        long o1 = f.commitStreamSet(range(a, 1, 0, 10), range(b, 1, 0, 100));
        long o2 = f.commitStreamObject(range(a, 1, 10, 20));
        long o3 = f.commitStreamSet(range(b, 1, 100, 200), range(a, 1, 20, 30));
        long o4 = f.commitStreamObject(range(a, 1, 30, 40));

        assertEquals(List.of(o1, o2, o3, o4), f.objectIds(a));
        assertEquals(List.of(o2, o3), refIds(state.getObjects(a, 15, 25, 10)));
        assertEquals(List.of(o2, o3), refIds(state.getObjects(a, 10, 30, 10)));
        assertEquals(List.of(o3, o4), refIds(state.getObjects(a, 29, -1, 10)));
        assertEquals(List.of(o1, o2), refIds(state.getObjects(a, 0, -1, 2)));
        assertEquals(List.of(), state.getObjects(a, 40, -1, 10));
        assertEquals(List.of(), state.getObjects(a, 12, 12, 10));
        assertEquals(new ObjectRef(o3, S3Object.Type.STREAM_SET, StateFixture.SIZE, range(a, 1, 20, 30)),
                state.getObjects(a, 25, 26, 1).get(0));
        assertEquals(List.of(o1, o3), f.objectIds(b));
    }

    @Test
    void getObjects_afterTrim_trimmedObjectsExcluded() {
        long a = f.openStream();
        f.commitStreamObject(range(a, 1, 0, 10));
        long o2 = f.commitStreamObject(range(a, 1, 10, 20));
        state.trimStream(new TrimStreamRequest(a, 1, 12));

        assertEquals(List.of(o2), refIds(state.getObjects(a, 0, -1, 10)));
        assertEquals(List.of(o2), refIds(state.getObjects(a, 0, 13, 10)));
        assertEquals(List.of(), state.getObjects(a, 0, 12, 10));
    }

    @Test
    void getObjects_badArguments_rejected() {
        long a = f.openStream();

        f.assertRejected(INVALID_REQUEST, () -> state.getObjects(a, 0, -1, 0));
        f.assertRejected(INVALID_REQUEST, () -> state.getObjects(a, -1, -1, 1));
        f.assertRejected(INVALID_REQUEST, () -> state.getObjects(a, 5, 4, 1));
        f.assertRejected(STREAM_NOT_FOUND, () -> state.getObjects(a + 1, 0, -1, 1));
    }

    @Test
    void getStreamObjects_mixedObjects_onlyStreamObjects() {
        long a = f.openStream();
        f.commitStreamSet(range(a, 1, 0, 10));
        long o2 = f.commitStreamObject(range(a, 1, 10, 20));
        f.commitStreamSet(range(a, 1, 20, 30));
        long o4 = f.commitStreamObject(range(a, 1, 30, 40));

        assertEquals(List.of(o2, o4), ids(state.getStreamObjects(a, 0, -1, 10)));
        assertEquals(List.of(o2), ids(state.getStreamObjects(a, 0, -1, 1)));
        assertEquals(List.of(o4), ids(state.getStreamObjects(a, 20, 35, 10)));
    }

    @Test
    void getStreamSetObjects_perNode_oldestFirst() {
        long a = f.openStream();
        long x = f.commitStreamSet(range(a, 1, 0, 10));
        long id = f.prepare();
        state.commitStreamSetObject(new CommitStreamSetObjectRequest(2, id, SIZE, List.of(range(a, 1, 10, 20)),
                List.of(), List.of(), f.now));
        long z = f.commitStreamSet(range(a, 1, 20, 30));

        assertEquals(List.of(x, z), ids(state.getStreamSetObjects(NODE)));
        assertEquals(List.of(id), ids(state.getStreamSetObjects(2)));
        assertEquals(List.of(), state.getStreamSetObjects(3));
    }

    @Test
    void snapshot_restored_sameDumpAndBehaviour() {
        long a = f.openStream();
        f.commitStreamSet(range(a, 1, 0, 10));
        f.commitStreamObject(range(a, 1, 10, 20));
        f.prepare(2);
        state.trimStream(new TrimStreamRequest(a, 1, 10));

        StreamMetadataState restored = StreamMetadataState.restore(state.snapshot());

        assertEquals(state.dump(), restored.dump());
        restored.checkConsistency();
        assertEquals(state.getObjects(a, 0, -1, 10), restored.getObjects(a, 0, -1, 10));
        assertEquals(state.getObjectsToDelete(f.now, 0), restored.getObjectsToDelete(f.now, 0));
        assertEquals(state.dump(), restored.dump());
    }

    @Test
    void copy_changed_originalUntouched() {
        long a = f.openStream();
        String before = state.dump();

        StreamMetadataState copy = state.copy();
        copy.deleteStream(new DeleteStreamRequest(a, 1));

        assertEquals(before, state.dump());
        assertNotEquals(before, copy.dump());
    }
}
