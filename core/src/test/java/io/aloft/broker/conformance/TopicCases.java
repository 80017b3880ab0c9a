package io.aloft.broker.conformance;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopicCollection;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicCollection;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfigCollection;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData.DescribableLogDirTopic;
import org.apache.kafka.common.message.DescribeLogDirsRequestData.DescribableLogDirTopicCollection;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.UnregisterBrokerRequestData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * ApiVersions, Metadata (all topics as v0 and v1+ ask for them, by name, by id, unknown ones with
 * and without auto-creation), topic administration (CreateTopics, DeleteTopics by name and id,
 * CreatePartitions, each with its error cases), DescribeCluster, DescribeLogDirs and UnregisterBroker's
 * refusal of an id not registered.
 *
 * <p>Stateless.
 */
final class TopicCases {
    private static final Uuid UNKNOWN_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");

    private TopicCases() {
    }

    static List<Shape> shapes() {
        List<Shape> shapes = new ArrayList<>();
        shapes.add(Shape.of(ApiKeys.API_VERSIONS, "with client software", (t, v) -> new ApiVersionsRequestData()
                .setClientSoftwareName(v >= 3 ? "aloft-conformance" : "").setClientSoftwareVersion(v >= 3 ? "1.0" : "")));
        shapes.add(Shape.of(ApiKeys.API_VERSIONS, "invalid client software name", 3, 4, (t, v) ->
                new ApiVersionsRequestData().setClientSoftwareName("bad name!").setClientSoftwareVersion("1.0")));

        shapes.add(Shape.script(ApiKeys.METADATA, "all topics (v0: empty list, v1+: null)", 0, 13, (s, v) -> {
            MetadataRequestData r = new MetadataRequestData().setTopics(v == 0 ? new ArrayList<>() : null);
            MetadataResponseData m = (MetadataResponseData) s.ask("", ApiKeys.METADATA, v, r);
            s.note("", "lists " + Target.DATA, m.topics().find(Target.DATA) != null);
            s.note("", "brokers", m.brokers().size());
        }));
        shapes.add(Shape.script(ApiKeys.METADATA, "no topics (v1+: empty list)", 1, 13, (s, v) -> {
            MetadataResponseData m = (MetadataResponseData) s.ask("", ApiKeys.METADATA, v,
                    new MetadataRequestData().setTopics(new ArrayList<>()));
            s.note("", "topics", m.topics().size());
        }));
        shapes.add(Shape.script(ApiKeys.METADATA, "by name", 0, 13, (s, v) -> {
            MetadataResponseData m = (MetadataResponseData) s.ask("", ApiKeys.METADATA, v, metadata(v,
                    new MetadataRequestTopic().setName(Target.DATA), new MetadataRequestTopic().setName(Target.EMPTY)));
            m.topics().forEach(t -> s.note(t.name(), "partitions", t.partitions().size()));
        }));
        shapes.add(Shape.of(ApiKeys.METADATA, "unknown topic, auto-creation off", 4, 13, (t, v) -> metadata(v,
                new MetadataRequestTopic().setName("conf-missing")).setAllowAutoTopicCreation(false)));
        shapes.add(Shape.script(ApiKeys.METADATA, "unknown topic auto-created", 0, 13, (s, v) -> {
            String topic = "conf-auto-v" + v;
            s.ask("first answer", ApiKeys.METADATA, v, metadata(v, new MetadataRequestTopic().setName(topic)));
            s.target.awaitTopic(topic, 1); // as a client asks again until the topic is there
        }));
        shapes.add(Shape.of(ApiKeys.METADATA, "invalid topic name", 4, 13, (t, v) -> metadata(v,
                new MetadataRequestTopic().setName("conf-bad name!"))));
        shapes.add(Shape.of(ApiKeys.METADATA, "by topic id", 10, 13, (t, v) -> metadata(v,
                new MetadataRequestTopic().setTopicId(t.topicId(Target.DATA)).setName(null))));
        shapes.add(Shape.of(ApiKeys.METADATA, "unknown topic id", 10, 13, (t, v) -> metadata(v,
                new MetadataRequestTopic().setTopicId(UNKNOWN_ID).setName(null))));
        shapes.add(Shape.of(ApiKeys.METADATA, "authorized operations asked", 8, 13, (t, v) -> metadata(v,
                new MetadataRequestTopic().setName(Target.DATA)).setIncludeTopicAuthorizedOperations(true)));

        shapes.add(Shape.of(ApiKeys.CREATE_TOPICS, "new, existing, invalid", (t, v) -> {
            CreatableTopicCollection topics = new CreatableTopicCollection();
            topics.add(new CreatableTopic().setName("conf-created-v" + v).setNumPartitions(2).setReplicationFactor(
                    (short) 1).setConfigs(configs("retention.ms", "3600000")));
            topics.add(new CreatableTopic().setName(Target.DATA).setNumPartitions(1).setReplicationFactor((short) 1));
            topics.add(new CreatableTopic().setName("conf-bad name!").setNumPartitions(1).setReplicationFactor(
                    (short) 1));
            topics.add(new CreatableTopic().setName("conf-zero-partitions-v" + v).setNumPartitions(0)
                    .setReplicationFactor((short) 1));
            topics.add(new CreatableTopic().setName("conf-unknown-config-v" + v).setNumPartitions(1)
                    .setReplicationFactor((short) 1).setConfigs(configs("no.such.config", "1")));
            topics.add(new CreatableTopic().setName("conf-rf-minus-2-v" + v).setNumPartitions(1)
                    .setReplicationFactor((short) -2));
            return new CreateTopicsRequestData().setTopics(topics).setTimeoutMs(30_000);
        }));
        shapes.add(Shape.of(ApiKeys.CREATE_TOPICS, "replication factor above the broker count", (t, v) -> {
            CreatableTopicCollection topics = new CreatableTopicCollection();
            topics.add(new CreatableTopic().setName("conf-rf3-v" + v).setNumPartitions(1).setReplicationFactor(
                    (short) 3));
            return new CreateTopicsRequestData().setTopics(topics).setTimeoutMs(30_000);
        }));
        shapes.add(Shape.of(ApiKeys.CREATE_TOPICS, "defaults (-1 partitions and replication)", 4, 7, (t, v) -> {
            CreatableTopicCollection topics = new CreatableTopicCollection();
            topics.add(new CreatableTopic().setName("conf-defaults-v" + v).setNumPartitions(-1)
                    .setReplicationFactor((short) -1));
            return new CreateTopicsRequestData().setTopics(topics).setTimeoutMs(30_000);
        }));
        shapes.add(Shape.of(ApiKeys.CREATE_TOPICS, "validate only", (t, v) -> {
            CreatableTopicCollection topics = new CreatableTopicCollection();
            topics.add(new CreatableTopic().setName("conf-validated-v" + v).setNumPartitions(1)
                    .setReplicationFactor((short) 1));
            return new CreateTopicsRequestData().setTopics(topics).setTimeoutMs(30_000).setValidateOnly(true);
        }));

        shapes.add(Shape.script(ApiKeys.DELETE_TOPICS, "existing and unknown", 1, 6, (s, v) -> {
            String topic = "conf-deleted-v" + v;
            s.target.createTopic(topic, 1);
            DeleteTopicsRequestData r = new DeleteTopicsRequestData().setTimeoutMs(30_000);
            if (v >= 6) {
                r.setTopics(List.of(new DeleteTopicState().setName(topic), new DeleteTopicState().setName("conf-missing"),
                        new DeleteTopicState().setName(null).setTopicId(UNKNOWN_ID)));
            } else {
                r.setTopicNames(List.of(topic, "conf-missing"));
            }
            s.ask("", ApiKeys.DELETE_TOPICS, v, r);
        }));
        shapes.add(Shape.script(ApiKeys.DELETE_TOPICS, "by topic id", 6, 6, (s, v) -> {
            String topic = "conf-deleted-by-id";
            s.target.createTopic(topic, 1);
            s.ask("", ApiKeys.DELETE_TOPICS, v, new DeleteTopicsRequestData().setTimeoutMs(30_000).setTopics(List.of(
                    new DeleteTopicState().setName(null).setTopicId(s.target.topicId(topic)))));
        }));

        shapes.add(Shape.script(ApiKeys.CREATE_PARTITIONS, "grow, shrink, unknown", 0, 3, (s, v) -> {
            String topic = "conf-grown-v" + v;
            s.target.createTopic(topic, 1);
            s.ask("", ApiKeys.CREATE_PARTITIONS, v, new CreatePartitionsRequestData().setTimeoutMs(30_000)
                    .setTopics(partitionCounts(topic, 3, Target.DATA, 1, "conf-missing", 2)));
            s.ask("validate only", ApiKeys.CREATE_PARTITIONS, v, new CreatePartitionsRequestData().setTimeoutMs(30_000)
                    .setValidateOnly(true).setTopics(partitionCounts(topic, 5)));
        }));

        shapes.add(Shape.of(ApiKeys.DESCRIBE_CLUSTER, "brokers", (t, v) -> new DescribeClusterRequestData()));
        shapes.add(Shape.of(ApiKeys.DESCRIBE_CLUSTER, "controllers", 1, 2, (t, v) -> new DescribeClusterRequestData()
                .setEndpointType((byte) 2)));
        shapes.add(Shape.of(ApiKeys.DESCRIBE_CLUSTER, "fenced brokers too", 2, 2, (t, v) -> new DescribeClusterRequestData()
                .setIncludeFencedBrokers(true)));
        // Only ids that are not registered: unregistering node 1 would remove the broker under test.
        shapes.add(Shape.of(ApiKeys.UNREGISTER_BROKER, "broker id not registered",
                (t, v) -> new UnregisterBrokerRequestData().setBrokerId(42)));
        shapes.add(Shape.of(ApiKeys.UNREGISTER_BROKER, "negative broker id",
                (t, v) -> new UnregisterBrokerRequestData().setBrokerId(-1)));

        shapes.add(Shape.of(ApiKeys.DESCRIBE_LOG_DIRS, "all (null topics)", (t, v) -> new DescribeLogDirsRequestData()
                .setTopics(null)));
        shapes.add(Shape.of(ApiKeys.DESCRIBE_LOG_DIRS, "some partitions", (t, v) -> {
            DescribableLogDirTopicCollection topics = new DescribableLogDirTopicCollection();
            topics.add(new DescribableLogDirTopic().setTopic(Target.DATA).setPartitions(List.of(0, 1, 9)));
            topics.add(new DescribableLogDirTopic().setTopic("conf-missing").setPartitions(List.of(0)));
            return new DescribeLogDirsRequestData().setTopics(topics);
        }));
        return shapes;
    }

    private static MetadataRequestData metadata(short v, MetadataRequestTopic... topics) {
        MetadataRequestData r = new MetadataRequestData().setTopics(new ArrayList<>(List.of(topics)));
        return v >= 4 ? r.setAllowAutoTopicCreation(true) : r;
    }

    /** Topic names and their new partition counts, alternating. */
    private static CreatePartitionsTopicCollection partitionCounts(Object... nameThenCount) {
        CreatePartitionsTopicCollection topics = new CreatePartitionsTopicCollection();
        for (int i = 0; i < nameThenCount.length; i += 2) {
            topics.add(new CreatePartitionsTopic().setName((String) nameThenCount[i])
                    .setCount((Integer) nameThenCount[i + 1]).setAssignments(null));
        }
        return topics;
    }

    private static CreatableTopicConfigCollection configs(String name, String value) {
        CreatableTopicConfigCollection c = new CreatableTopicConfigCollection();
        c.add(new CreatableTopicConfig().setName(name).setValue(value));
        return c;
    }
}
