package io.aloft.stream.metadata;

import static io.aloft.stream.metadata.StateFixture.NODE;
import static io.aloft.stream.metadata.StateFixture.SIZE;
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
import org.junit.jupiter.api.Test;

/** Upload commits of stream-set objects and the stream objects split out of them. */
class StreamMetadataStateCommitTest {

    private final StateFixture f = new StateFixture();
    private final StreamMetadataState state = f.state;

    @Test
    void commitStreamSetObject_continuingRanges_advanceEndsAndCommitObject() {
        long a = f.openStream();
        long b = f.openStream();
        long id = f.prepare();
        f.now = 5_000;

        state.commitStreamSetObject(new CommitStreamSetObjectRequest(4, id, 777,
                List.of(range(a, 1, 0, 10), range(b, 1, 0, 3)), List.of(), List.of(), f.now));

        assertEquals(10, state.describeStream(a).endOffset());
        assertEquals(3, state.describeStream(b).endOffset());
        assertEquals(new S3Object(id, S3Object.Type.STREAM_SET, S3Object.State.COMMITTED, 777,
                List.of(range(a, 1, 0, 10), range(b, 1, 0, 3)), 4, 5_000, -1), f.object(id));
        assertEquals(List.of(f.object(id)), state.getStreamSetObjects(4));
    }

    @Test
    void commitStreamSetObject_secondUpload_continuesFromEnd() {
        long a = f.openStream();
        f.commitStreamSet(range(a, 1, 0, 10));

        f.commitStreamSet(range(a, 1, 10, 25));

        assertEquals(25, state.describeStream(a).endOffset());
    }

    @Test
    void commitStreamSetObject_committedTwice_objectState() {
        long a = f.openStream();
        long id = f.prepare();
        state.commitStreamSetObject(f.request(id, List.of(range(a, 1, 0, 10)), List.of(), List.of()));

        f.assertRejected(OBJECT_STATE, () -> state.commitStreamSetObject(
                f.request(id, List.of(range(a, 1, 10, 20)), List.of(), List.of())));
    }

    @Test
    void commitStreamSetObject_unknownObject_objectNotFound() {
        long a = f.openStream();

        f.assertRejected(OBJECT_NOT_FOUND, () -> state.commitStreamSetObject(
                f.request(99, List.of(range(a, 1, 0, 10)), List.of(), List.of())));
    }

    @Test
    void commitStreamSetObject_staleEpoch_fenced() {
        long a = f.openStream();
        state.openStream(new OpenStreamRequest(a, 2, 2));
        long id = f.prepare();

        f.assertRejected(FENCED, () -> state.commitStreamSetObject(
                f.request(id, List.of(range(a, 1, 0, 10)), List.of(), List.of())));
    }

    @Test
    void commitStreamSetObject_gapOrOverlap_offsetMismatch() {
        long a = f.openStream();
        f.commitStreamSet(range(a, 1, 0, 10));
        long id = f.prepare();

        f.assertRejected(OFFSET_MISMATCH, () -> state.commitStreamSetObject(
                f.request(id, List.of(range(a, 1, 11, 20)), List.of(), List.of())));
        f.assertRejected(OFFSET_MISMATCH, () -> state.commitStreamSetObject(
                f.request(id, List.of(range(a, 1, 9, 20)), List.of(), List.of())));
    }

    @Test
    void commitStreamSetObject_closedStream_streamNotOpen() {
        long a = f.openStream();
        state.closeStream(new CloseStreamRequest(a, 1, NODE));
        long id = f.prepare();

        f.assertRejected(STREAM_NOT_OPEN, () -> state.commitStreamSetObject(
                f.request(id, List.of(range(a, 1, 0, 10)), List.of(), List.of())));
    }

    @Test
    void commitStreamSetObject_unknownStream_streamNotFound() {
        long id = f.prepare();

        f.assertRejected(STREAM_NOT_FOUND, () -> state.commitStreamSetObject(
                f.request(id, List.of(range(12, 1, 0, 10)), List.of(), List.of())));
    }

    @Test
    void commitStreamSetObject_thirdRangeStale_firstTwoStreamsUntouched() {
        long a = f.openStream();
        long b = f.openStream();
        long c = f.openStream();
        state.openStream(new OpenStreamRequest(c, 2, 2));
        long id = f.prepare();

        f.assertRejected(FENCED, () -> state.commitStreamSetObject(f.request(id,
                List.of(range(a, 1, 0, 10), range(b, 1, 0, 10), range(c, 1, 0, 10)), List.of(), List.of())));

        assertEquals(0, state.describeStream(a).endOffset());
        assertEquals(0, state.describeStream(b).endOffset());
        assertEquals(S3Object.State.PREPARED, f.stateOf(id));
    }

    @Test
    void commitStreamSetObject_thirdRangeMisplaced_firstTwoStreamsUntouched() {
        long a = f.openStream();
        long b = f.openStream();
        long c = f.openStream();
        long id = f.prepare();

        f.assertRejected(OFFSET_MISMATCH, () -> state.commitStreamSetObject(f.request(id,
                List.of(range(a, 1, 0, 10), range(b, 1, 0, 10), range(c, 1, 5, 10)), List.of(), List.of())));

        assertEquals(0, state.describeStream(a).endOffset());
        assertEquals(0, state.describeStream(b).endOffset());
    }

    @Test
    void commitStreamSetObject_badSplitStreamObject_nothingCommitted() {
        long a = f.openStream();
        long b = f.openStream();
        long sso = f.prepare();
        long so = f.prepare();
        long committedSo = f.commitStreamObject(range(b, 1, 0, 5));

        f.assertRejected(OBJECT_STATE, () -> state.commitStreamSetObject(f.request(sso, List.of(range(a, 1, 0, 10)),
                List.of(new StreamObjectSpec(so, SIZE, range(b, 1, 5, 9)),
                        new StreamObjectSpec(committedSo, SIZE, range(b, 1, 9, 12))), List.of())));

        assertEquals(S3Object.State.PREPARED, f.stateOf(sso));
        assertEquals(S3Object.State.PREPARED, f.stateOf(so));
    }

    @Test
    void commitStreamSetObject_splitStreamObjects_chainWithRangesPerStream() {
        long a = f.openStream();
        long b = f.openStream();
        long sso = f.prepare();
        long so1 = f.prepare();
        long so2 = f.prepare();

        // a: [0,10) in the stream-set object, then [10,30) and [30,35) split out, listed out of order.
        state.commitStreamSetObject(f.request(sso, List.of(range(a, 1, 0, 10), range(b, 1, 0, 4)),
                List.of(new StreamObjectSpec(so2, 50, range(a, 1, 30, 35)),
                        new StreamObjectSpec(so1, 60, range(a, 1, 10, 30))), List.of()));

        assertEquals(35, state.describeStream(a).endOffset());
        assertEquals(4, state.describeStream(b).endOffset());
        assertEquals(List.of(sso, so1, so2), f.objectIds(a));
        assertEquals(new S3Object(so1, S3Object.Type.STREAM, S3Object.State.COMMITTED, 60,
                List.of(range(a, 1, 10, 30)), NODE, f.now, -1), f.object(so1));
        assertEquals(List.of(f.object(sso)), state.getStreamSetObjects(NODE));
    }

    @Test
    void commitStreamSetObject_streamObjectBeforeSetRange_chainsByOffset() {
        long a = f.openStream();
        long sso = f.prepare();
        long so = f.prepare();

        state.commitStreamSetObject(f.request(sso, List.of(range(a, 1, 20, 25)),
                List.of(new StreamObjectSpec(so, SIZE, range(a, 1, 0, 20))), List.of()));

        assertEquals(25, state.describeStream(a).endOffset());
        assertEquals(List.of(so, sso), f.objectIds(a));
    }

    @Test
    void commitStreamSetObject_splitObjectsWithGap_offsetMismatch() {
        long a = f.openStream();
        long sso = f.prepare();
        long so = f.prepare();

        f.assertRejected(OFFSET_MISMATCH, () -> state.commitStreamSetObject(f.request(sso,
                List.of(range(a, 1, 0, 10)), List.of(new StreamObjectSpec(so, SIZE, range(a, 1, 11, 20))),
                List.of())));
    }

    @Test
    void commitStreamSetObject_onlyStreamObjects_committedWithoutSetObject() {
        long a = f.openStream();
        long so = f.prepare();

        state.commitStreamSetObject(f.request(-1, List.of(), List.of(new StreamObjectSpec(so, SIZE,
                range(a, 1, 0, 100))), List.of()));

        assertEquals(100, state.describeStream(a).endOffset());
        assertEquals(S3Object.Type.STREAM, f.object(so).type());
        assertEquals(List.of(), state.getStreamSetObjects(NODE));
    }

    @Test
    void commitStreamSetObject_malformed_invalidRequest() {
        long a = f.openStream();
        long b = f.openStream();
        long id = f.prepare();
        long so = f.prepare();
        StreamObjectSpec spec = new StreamObjectSpec(so, SIZE, range(b, 1, 0, 5));

        // -1 with ranges; -1 with nothing; a set object without ranges; two ranges of one stream.
        f.assertRejected(INVALID_REQUEST, () -> state.commitStreamSetObject(
                f.request(-1, List.of(range(a, 1, 0, 1)), List.of(spec), List.of())));
        f.assertRejected(INVALID_REQUEST, () -> state.commitStreamSetObject(
                f.request(-1, List.of(), List.of(), List.of())));
        f.assertRejected(INVALID_REQUEST, () -> state.commitStreamSetObject(
                f.request(id, List.of(), List.of(spec), List.of())));
        f.assertRejected(INVALID_REQUEST, () -> state.commitStreamSetObject(
                f.request(id, List.of(range(a, 1, 0, 5), range(a, 1, 5, 9)), List.of(), List.of())));
        // The same id twice; a negative size.
        f.assertRejected(INVALID_REQUEST, () -> state.commitStreamSetObject(f.request(so, List.of(range(a, 1, 0, 5)),
                List.of(spec), List.of())));
        f.assertRejected(INVALID_REQUEST, () -> state.commitStreamSetObject(new CommitStreamSetObjectRequest(NODE, id,
                -1, List.of(range(a, 1, 0, 5)), List.of(), List.of(), f.now)));
    }

    @Test
    void commitStreamSetObject_higherRangeEpoch_fenced() {
        long a = f.openStream();
        long id = f.prepare();

        f.assertRejected(FENCED, () -> state.commitStreamSetObject(
                f.request(id, List.of(range(a, 2, 0, 10)), List.of(), List.of())));
    }

    @Test
    void commitStreamSetObject_earlierClock_timeDoesNotRunBackwards() {
        long a = f.openStream();
        f.now = 10_000;
        long first = f.commitStreamSet(range(a, 1, 0, 1));
        long id = f.prepare();

        state.commitStreamSetObject(new CommitStreamSetObjectRequest(NODE, id, SIZE, List.of(range(a, 1, 1, 2)),
                List.of(), List.of(), 9_000));

        assertEquals(10_000, f.object(first).committedAtMs());
        assertEquals(10_000, f.object(id).committedAtMs());
        assertEquals(10_000, state.snapshot().clockMs());
    }
}
