package io.aloft.stream.metadata;

import static io.aloft.stream.metadata.StateFixture.NODE;
import static io.aloft.stream.metadata.StateFixture.range;
import static io.aloft.stream.metadata.StreamMetadataException.Code.FENCED;
import static io.aloft.stream.metadata.StreamMetadataException.Code.INVALID_REQUEST;
import static io.aloft.stream.metadata.StreamMetadataException.Code.STREAM_NOT_FOUND;
import static io.aloft.stream.metadata.StreamMetadataException.Code.STREAM_NOT_OPEN;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Stream lifecycle and epoch fencing. */
class StreamMetadataStateStreamsTest {

    private final StateFixture f = new StateFixture();
    private final StreamMetadataState state = f.state;

    @Test
    void createStream_fresh_closedAtEpochZeroAndEmpty() {
        long a = state.createStream(new CreateStreamRequest(NODE));
        long b = state.createStream(new CreateStreamRequest(NODE));

        assertEquals(a + 1, b);
        assertEquals(new StreamInfo(a, 0, StreamInfo.State.CLOSED, 0, 0, -1), state.describeStream(a));
    }

    @Test
    void openStream_higherEpoch_opensWithOwnerAndEpoch() {
        long id = state.createStream(new CreateStreamRequest(NODE));

        StreamInfo info = state.openStream(new OpenStreamRequest(id, 3, 7));

        assertEquals(new StreamInfo(id, 3, StreamInfo.State.OPEN, 0, 0, 7), info);
        assertEquals(info, state.describeStream(id));
    }

    @Test
    void openStream_equalOrLowerEpoch_fenced() {
        long id = state.createStream(new CreateStreamRequest(NODE));
        long fresh = state.createStream(new CreateStreamRequest(NODE));
        state.openStream(new OpenStreamRequest(id, 2, NODE));

        f.assertRejected(FENCED, () -> state.openStream(new OpenStreamRequest(id, 2, 9)));
        f.assertRejected(FENCED, () -> state.openStream(new OpenStreamRequest(id, 1, 9)));
        f.assertRejected(FENCED, () -> state.openStream(new OpenStreamRequest(fresh, 0, 9)));
    }

    @Test
    void openStream_heldOpenByAnotherNode_takenOverAndOldOwnerFenced() {
        long id = f.openStream();
        f.commitStreamSet(range(id, 1, 0, 10));

        StreamInfo info = state.openStream(new OpenStreamRequest(id, 2, 9));

        assertEquals(new StreamInfo(id, 2, StreamInfo.State.OPEN, 0, 10, 9), info);
        f.assertRejected(FENCED, () -> state.closeStream(new CloseStreamRequest(id, 1, NODE)));
        f.assertRejected(FENCED, () -> state.trimStream(new TrimStreamRequest(id, 1, 5)));
        long object = f.prepare();
        f.assertRejected(FENCED, () -> state.commitStreamSetObject(
                f.request(object, List.of(range(id, 1, 10, 20)), List.of(), List.of())));
    }

    @Test
    void openStream_unknownStream_streamNotFound() {
        f.assertRejected(STREAM_NOT_FOUND, () -> state.openStream(new OpenStreamRequest(42, 1, NODE)));
    }

    @Test
    void closeStream_currentEpoch_closedWithoutOwner() {
        long id = f.openStream();

        state.closeStream(new CloseStreamRequest(id, 1, NODE));

        assertEquals(new StreamInfo(id, 1, StreamInfo.State.CLOSED, 0, 0, -1), state.describeStream(id));
    }

    @Test
    void closeStream_staleOrHigherEpoch_fenced() {
        long id = f.openStream();
        state.openStream(new OpenStreamRequest(id, 2, NODE));

        f.assertRejected(FENCED, () -> state.closeStream(new CloseStreamRequest(id, 1, NODE)));
        f.assertRejected(FENCED, () -> state.closeStream(new CloseStreamRequest(id, 3, NODE)));
    }

    @Test
    void closeStream_alreadyClosed_succeedsWithoutChange() {
        long id = f.openStream();
        state.closeStream(new CloseStreamRequest(id, 1, NODE));
        String before = state.dump();

        state.closeStream(new CloseStreamRequest(id, 1, NODE));

        assertEquals(before, state.dump());
    }

    @Test
    void closeStream_unknownStream_streamNotFound() {
        f.assertRejected(STREAM_NOT_FOUND, () -> state.closeStream(new CloseStreamRequest(5, 1, NODE)));
    }

    @Test
    void closeStream_thenReopen_keepsOffsets() {
        long id = f.openStream();
        f.commitStreamSet(range(id, 1, 0, 10));
        state.closeStream(new CloseStreamRequest(id, 1, NODE));

        StreamInfo info = state.openStream(new OpenStreamRequest(id, 2, 3));

        assertEquals(new StreamInfo(id, 2, StreamInfo.State.OPEN, 0, 10, 3), info);
    }

    @Test
    void trimStream_forward_movesStart() {
        long id = f.openStream();
        f.commitStreamSet(range(id, 1, 0, 10));

        state.trimStream(new TrimStreamRequest(id, 1, 4));

        assertEquals(4, state.describeStream(id).startOffset());
        assertEquals(10, state.describeStream(id).endOffset());
    }

    @Test
    void trimStream_toEnd_allowed() {
        long id = f.openStream();
        f.commitStreamSet(range(id, 1, 0, 10));

        state.trimStream(new TrimStreamRequest(id, 1, 10));

        assertEquals(10, state.describeStream(id).startOffset());
    }

    @Test
    void trimStream_backwards_noOp() {
        long id = f.openStream();
        f.commitStreamSet(range(id, 1, 0, 10));
        state.trimStream(new TrimStreamRequest(id, 1, 6));
        String before = state.dump();

        state.trimStream(new TrimStreamRequest(id, 1, 3));
        state.trimStream(new TrimStreamRequest(id, 1, 6));

        assertEquals(before, state.dump());
    }

    @Test
    void trimStream_pastEnd_invalidRequest() {
        long id = f.openStream();
        f.commitStreamSet(range(id, 1, 0, 10));

        f.assertRejected(INVALID_REQUEST, () -> state.trimStream(new TrimStreamRequest(id, 1, 11)));
    }

    @Test
    void trimStream_staleOrHigherEpoch_fenced() {
        long id = f.openStream();
        state.openStream(new OpenStreamRequest(id, 2, NODE));

        f.assertRejected(FENCED, () -> state.trimStream(new TrimStreamRequest(id, 1, 0)));
        f.assertRejected(FENCED, () -> state.trimStream(new TrimStreamRequest(id, 3, 0)));
    }

    @Test
    void trimStream_closedStream_streamNotOpen() {
        long id = f.openStream();
        state.closeStream(new CloseStreamRequest(id, 1, NODE));

        f.assertRejected(STREAM_NOT_OPEN, () -> state.trimStream(new TrimStreamRequest(id, 1, 0)));
    }

    @Test
    void trimStream_unknownStream_streamNotFound() {
        f.assertRejected(STREAM_NOT_FOUND, () -> state.trimStream(new TrimStreamRequest(8, 1, 0)));
    }

    @Test
    void deleteStream_currentEpoch_removed() {
        long id = f.openStream();

        state.deleteStream(new DeleteStreamRequest(id, 1));

        f.assertRejected(STREAM_NOT_FOUND, () -> state.describeStream(id));
        f.assertRejected(STREAM_NOT_FOUND, () -> state.deleteStream(new DeleteStreamRequest(id, 1)));
    }

    @Test
    void deleteStream_closedStream_removed() {
        long id = f.openStream();
        state.closeStream(new CloseStreamRequest(id, 1, NODE));

        state.deleteStream(new DeleteStreamRequest(id, 1));

        f.assertRejected(STREAM_NOT_FOUND, () -> state.describeStream(id));
    }

    @Test
    void deleteStream_staleOrHigherEpoch_fenced() {
        long id = f.openStream();
        state.openStream(new OpenStreamRequest(id, 2, NODE));

        f.assertRejected(FENCED, () -> state.deleteStream(new DeleteStreamRequest(id, 1)));
        f.assertRejected(FENCED, () -> state.deleteStream(new DeleteStreamRequest(id, 3)));
    }

    @Test
    void deleteStream_idNotReused_nextCreateGetsNewId() {
        long id = f.openStream();
        state.deleteStream(new DeleteStreamRequest(id, 1));

        assertEquals(id + 1, state.createStream(new CreateStreamRequest(NODE)));
    }
}
