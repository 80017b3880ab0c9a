package io.aloft.controller.codec;

import io.aloft.controller.command.AllocateProducerIds;
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
import io.aloft.controller.command.ReportVoterFeatures;
import io.aloft.controller.command.Request;
import io.aloft.controller.command.RequestBatch;
import io.aloft.controller.command.UnregisterBroker;
import io.aloft.controller.command.UpdateFeatureLevel;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.Endpoint;
import io.aloft.controller.model.FeatureRange;
import io.aloft.controller.model.FeatureStatus;
import io.aloft.controller.model.MetadataEvent;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import io.aloft.controller.model.VoterFeatures;
import io.aloft.controller.model.WatchResult;
import io.aloft.controller.query.Queries;
import io.aloft.controller.state.ControllerSnapshot;
import io.aloft.stream.metadata.CloseStreamRequest;
import io.aloft.stream.metadata.CommitStreamObjectRequest;
import io.aloft.stream.metadata.CommitStreamSetObjectRequest;
import io.aloft.stream.metadata.CreateStreamRequest;
import io.aloft.stream.metadata.DeleteStreamRequest;
import io.aloft.stream.metadata.ObjectRef;
import io.aloft.stream.metadata.OpenStreamRequest;
import io.aloft.stream.metadata.PrepareObjectsRequest;
import io.aloft.stream.metadata.ReplaceStreamRangeRequest;
import io.aloft.stream.metadata.S3Object;
import io.aloft.stream.metadata.StoredObject;
import io.aloft.stream.metadata.StreamInfo;
import io.aloft.stream.metadata.StreamMetadataSnapshot;
import io.aloft.stream.metadata.StreamObjectSpec;
import io.aloft.stream.metadata.StreamRange;
import io.aloft.stream.metadata.TrimStreamRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Values of every type in the production registry: one deterministic value per record type with
 * every field set (what the golden fixtures are generated from), plus awkward cases (nulls,
 * empties, extremes) for round trips.
 */
final class CodecSamples {
    private CodecSamples() {
    }

    static final UUID CLIENT = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");
    static final StreamRange RANGE = new StreamRange(7, 3, 100, 250);
    static final StreamRange NEGATIVE_RANGE = new StreamRange(-1, -9, Long.MIN_VALUE, -1);
    static final Endpoint ENDPOINT = new Endpoint("PLAINTEXT", "broker-1.local", 9092, "PLAINTEXT");
    static final FeatureRange FEATURES = new FeatureRange(1, 1);
    static final BrokerInfo BROKER = new BrokerInfo(1, "inc-1", 1L << 40, List.of(ENDPOINT,
            new Endpoint("SSL", "::1", 0, "SSL")), "rack-a", BrokerState.FENCED, FEATURES);
    static final PartitionInfo PARTITION = new PartitionInfo(0, -1, Integer.MAX_VALUE, List.of(0L, 1L << 62));
    static final TopicInfo TOPIC = new TopicInfo(new UUID(-1L, Long.MIN_VALUE), "orders",
            Map.of("retention.ms", "-1", "ünïcode", "値"),
            List.of(PARTITION, new PartitionInfo(1, 2, 0, List.of())));
    static final S3Object OBJECT = new S3Object(Long.MAX_VALUE, S3Object.Type.STREAM_SET,
            S3Object.State.MARKED_FOR_DELETION, 4096, List.of(RANGE, NEGATIVE_RANGE), -1, 1_700_000_000_000L, -1);
    static final StreamInfo STREAM = new StreamInfo(0, 2, StreamInfo.State.OPEN, 0, 10, 1);
    static final StreamMetadataSnapshot STREAMS = new StreamMetadataSnapshot(3, 9, 2, 123,
            List.of(STREAM, new StreamInfo(1, 0, StreamInfo.State.CLOSED, 0, 0, -1)),
            List.of(new StoredObject(OBJECT, Long.MAX_VALUE, -1)));
    static final Failure FAILURE = new Failure(Failure.STREAM, "FENCED", "epoch 1 is not 2");
    static final VoterFeatures VOTER = new VoterFeatures(3, new FeatureRange(1, 7));
    static final ControllerSnapshot.CachedReply CACHED_REPLY = new ControllerSnapshot.CachedReply(1, Reply.of(3L));
    static final ControllerSnapshot.Session SESSION = new ControllerSnapshot.Session(CLIENT, 999, List.of(CACHED_REPLY,
            new ControllerSnapshot.CachedReply(2, Reply.failed(FAILURE))));
    static final ControllerSnapshot.Kv KV = new ControllerSnapshot.Kv("k", new byte[] {1, 2});

    /** One value per record type, every field set (nulls only where a field has no other value). */
    static Map<Class<?>, Object> golden() {
        Map<Class<?>, Object> m = new LinkedHashMap<>();
        for (Object o : List.of(
                // envelope
                new Request(CLIENT, Long.MAX_VALUE, 1_700_000_000_000L, new CreateStreamRequest(1)),
                Reply.of(List.of(OBJECT)),
                FAILURE,
                new RequestBatch(List.of(new Request(CLIENT, 1, 2, new CreateStreamRequest(3)),
                        new Request(CLIENT, 2, 2, new DeleteKv("x")))),
                // stream and object commands
                new CreateStreamRequest(-1), new OpenStreamRequest(Long.MAX_VALUE, 1, 2),
                new CloseStreamRequest(5, Long.MIN_VALUE, 0), new TrimStreamRequest(5, 6, 1L << 50),
                new DeleteStreamRequest(-1, -1), new PrepareObjectsRequest(3, 100, 60_000, Long.MIN_VALUE),
                new CommitStreamSetObjectRequest(1, -1, 0, List.of(RANGE), List.of(new StreamObjectSpec(4, 10,
                        NEGATIVE_RANGE)), List.of(1L, 2L), 99),
                new CommitStreamObjectRequest(new StreamObjectSpec(1, 2, RANGE), List.of(8L), 1),
                new GetObjectsToDelete(10, 0), new ObjectsDeleted(List.of(-1L, 0L)),
                new ReplaceStreamRangeRequest(7, 3, 100, 250, List.of(new StreamObjectSpec(11, 4096,
                        new StreamRange(7, 3, 100, 180)), new StreamObjectSpec(12, 512, new StreamRange(7, 3, 180, 250))),
                        1_700_000_000_001L),
                // stream and object values
                RANGE, new StreamObjectSpec(0, 0, RANGE), STREAM, OBJECT,
                new ObjectRef(1, S3Object.Type.STREAM, 9, RANGE), new StoredObject(OBJECT, -1, 17), STREAMS,
                // cluster commands
                new RegisterBroker(1, "inc", List.of(ENDPOINT), "rack-a", FEATURES),
                new BrokerHeartbeat(1, 1L << 40), new FenceBroker(2, 0), new DrainBroker(3, -1),
                new UnregisterBroker(Integer.MIN_VALUE),
                new CreateTopic(new UUID(1, 2), "t2", 1, 1, Map.of("cleanup.policy", "delete", "a", "b")),
                new DeleteTopic("gone"), new CreatePartitions("t", 10),
                new AlterTopicConfigs("t", Map.of("a", ""), List.of("b", "c")),
                new ReassignPartition("t", 0, 2), new PutKv("config/x", new byte[] {0, -1, 127}), new DeleteKv("key"),
                new AllocateProducerIds(1, 1000), new ReportVoterFeatures(2, FEATURES, List.of(1, 2, 3)),
                new UpdateFeatureLevel(1, List.of(1, 2, 3)),
                // cluster values
                ENDPOINT, BROKER, PARTITION, TOPIC, FEATURES, VOTER, new FeatureStatus(1, List.of(VOTER)),
                new ClusterImage(42, List.of(BROKER), List.of(TOPIC), 4,
                        new java.util.TreeMap<>(Map.of("security/acl/a", new byte[] {1, 2}, "security/b", new byte[0]))),
                new MetadataEvent(5, BROKER, 4, TOPIC, TOPIC, 2, "security/scram/u/SCRAM-SHA-256", new byte[] {9}),
                new WatchResult(new ClusterImage(1, List.of(), List.of(), 1),
                        List.of(MetadataEvent.topicChanged(8, TOPIC)), 9),
                // queries
                new Queries.DescribeCluster(), new Queries.DescribeFeatures(), new Queries.GetTopics(List.of("a", "b")),
                new Queries.GetObjects(1, 0, -1, 1000), new Queries.GetStreamSetObjects(-1),
                new Queries.GetStreamObjects(1, 5, 10, 0), new Queries.DescribeStream(Long.MIN_VALUE),
                new Queries.GetKv("k"), new Queries.GetKvPrefix("config/"), new Queries.Watch(0, Long.MAX_VALUE),
                // snapshot
                new ControllerSnapshot(STREAMS, 7, List.of(BROKER), List.of(TOPIC), List.of(KV), 1000, 0,
                        List.of(SESSION), 5000, 1, List.of(VOTER), true),
                KV, SESSION, CACHED_REPLY)) {
            if (m.put(o.getClass(), o) != null) {
                throw new AssertionError("two golden samples of " + o.getClass());
            }
        }
        return m;
    }

    /** Every golden value, every enum constant, and the awkward cases. */
    static List<Object> samples() {
        List<Object> all = new ArrayList<>(golden().values());
        all.addAll(Arrays.asList(BrokerState.values()));
        all.addAll(Arrays.asList(StreamInfo.State.values()));
        all.addAll(Arrays.asList(S3Object.Type.values()));
        all.addAll(Arrays.asList(S3Object.State.values()));
        all.addAll(List.of(
                new Request(CLIENT, 0, -5, new PutKv("", new byte[300])),
                Reply.failed(FAILURE), Reply.of(null), Reply.of(new byte[0]), Reply.of(BrokerState.DRAINING),
                Reply.of(Map.of("a", 1L, "b", List.of(), "c", new byte[] {1})), Reply.of(List.of(Reply.of(7))),
                Reply.of(new UUID(0, 0)), Reply.of(true), Reply.of(""),
                new Failure(null, null, null),
                new CommitStreamSetObjectRequest(1, 3, 0, List.of(), List.of(), List.of(), 0),
                new ObjectsDeleted(List.of()),
                new RegisterBroker(0, "", List.of(), null, new FeatureRange(1, Integer.MAX_VALUE)),
                new CreateTopic(UUID.randomUUID(), "t", 3, 2, Map.of()),
                new DeleteTopic(null), new UpdateFeatureLevel(0, List.of()),
                new BrokerInfo(0, "", 0, List.of(), null, BrokerState.ACTIVE, FEATURES),
                new ClusterImage(-1, List.of(), List.of(), 1),
                MetadataEvent.brokerChanged(5, BROKER), MetadataEvent.brokerRemoved(6, 1),
                MetadataEvent.topicDeleted(7, TOPIC), MetadataEvent.featureLevelChanged(8, 3),
                MetadataEvent.kvChanged(9, "security/quota/x", null),
                new WatchResult(null, List.of(), 9),
                new Queries.GetTopics(List.of()),
                new ControllerSnapshot.Kv("empty", new byte[0]),
                new ControllerSnapshot.Session(CLIENT, 0, List.of()),
                new ControllerSnapshot.CachedReply(-1, Reply.of(TOPIC))));
        return all;
    }
}
