package io.aloft.controller.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.aloft.controller.codec.ControllerCodec;
import io.aloft.controller.codec.ControllerSchemas;
import io.aloft.controller.codec.MalformedDataException;
import io.aloft.controller.command.AlterTopicConfigs;
import io.aloft.controller.command.BrokerHeartbeat;
import io.aloft.controller.command.CreatePartitions;
import io.aloft.controller.command.CreateTopic;
import io.aloft.controller.command.DeleteKv;
import io.aloft.controller.command.DeleteTopic;
import io.aloft.controller.command.DrainBroker;
import io.aloft.controller.command.Failure;
import io.aloft.controller.command.FenceBroker;
import io.aloft.controller.command.GetObjectsToDelete;
import io.aloft.controller.command.ObjectsDeleted;
import io.aloft.controller.command.PutKv;
import io.aloft.controller.command.ReassignPartition;
import io.aloft.controller.command.RegisterBroker;
import io.aloft.controller.command.Reply;
import io.aloft.controller.command.Request;
import io.aloft.controller.command.UnregisterBroker;
import io.aloft.controller.model.FeatureRange;
import io.aloft.controller.model.FeatureLevel;
import io.aloft.controller.model.MetadataEvent;
import io.aloft.controller.query.Queries;
import io.aloft.stream.metadata.CloseStreamRequest;
import io.aloft.stream.metadata.CommitStreamObjectRequest;
import io.aloft.stream.metadata.CommitStreamSetObjectRequest;
import io.aloft.stream.metadata.CreateStreamRequest;
import io.aloft.stream.metadata.DeleteStreamRequest;
import io.aloft.stream.metadata.OpenStreamRequest;
import io.aloft.stream.metadata.PrepareObjectsRequest;
import io.aloft.stream.metadata.StreamObjectSpec;
import io.aloft.stream.metadata.StreamRange;
import io.aloft.stream.metadata.TrimStreamRequest;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Idempotent retries, rejections that change nothing, snapshot and restore. */
class ControllerStateReplayTest extends StateTestSupport {
    private static final ControllerCodec CODEC = ControllerSchemas.CODEC;
    private static final int LEVEL = FeatureLevel.INITIAL;

    // ---- idempotence and rejections ----

    @Test
    void aRetriedRequestIsAppliedOnceAndGetsTheSameReply() {
        register(1, "a");
        Request create = new Request(CLIENT, ++sequence, nowMs, new CreateTopic(new UUID(4, 4), "t", 1, 1, Map.of()));
        List<MetadataEvent> first = new ArrayList<>();
        Reply reply = state.apply(++index, create, first::add);
        assertNull(reply.failure());
        String after = state.snapshot().dump();
        List<MetadataEvent> second = new ArrayList<>();
        assertSame(reply, state.apply(++index, create, second::add)); // not TOPIC_EXISTS: not applied again
        assertEquals(1, first.size());
        assertEquals(List.of(), second);
        assertEquals(after, state.snapshot().dump());

        // A failed command is remembered too: its retry fails the same way even after the cause went away.
        Request grow = new Request(CLIENT, ++sequence, nowMs, new CreatePartitions("later", 3));
        Reply failed = state.apply(++index, grow, events::add);
        assertFailure(failed, Failure.CONTROLLER, "TOPIC_NOT_FOUND");
        createTopic("later", 1);
        assertSame(failed, state.apply(++index, grow, events::add));
        assertEquals(1, topic("later").partitions().size());
    }

    @Test
    void aRetryOlderThanTheRetainedRepliesIsTooOld() {
        Consumer<MetadataEvent> none = e -> { };
        Request first = new Request(CLIENT, 1, nowMs, new CreateStreamRequest(1));
        Reply reply = state.apply(1, first, none);
        for (long seq = 2; seq <= RequestLog.MAX_REPLIES_PER_CLIENT; seq++) {
            state.apply(seq, new Request(CLIENT, seq, nowMs, new DeleteKv("k")), none);
        }
        // 1023 newer replies: the first is still retained.
        assertSame(reply, state.apply(2000, first, none));
        state.apply(2001, new Request(CLIENT, 1025, nowMs, new DeleteKv("k")), none);
        String before = state.snapshot().dump();
        assertFailure(state.apply(2002, first, none), Failure.CONTROLLER, "REQUEST_TOO_OLD");
        assertEquals(before, state.snapshot().dump(), "neither applied again nor remembered");
        // Other clients are unaffected.
        assertNull(state.apply(2003, new Request(new UUID(0, 1), 1, nowMs, new DeleteKv("k")), none).failure());
    }

    @Test
    void idleClientsAreForgotten() {
        Request old = new Request(CLIENT, 1, nowMs, new CreateStreamRequest(1));
        assertEquals(0L, state.apply(1, old, e -> { }).value());
        // Another client moves the controller clock past the session expiry.
        state.apply(2, new Request(new UUID(0, 1), 1, nowMs + RequestLog.SESSION_EXPIRY_MS + 60_001,
                new DeleteKv("k")), e -> { });
        assertEquals(1L, state.apply(3, old, e -> { }).value(), "forgotten, so applied as new");
    }

    @Test
    void rejectedCommandsChangeNothing() {
        long e1 = register(1, "a");
        register(2, "b");
        createTopic("t", 3);
        long stream = ok(new CreateStreamRequest(1));
        ok(new OpenStreamRequest(stream, 1, 1));
        String before = dumpWithoutSessions(state);
        List<Object> bad = List.of(new BrokerHeartbeat(1, e1 + 7), new FenceBroker(2, 99), new DrainBroker(3, 0),
                new UnregisterBroker(5), new CreateTopic(new UUID(1, 1), "t", 1, 1, Map.of()),
                new CreateTopic(new UUID(1, 2), "bad/name", 4, 1, Map.of()), new CreatePartitions("t", 2),
                new AlterTopicConfigs("t", Map.of("ok", "1", "", "bad"), List.of()),
                new ReassignPartition("t", 5, 1), new DeleteTopic("nope"), new TrimStreamRequest(stream, 0, 0),
                new OpenStreamRequest(stream, 1, 2), new PrepareObjectsRequest(1, 0, 1, nowMs),
                new CommitStreamSetObjectRequest(1, 12345, 1, List.of(new StreamRange(stream, 1, 0, 1)), List.of(),
                        List.of(), nowMs), new StreamRange(1, 1, 0, 1) /* not a command */);
        events.clear();
        for (Object command : bad) {
            assertTrue(apply(command).failure() != null, command.toString());
        }
        assertEquals(before, dumpWithoutSessions(state));
        assertEquals(List.of(), events);
    }

    @Test
    void corruptedButDecodableRequestsAreAnsweredNeverThrown() {
        // Whatever decodes can reach apply from a client; an exception there would stop every replica at
        // the same log entry, so every one must end in a reply.
        long seed = 0xa10f_7e57L;
        Random random = new Random(seed);
        StreamRange range = new StreamRange(0, 1, 0, 5);
        List<Object> commands = List.of(new RegisterBroker(1, "a", ENDPOINTS, null, FeatureRange.INITIAL_ONLY),
                new BrokerHeartbeat(1, 0),
                new FenceBroker(1, 0), new DrainBroker(1, 0), new UnregisterBroker(1),
                new CreateTopic(new UUID(1, 1), "t", 2, 2, Map.of("k", "v")), new DeleteTopic("t"),
                new CreatePartitions("t", 3), new AlterTopicConfigs("t", Map.of("k", "v"), List.of("x")),
                new ReassignPartition("t", 0, 1), new PutKv("k", new byte[] {1}), new DeleteKv("k"),
                new CreateStreamRequest(1), new OpenStreamRequest(0, 1, 1), new CloseStreamRequest(0, 1, 1),
                new TrimStreamRequest(0, 1, 1), new DeleteStreamRequest(0, 1), new PrepareObjectsRequest(1, 2, 100, 5),
                new CommitStreamSetObjectRequest(1, 0, 10, List.of(range), List.of(new StreamObjectSpec(1, 10,
                        new StreamRange(1, 1, 0, 5))), List.of(), 5),
                new CommitStreamObjectRequest(new StreamObjectSpec(2, 10, range), List.of(1L), 6),
                new GetObjectsToDelete(10, 0), new ObjectsDeleted(List.of(0L)));
        List<Object> queries = List.of(new Queries.DescribeCluster(), new Queries.GetTopics(List.of("t")),
                new Queries.GetObjects(0, 0, -1, 10), new Queries.GetStreamSetObjects(1),
                new Queries.GetStreamObjects(0, 0, -1, 10), new Queries.DescribeStream(0), new Queries.GetKv("k"));
        for (int i = 1; i <= 20_000; i++) {
            Object value = random.nextInt(4) == 0 ? queries.get(random.nextInt(queries.size()))
                    : new Request(new UUID(0, random.nextInt(3)), i, i, commands.get(random.nextInt(commands.size())));
            byte[] bytes = CODEC.encode(value, LEVEL, LEVEL);
            if (random.nextInt(3) > 0) {
                bytes = mutate(bytes, random); // else unchanged: the state moves on too
            }
            Object decoded;
            try {
                decoded = CODEC.decode(bytes).value();
            } catch (MalformedDataException e) {
                continue;
            }
            try {
                Reply reply = decoded instanceof Request r ? state.apply(i, r, e -> { }) : state.query(decoded, i);
                assertTrue(reply != null);
            } catch (Throwable t) {
                fail("seed " + seed + " step " + i + ": " + decoded + " threw " + t, t);
            }
        }
    }

    /**
     * {@code bytes} with a few bytes changed, a range cut out, or a range repeated: decoding gets
     * past the header and deep into records (the codec rejects most; the rest must reach apply).
     */
    private static byte[] mutate(byte[] bytes, Random random) {
        byte[] out = bytes.clone();
        int from = 6 + random.nextInt(out.length - 6); // past the frame header, which is checked first
        int to = from + random.nextInt(out.length - from + 1);
        switch (random.nextInt(3)) {
            case 0 -> {
                for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
                    out[6 + random.nextInt(out.length - 6)] = (byte) random.nextInt(256);
                }
            }
            case 1 -> {
                ByteArrayOutputStream cut = new ByteArrayOutputStream();
                cut.write(out, 0, from);
                cut.write(out, to, out.length - to);
                out = cut.toByteArray();
            }
            default -> {
                ByteArrayOutputStream repeated = new ByteArrayOutputStream();
                repeated.write(out, 0, to);
                repeated.write(out, from, out.length - from);
                out = repeated.toByteArray();
            }
        }
        return out;
    }

    // ---- snapshots ----

    @Test
    void restoredStateEqualsTheOriginalAndEvolvesIdentically() {
        long e1 = register(1, "a");
        register(2, "b");
        createTopic("t", 4);
        ok(new AlterTopicConfigs("t", Map.of("k", "v"), List.of()));
        ok(new PutKv("key", new byte[] {9}));
        long stream = ok(new CreateStreamRequest(1));
        ok(new OpenStreamRequest(stream, 1, 1));
        long objectId = ok(new PrepareObjectsRequest(1, 2, 60_000, nowMs));
        ok(new CommitStreamSetObjectRequest(1, objectId, 10, List.of(new StreamRange(stream, 1, 0, 5)), List.of(),
                List.of(), nowMs));
        rejected(new DeleteTopic("missing"), "TOPIC_NOT_FOUND");
        Request earlier = new Request(CLIENT, sequence, nowMs, new DeleteTopic("missing"));

        // Through the codec, as a snapshot file would go.
        ControllerSnapshot saved = CODEC.decode(CODEC.encode(state.snapshot(), LEVEL, LEVEL),
                ControllerSnapshot.class);
        ControllerState restored = new ControllerState();
        restored.restore(saved);
        assertEquals(state.snapshot().dump(), restored.snapshot().dump());

        ControllerState original = state;
        List<Object> further = List.of(new FenceBroker(1, e1), new CreateTopic(new UUID(2, 2), "u", 3, 2, Map.of()),
                new RegisterBroker(3, "c", ENDPOINTS, "r", FeatureRange.INITIAL_ONLY), new CreatePartitions("t", 6),
                new DeleteTopic("u"),
                new ReassignPartition("t", 0, 3), new PutKv("key2", new byte[0]), new DeleteKv("key"),
                new CommitStreamSetObjectRequest(1, objectId + 1, 10, List.of(new StreamRange(stream, 1, 5, 9)),
                        List.of(), List.of(), nowMs + 5), new TrimStreamRequest(stream, 1, 5));
        long startIndex = index;
        long startSequence = sequence;
        List<Reply> fromOriginal = new ArrayList<>();
        List<Reply> fromRestored = new ArrayList<>();
        List<MetadataEvent> eventsOriginal = new ArrayList<>();
        List<MetadataEvent> eventsRestored = new ArrayList<>();
        for (ControllerState s : List.of(original, restored)) {
            state = s;
            index = startIndex;
            sequence = startSequence;
            events.clear();
            List<Reply> replies = s == original ? fromOriginal : fromRestored;
            further.forEach(c -> replies.add(apply(c)));
            // The retry of a request from before the snapshot gets its remembered reply on both.
            replies.add(state.apply(++index, earlier, events::add));
            (s == original ? eventsOriginal : eventsRestored).addAll(events);
        }
        assertEquals(further.size() + 1, fromOriginal.size());
        fromOriginal.subList(0, further.size()).forEach(r -> assertNull(r.failure(), String.valueOf(r.failure())));
        assertFailure(fromOriginal.get(further.size()), Failure.CONTROLLER, "TOPIC_NOT_FOUND");
        assertEquals(fromOriginal, fromRestored);
        assertEquals(eventsOriginal, eventsRestored);
        assertEquals(original.snapshot().dump(), restored.snapshot().dump());
        assertEquals(original.image(index), restored.image(index));
    }
}
