package io.aloft.stream.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random command sequences, mostly valid and sometimes subtly wrong, checking after every command
 * that a rejection changed nothing, the indexes agree with the primary state, and every stream's
 * live objects cover exactly [start, end); then that replaying the same commands gives the same
 * outcomes and state, and that a snapshot restores it.
 */
class StreamMetadataStateRandomTest {

    private static final int OPS = 600;
    private static final long TTL_MS = 1_000;

    private StreamMetadataState state;
    private Random random;
    private long now;
    private final List<Long> prepared = new ArrayList<>();
    private final List<Function<StreamMetadataState, Object>> log = new ArrayList<>();
    private final List<String> outcomes = new ArrayList<>();

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void randomCommands_anySequence_invariantsHoldAndReplayIsDeterministic(long seed) {
        state = new StreamMetadataState();
        random = new Random(seed);
        now = 0;
        for (int i = 0; i < OPS; i++) {
            step();
        }

        StreamMetadataState replayed = new StreamMetadataState();
        for (int i = 0; i < log.size(); i++) {
            assertEquals(outcomes.get(i), outcome(replayed, log.get(i)), "command " + i);
        }
        assertEquals(state.dump(), replayed.dump());
        StreamMetadataState restored = StreamMetadataState.restore(state.snapshot());
        assertEquals(state.dump(), restored.dump());
        restored.checkConsistency();
    }

    private void step() {
        Function<StreamMetadataState, Object> command = nextCommand();
        String before = state.dump();
        String outcome = outcome(state, command);
        if (outcome.startsWith("rejected")) {
            assertEquals(before, state.dump(), "rejected command changed the state: " + outcome);
        } else if (outcome.startsWith("ok") && command instanceof Prepare) {
            long first = Long.parseLong(outcome.substring(3));
            prepared.add(first);
            prepared.add(first + 1);
        }
        log.add(command);
        outcomes.add(outcome);
        state.checkConsistency();
        checkCoverage();
    }

    private static String outcome(StreamMetadataState s, Function<StreamMetadataState, Object> command) {
        try {
            return "ok " + command.apply(s);
        } catch (StreamMetadataException e) {
            return "rejected " + e.code();
        }
    }

    /** Each stream's live objects chain exactly over [start, end). */
    private void checkCoverage() {
        for (StreamInfo s : state.snapshot().streams()) {
            List<ObjectRef> refs = state.getObjects(s.streamId(), 0, -1, Integer.MAX_VALUE);
            if (s.startOffset() == s.endOffset()) {
                assertTrue(refs.isEmpty(), () -> "stream " + s + " has " + refs);
                continue;
            }
            assertTrue(!refs.isEmpty() && refs.get(0).range().startOffset() <= s.startOffset(), () -> s + " " + refs);
            for (int i = 1; i < refs.size(); i++) {
                assertEquals(refs.get(i - 1).range().endOffset(), refs.get(i).range().startOffset(), refs::toString);
            }
            assertEquals(s.endOffset(), refs.get(refs.size() - 1).range().endOffset(), refs::toString);
        }
    }

    /** A marker so step() can learn the prepared ids. */
    private interface Prepare extends Function<StreamMetadataState, Object> {
    }

    private Function<StreamMetadataState, Object> nextCommand() {
        List<StreamInfo> streams = state.snapshot().streams();
        int dice = random.nextInt(100);
        if (streams.size() < 2 || dice < 5) {
            return s -> s.createStream(new CreateStreamRequest(1));
        }
        StreamInfo s = pick(streams, 8);
        long epochNoise = random.nextInt(10) == 0 ? random.nextInt(3) - 1 : 0;
        if (dice < 12) {
            OpenStreamRequest r = new OpenStreamRequest(s.streamId(), s.epoch() + random.nextInt(3), 1 + random.nextInt(3));
            return st -> st.openStream(r);
        }
        if (dice < 15) {
            CloseStreamRequest r = new CloseStreamRequest(s.streamId(), s.epoch() + epochNoise, s.ownerNodeId());
            return st -> run(() -> st.closeStream(r));
        }
        if (dice < 25) {
            long length = s.endOffset() - s.startOffset();
            TrimStreamRequest r = new TrimStreamRequest(s.streamId(), s.epoch() + epochNoise,
                    s.startOffset() - 2 + random.nextInt((int) Math.min(length, 50) + 5));
            return st -> run(() -> st.trimStream(r));
        }
        if (dice < 27) {
            DeleteStreamRequest r = new DeleteStreamRequest(s.streamId(), s.epoch() + epochNoise);
            return st -> run(() -> st.deleteStream(r));
        }
        if (dice < 37 || prepared.size() < 3) {
            PrepareObjectsRequest r = new PrepareObjectsRequest(1 + random.nextInt(3), 2, TTL_MS, now);
            return (Prepare) st -> st.prepareObjects(r);
        }
        if (dice < 60) {
            return upload(streams);
        }
        if (dice < 72) {
            return compactStreamSetObjects();
        }
        if (dice < 82) {
            return compactStreamObjects(s);
        }
        now += random.nextInt(300);
        long at = now;
        long delay = random.nextInt(200);
        return st -> {
            List<Long> ids = st.getObjectsToDelete(at, delay).stream().map(S3Object::objectId).toList();
            st.objectsDeleted(ids);
            return ids;
        };
    }

    private Function<StreamMetadataState, Object> upload(List<StreamInfo> streams) {
        List<StreamRange> ranges = new ArrayList<>();
        List<StreamObjectSpec> split = new ArrayList<>();
        int count = 1 + random.nextInt(3);
        for (int i = 0; i < count; i++) {
            StreamInfo s = pick(streams, 30);
            if (ranges.stream().anyMatch(r -> r.streamId() == s.streamId())) {
                continue;
            }
            long start = s.endOffset() + (random.nextInt(15) == 0 ? random.nextInt(3) - 1 : 0);
            long epoch = s.epoch() - (random.nextInt(15) == 0 ? 1 : 0);
            long end = start + 1 + random.nextInt(10);
            ranges.add(new StreamRange(s.streamId(), epoch, start, end));
            if (random.nextInt(4) == 0) {
                split.add(new StreamObjectSpec(takePrepared(), 10, new StreamRange(s.streamId(), epoch, end,
                        end + 1 + random.nextInt(20))));
            }
        }
        long objectId = random.nextInt(8) == 0 && !split.isEmpty() ? -1 : takePrepared();
        CommitStreamSetObjectRequest r = new CommitStreamSetObjectRequest(1 + random.nextInt(3), objectId, 10,
                objectId == -1 ? List.of() : ranges, split, List.of(), now);
        return st -> run(() -> st.commitStreamSetObject(r));
    }

    /** Merges some of a node's stream-set objects the way a compactor would, sometimes getting it wrong. */
    private Function<StreamMetadataState, Object> compactStreamSetObjects() {
        int node = 1 + random.nextInt(3);
        List<S3Object> candidates = state.getStreamSetObjects(node);
        if (candidates.isEmpty()) {
            return st -> "nothing";
        }
        int from = random.nextInt(candidates.size());
        List<S3Object> chosen = candidates.subList(from, Math.min(candidates.size(), from + 1 + random.nextInt(3)));
        // Per stream, the ranges sorted; contiguous runs become one output range.
        TreeMap<Long, List<StreamRange>> byStream = new TreeMap<>();
        for (S3Object o : chosen) {
            for (StreamRange r : o.ranges()) {
                byStream.computeIfAbsent(r.streamId(), k -> new ArrayList<>()).add(r);
            }
        }
        List<StreamRange> ranges = new ArrayList<>();
        List<StreamObjectSpec> split = new ArrayList<>();
        for (List<StreamRange> rs : byStream.values()) {
            rs.sort(Comparator.comparingLong(StreamRange::startOffset));
            List<StreamRange> runs = new ArrayList<>();
            for (StreamRange r : rs) {
                StreamRange last = runs.isEmpty() ? null : runs.get(runs.size() - 1);
                if (last != null && last.endOffset() == r.startOffset()) {
                    runs.set(runs.size() - 1, new StreamRange(r.streamId(), r.epoch(), last.startOffset(),
                            r.endOffset()));
                } else {
                    runs.add(r);
                }
            }
            for (StreamRange exact : runs) {
                StreamRange run = random.nextInt(40) == 0 && exact.endOffset() - exact.startOffset() > 1
                        ? new StreamRange(exact.streamId(), exact.epoch(), exact.startOffset(), exact.endOffset() - 1)
                        : exact;
                if (ranges.stream().noneMatch(r -> r.streamId() == run.streamId()) && random.nextInt(3) > 0) {
                    ranges.add(run);
                } else {
                    split.add(new StreamObjectSpec(takePrepared(), 10, run));
                }
            }
        }
        long objectId = ranges.isEmpty() ? -1 : takePrepared();
        List<Long> compacted = chosen.stream().map(S3Object::objectId).toList();
        CommitStreamSetObjectRequest r = new CommitStreamSetObjectRequest(node, objectId, 10, ranges, split, compacted,
                now);
        return st -> run(() -> st.commitStreamSetObject(r));
    }

    /** Merges a contiguous run of one stream's stream objects, sometimes getting it wrong. */
    private Function<StreamMetadataState, Object> compactStreamObjects(StreamInfo s) {
        List<S3Object> objects = state.getStreamObjects(s.streamId(), 0, -1, Integer.MAX_VALUE);
        if (objects.isEmpty()) {
            return st -> "nothing";
        }
        int from = random.nextInt(objects.size());
        int to = from;
        while (to + 1 < objects.size() && random.nextBoolean()
                && objects.get(to + 1).ranges().get(0).startOffset() == objects.get(to).ranges().get(0).endOffset()) {
            to++;
        }
        if (random.nextInt(20) == 0 && to + 1 < objects.size()) {
            to++;
        }
        List<S3Object> chosen = objects.subList(from, to + 1);
        long start = chosen.get(0).ranges().get(0).startOffset();
        if (random.nextBoolean()) {
            start = Math.max(start, s.startOffset());
        }
        long end = chosen.get(chosen.size() - 1).ranges().get(0).endOffset() + (random.nextInt(30) == 0 ? 1 : 0);
        StreamObjectSpec spec = new StreamObjectSpec(takePrepared(), 10, new StreamRange(s.streamId(), s.epoch(),
                start, end));
        CommitStreamObjectRequest r = new CommitStreamObjectRequest(spec,
                chosen.stream().map(S3Object::objectId).toList(), now);
        return st -> run(() -> st.commitStreamObject(r));
    }

    /** An open stream, except one time in {@code anyOneIn} any stream, so most commands can succeed. */
    private StreamInfo pick(List<StreamInfo> streams, int anyOneIn) {
        List<StreamInfo> open = streams.stream().filter(s -> s.state() == StreamInfo.State.OPEN).toList();
        List<StreamInfo> from = open.isEmpty() || random.nextInt(anyOneIn) == 0 ? streams : open;
        return from.get(random.nextInt(from.size()));
    }

    private long takePrepared() {
        if (random.nextInt(30) == 0) {
            return random.nextInt(10);
        }
        return prepared.isEmpty() ? 12345 : prepared.remove(random.nextInt(prepared.size()));
    }

    private static Object run(Runnable command) {
        command.run();
        return "";
    }
}
