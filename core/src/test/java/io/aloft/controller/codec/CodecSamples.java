package io.aloft.controller.codec;

import static org.junit.jupiter.api.Assertions.assertTrue;

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
import io.aloft.controller.command.Request;
import io.aloft.controller.command.RequestBatch;
import io.aloft.controller.command.UnregisterBroker;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.Endpoint;
import io.aloft.controller.model.MetadataEvent;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
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
import io.aloft.stream.metadata.S3Object;
import io.aloft.stream.metadata.StoredObject;
import io.aloft.stream.metadata.StreamInfo;
import io.aloft.stream.metadata.StreamMetadataSnapshot;
import io.aloft.stream.metadata.StreamObjectSpec;
import io.aloft.stream.metadata.StreamRange;
import io.aloft.stream.metadata.TrimStreamRequest;
import java.lang.reflect.Field;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Values of every type in the codec's registry, for round-trip tests. */
final class CodecSamples {
    private CodecSamples() {
    }

    static final StreamRange RANGE = new StreamRange(7, 3, 100, 250);
    static final StreamRange NEGATIVE_RANGE = new StreamRange(-1, -9, Long.MIN_VALUE, -1);
    static final Endpoint ENDPOINT = new Endpoint("PLAINTEXT", "broker-1.local", 9092, "PLAINTEXT");
    static final BrokerInfo BROKER = new BrokerInfo(1, "inc-1", 1L << 40, List.of(ENDPOINT,
            new Endpoint("SSL", "::1", 0, "SSL")), null, BrokerState.FENCED);
    static final PartitionInfo PARTITION = new PartitionInfo(0, -1, Integer.MAX_VALUE, List.of(0L, 1L << 62));
    static final TopicInfo TOPIC = new TopicInfo(new UUID(-1L, Long.MIN_VALUE), "orders",
            Map.of("retention.ms", "-1", "ünïcode", "値"), List.of(PARTITION, new PartitionInfo(1, 2, 0, List.of())));
    static final S3Object OBJECT = new S3Object(Long.MAX_VALUE, S3Object.Type.STREAM_SET,
            S3Object.State.MARKED_FOR_DELETION, 4096, List.of(RANGE, NEGATIVE_RANGE), -1, 1_700_000_000_000L, -1);
    static final StreamMetadataSnapshot STREAMS = new StreamMetadataSnapshot(3, 9, 2, 123,
            List.of(new StreamInfo(0, 2, StreamInfo.State.OPEN, 0, 10, 1),
                    new StreamInfo(1, 0, StreamInfo.State.CLOSED, 0, 0, -1)),
            List.of(new StoredObject(OBJECT, Long.MAX_VALUE, -1)));

    /** One value of every registered type, with the awkward cases (nulls, empties, extremes). */
    static List<Object> samples() {
        UUID client = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");
        Failure failure = new Failure(Failure.STREAM, "FENCED", "epoch 1 is not 2");
        return List.of(
                new Request(client, Long.MAX_VALUE, -5, new CreateStreamRequest(1)),
                new Request(client, 0, 0, new PutKv("k", new byte[] {0, -1, 127})),
                new RequestBatch(List.of(new Request(client, 1, 2, new CreateStreamRequest(3)),
                        new Request(client, 2, 2, new DeleteKv("x")))),
                Reply.of(List.of(OBJECT)), Reply.failed(failure), Reply.of(null), Reply.of(new byte[0]),
                Reply.of(Map.of("a", 1L, "b", List.of())),
                failure,
                new CreateStreamRequest(-1), new OpenStreamRequest(Long.MAX_VALUE, 1, 2),
                new CloseStreamRequest(5, Long.MIN_VALUE, 0), new TrimStreamRequest(5, 6, 1L << 50),
                new DeleteStreamRequest(-1, -1), new PrepareObjectsRequest(3, 100, 60_000, Long.MIN_VALUE),
                new CommitStreamSetObjectRequest(1, -1, 0, List.of(RANGE), List.of(new StreamObjectSpec(4, 10,
                        NEGATIVE_RANGE)), List.of(1L, 2L), 99),
                new CommitStreamSetObjectRequest(1, 3, 0, List.of(), List.of(), List.of(), 0),
                new CommitStreamObjectRequest(new StreamObjectSpec(1, 2, RANGE), List.of(8L), 1),
                new GetObjectsToDelete(10, 0), new ObjectsDeleted(List.of()), new ObjectsDeleted(List.of(-1L, 0L)),
                RANGE, NEGATIVE_RANGE, new StreamObjectSpec(0, 0, RANGE),
                new StreamInfo(1, 2, StreamInfo.State.OPEN, 3, 4, 5), StreamInfo.State.CLOSED, OBJECT,
                S3Object.Type.UNKNOWN, S3Object.State.PREPARED, new ObjectRef(1, S3Object.Type.STREAM, 9, RANGE),
                new StoredObject(OBJECT, -1, 17), STREAMS,
                new RegisterBroker(1, "inc", List.of(ENDPOINT), null), new RegisterBroker(0, "", List.of(), "rack-a"),
                new BrokerHeartbeat(1, 1L << 40), new FenceBroker(2, 0), new DrainBroker(3, -1),
                new UnregisterBroker(Integer.MIN_VALUE),
                new CreateTopic(UUID.randomUUID(), "t", 3, 2, Map.of()),
                new CreateTopic(new UUID(0, 0), "t2", 1, 1, Map.of("cleanup.policy", "compact")),
                new DeleteTopic(null), new CreatePartitions("t", 10),
                new AlterTopicConfigs("t", Map.of("a", ""), List.of("b", "c")),
                new ReassignPartition("t", 0, 2), new PutKv("", new byte[300]), new DeleteKv("key"),
                ENDPOINT, BrokerState.DRAINING, BROKER, PARTITION, TOPIC,
                new ClusterImage(42, List.of(BROKER), List.of(TOPIC)), new ClusterImage(-1, List.of(), List.of()),
                MetadataEvent.brokerChanged(5, BROKER), MetadataEvent.brokerRemoved(6, 1),
                MetadataEvent.topicDeleted(7, TOPIC),
                new WatchResult(null, List.of(MetadataEvent.topicChanged(8, TOPIC)), 9),
                new WatchResult(new ClusterImage(1, List.of(), List.of()), List.of(), 2),
                new Queries.DescribeCluster(), new Queries.GetTopics(List.of()), new Queries.GetTopics(List.of("a")),
                new Queries.GetObjects(1, 0, -1, 1000), new Queries.GetStreamSetObjects(-1),
                new Queries.GetStreamObjects(1, 5, 10, 0), new Queries.DescribeStream(Long.MIN_VALUE),
                new Queries.GetKv("k"), new Queries.Watch(0, Long.MAX_VALUE),
                new ControllerSnapshot(STREAMS, 7, List.of(BROKER), List.of(TOPIC),
                        List.of(new ControllerSnapshot.Kv("k", new byte[] {1, 2})), 1000, 0,
                        List.of(new ControllerSnapshot.Session(client, 999, List.of(
                                new ControllerSnapshot.CachedReply(1, Reply.of(3L)),
                                new ControllerSnapshot.CachedReply(2, Reply.failed(failure))))), 5000),
                new AllocateProducerIds(1, 1000), new Queries.GetKvPrefix("config/"),
                new ControllerSnapshot.Kv("empty", new byte[0]),
                new ControllerSnapshot.Session(client, 0, List.of()),
                new ControllerSnapshot.CachedReply(-1, Reply.of(TOPIC)));
    }

    @SuppressWarnings("unchecked")
    static List<Class<?>> registry() throws ReflectiveOperationException {
        // Read from the registry itself, so a type added there without a sample here fails the coverage test.
        Field f = Codecs.class.getDeclaredField("TYPES");
        f.setAccessible(true);
        return (List<Class<?>>) f.get(null);
    }

    static int typeId(Class<?> type) throws ReflectiveOperationException {
        int id = registry().indexOf(type);
        assertTrue(id >= 0, type + " is registered");
        return id;
    }
}
