package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.codec.ControllerCodec;
import io.aloft.controller.command.AllocateProducerIds;
import io.aloft.controller.command.AlterTopicConfigs;
import io.aloft.controller.command.BrokerHeartbeat;
import io.aloft.controller.command.CreatePartitions;
import io.aloft.controller.command.CreateTopic;
import io.aloft.controller.command.DeleteKv;
import io.aloft.controller.command.DeleteTopic;
import io.aloft.controller.command.DrainBroker;
import io.aloft.controller.command.FenceBroker;
import io.aloft.controller.command.GetObjectsToDelete;
import io.aloft.controller.command.ObjectsDeleted;
import io.aloft.controller.command.PutKv;
import io.aloft.controller.command.ReassignPartition;
import io.aloft.controller.command.RegisterBroker;
import io.aloft.controller.command.Reply;
import io.aloft.controller.command.ReportVoterFeatures;
import io.aloft.controller.command.Request;
import io.aloft.controller.command.RequestBatch;
import io.aloft.controller.command.UnregisterBroker;
import io.aloft.controller.command.UpdateFeatureLevel;
import io.aloft.controller.model.Endpoint;
import io.aloft.controller.model.FeatureLevel;
import io.aloft.controller.model.FeatureRange;
import io.aloft.stream.metadata.CloseStreamRequest;
import io.aloft.stream.metadata.CommitStreamObjectRequest;
import io.aloft.stream.metadata.CommitStreamSetObjectRequest;
import io.aloft.stream.metadata.CreateStreamRequest;
import io.aloft.stream.metadata.DeleteStreamRequest;
import io.aloft.stream.metadata.OpenStreamRequest;
import io.aloft.stream.metadata.PrepareObjectsRequest;
import io.aloft.stream.metadata.ReplaceStreamRangeRequest;
import io.aloft.stream.metadata.StreamObjectSpec;
import io.aloft.stream.metadata.StreamRange;
import io.aloft.stream.metadata.TrimStreamRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * The deterministic workload of the golden Raft storage fixture: every command type its level
 * allows, each as its own log entry with fixed client ids, sequences and clocks (so a regenerated fixture holds the
 * same state), and the awkward entries too: a batch, a rejected command, an idempotent retry, an
 * entry above the finalized feature level, an entry of the pre-release format.
 *
 * <p>Confined to the test thread.
 */
final class GoldenWorkload {
    static final long T0 = 1_700_000_000_000L;
    private static final UUID ADMIN = new UUID(0xA10F7, 1);
    private static final UUID BROKER = new UUID(0xA10F7, 2);
    private static final List<Endpoint> ENDPOINTS = List.of(new Endpoint("PLAINTEXT", "127.0.0.1", 9092, "PLAINTEXT"));

    private final RaftClient raft;
    private final ControllerCodec codec;
    private final int level;
    /** What the voter and the brokers of the workload support: the levels up to the fixture's. */
    private final FeatureRange supported;
    private long adminSequence;
    private long brokerSequence;

    GoldenWorkload(RaftClient raft, ControllerCodec codec, int level) {
        this.raft = raft;
        this.codec = codec;
        this.level = level;
        this.supported = new FeatureRange(1, level);
    }

    /** Brokers, topics, a stream and its objects through prepare, commit, compaction, trim and close. */
    void firstHalf() throws Exception {
        ok(admin(new ReportVoterFeatures(1, supported, List.of(1))));
        ok(admin(new RegisterBroker(1, "broker-1-run-1", ENDPOINTS, "rack-a", supported)));
        ok(admin(new RegisterBroker(2, "broker-2-run-1", ENDPOINTS, null, supported)));
        ok(admin(new RegisterBroker(3, "broker-3-run-1", ENDPOINTS, "rack-b", supported)));
        ok(admin(new BrokerHeartbeat(1, 0)));
        ok(admin(new CreateTopic(new UUID(1, 1), "orders", 3, 2, Map.of("retention.ms", "86400000"))));
        ok(admin(new AlterTopicConfigs("orders", Map.of("cleanup.policy", "delete"), List.of("retention.ms"))));
        ok(admin(new CreatePartitions("orders", 4)));
        ok(admin(new ReassignPartition("orders", 0, 3)));
        ok(admin(new CreateTopic(new UUID(2, 2), "audit", 1, 1, Map.of())));
        long stream = (Long) ok(broker(new CreateStreamRequest(1), 0));
        ok(broker(new OpenStreamRequest(stream, 1, 1), 0));
        long first = (Long) ok(broker(new PrepareObjectsRequest(1, 7, 600_000, T0), 0));
        ok(broker(new CommitStreamSetObjectRequest(1, first, 1000, List.of(range(stream, 0, 100)), List.of(),
                List.of(), T0 + 1), 1));
        ok(broker(new CommitStreamSetObjectRequest(1, first + 1, 800, List.of(range(stream, 100, 150)),
                List.of(new StreamObjectSpec(first + 2, 400, range(stream, 150, 200))), List.of(), T0 + 2), 2));
        ok(broker(new CommitStreamSetObjectRequest(1, -1, 0, List.of(),
                List.of(new StreamObjectSpec(first + 3, 300, range(stream, 200, 260))), List.of(), T0 + 3), 3));
        // Compaction: two stream-set objects into one, two stream objects into one.
        ok(broker(new CommitStreamSetObjectRequest(1, first + 4, 1700, List.of(range(stream, 0, 150)), List.of(),
                List.of(first, first + 1), T0 + 4), 4));
        ok(broker(new CommitStreamObjectRequest(new StreamObjectSpec(first + 5, 700, range(stream, 150, 260)),
                List.of(first + 2, first + 3), T0 + 5), 5));
        ok(broker(new TrimStreamRequest(stream, 1, 120), 6));
        if (level >= FeatureLevel.KEY_COMPACTION) {
            // Key compaction: [120, 200) rewritten; the merged stream-set object has nothing live left,
            // the merged stream object keeps [200, 260).
            long rewritten = (Long) ok(broker(new PrepareObjectsRequest(1, 1, 600_000, T0 + 7), 7));
            ok(broker(new ReplaceStreamRangeRequest(stream, 1, 120, 200, List.of(new StreamObjectSpec(rewritten, 500,
                    range(stream, 120, 200))), T0 + 8), 8));
        }
        // Twenty minutes on: the compacted objects and the expired prepared one are due for deletion.
        ok(broker(new GetObjectsToDelete(T0 + 1_200_000, 0), 1_200_000));
        ok(broker(new ObjectsDeleted(List.of(first, first + 1, first + 2, first + 3)), 1_200_001));
        ok(broker(new CloseStreamRequest(stream, 1, 1), 1_200_002));
    }

    /** The key-value space, producer ids, broker lifecycle, deletions, and the awkward entries. */
    void secondHalf() throws Exception {
        ok(admin(new PutKv("config/topic/orders", "retention.ms=1".getBytes(StandardCharsets.UTF_8))));
        ok(admin(new PutKv("config/broker/1", new byte[] {0, 1, -1})));
        ok(admin(new DeleteKv("config/broker/1")));
        Request allocate = admin(new AllocateProducerIds(1, 1000));
        ok(allocate);
        ok(admin(new FenceBroker(3, 2)));
        ok(admin(new BrokerHeartbeat(3, 2)));
        ok(admin(new DrainBroker(2, 1)));
        ok(admin(new UnregisterBroker(3)));
        ok(admin(new DeleteTopic("audit")));
        ok(broker(new DeleteStreamRequest(0, 0), 1_300_000)); // the first stream of "orders": gone by hand
        Reply batch = send(codec.encode(new RequestBatch(List.of(admin(new PutKv("batch/a", new byte[] {1})),
                admin(new CreateStreamRequest(2)), admin(new PutKv("batch/b", new byte[] {2})))), level, level));
        assertNull(batch.failure(), String.valueOf(batch.failure()));
        // A rejected command is remembered too; a retry gets the first reply and changes nothing.
        Reply rejected = send(admin(new CreateTopic(new UUID(3, 3), "orders", 1, 1, Map.of())));
        assertEquals("TOPIC_EXISTS", rejected.failure().code());
        assertEquals(0L, ok(allocate), "the retry of an applied request gets its first reply");
        assertEquals(level, ok(admin(new UpdateFeatureLevel(level, List.of(1)))));
        // An entry that claims a feature level above the finalized one, and one of the pre-release format.
        byte[] above = codec.encode(admin(new PutKv("never", new byte[0])), level, level);
        above[3] = (byte) (level + 1);
        assertEquals("FEATURE_LEVEL_NOT_FINALIZED", send(above).failure().code());
        assertTrue(send(new byte[] {10, 0, 8, 1}).failure().message().contains("pre-release"));
        ok(admin(new RegisterBroker(4, "broker-4-run-1", ENDPOINTS, null, supported)));
    }

    private static StreamRange range(long stream, long start, long end) {
        return new StreamRange(stream, 1, start, end);
    }

    private Request admin(Object command) {
        adminSequence++;
        return new Request(ADMIN, adminSequence, T0 + adminSequence, command);
    }

    private Request broker(Object command, long atMs) {
        return new Request(BROKER, ++brokerSequence, T0 + atMs, command);
    }

    private Object ok(Request request) throws Exception {
        Reply reply = send(request);
        assertNull(reply.failure(), () -> request.command() + " failed: " + reply.failure());
        return reply.value();
    }

    private Reply send(Request request) throws Exception {
        return send(codec.encode(request, level, level));
    }

    private Reply send(byte[] entry) throws Exception {
        RaftClientReply reply = raft.async().send(Message.valueOf(ByteString.copyFrom(entry))).get(60,
                TimeUnit.SECONDS);
        assertTrue(reply.isSuccess(), String.valueOf(reply.getException()));
        return codec.decode(reply.getMessage().getContent().toByteArray(), Reply.class);
    }
}
