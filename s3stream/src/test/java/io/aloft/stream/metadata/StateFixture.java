package io.aloft.stream.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.aloft.stream.metadata.StreamMetadataException.Code;
import java.util.List;
import org.junit.jupiter.api.function.Executable;

/** A {@link StreamMetadataState} with shorthand for the commands tests repeat. Confined to the test thread. */
final class StateFixture {
    static final int NODE = 1;
    static final long TTL_MS = 60_000;
    static final long SIZE = 1_000;

    final StreamMetadataState state = new StreamMetadataState();
    /** The time the next command carries; tests move it by hand. */
    long now = 1_000;

    static StreamRange range(long streamId, long epoch, long start, long end) {
        return new StreamRange(streamId, epoch, start, end);
    }

    /** A new stream opened by {@link #NODE} with epoch 1. */
    long openStream() {
        long id = state.createStream(new CreateStreamRequest(NODE));
        state.openStream(new OpenStreamRequest(id, 1, NODE));
        return id;
    }

    long prepare() {
        return prepare(1);
    }

    long prepare(int count) {
        return state.prepareObjects(new PrepareObjectsRequest(NODE, count, TTL_MS, now));
    }

    /** Prepares and commits a stream-set object holding {@code ranges}; returns its id. */
    long commitStreamSet(StreamRange... ranges) {
        long id = prepare();
        state.commitStreamSetObject(request(id, List.of(ranges), List.of(), List.of()));
        return id;
    }

    /** Prepares and commits a lone stream object (object id -1 upload); returns its id. */
    long commitStreamObject(StreamRange range) {
        long id = prepare();
        state.commitStreamSetObject(request(-1, List.of(), List.of(new StreamObjectSpec(id, SIZE, range)),
                List.of()));
        return id;
    }

    CommitStreamSetObjectRequest request(long objectId, List<StreamRange> ranges, List<StreamObjectSpec> streamObjects,
            List<Long> compacted) {
        return new CommitStreamSetObjectRequest(NODE, objectId, SIZE, ranges, streamObjects, compacted, now);
    }

    S3Object object(long id) {
        return state.object(id).object();
    }

    S3Object.State stateOf(long id) {
        return object(id).state();
    }

    List<Long> objectIds(long streamId) {
        return state.getObjects(streamId, 0, -1, Integer.MAX_VALUE).stream().map(ObjectRef::objectId).toList();
    }

    /** Asserts the command is rejected with {@code code} and leaves the state exactly as it was. */
    void assertRejected(Code code, Executable command) {
        String before = state.dump();
        StreamMetadataException e = assertThrows(StreamMetadataException.class, command);
        assertEquals(code, e.code(), e.getMessage());
        assertEquals(before, state.dump(), "a rejected command changed the state");
        state.checkConsistency();
    }
}
