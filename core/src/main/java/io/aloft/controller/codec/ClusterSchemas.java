package io.aloft.controller.codec;

import static io.aloft.controller.codec.FieldType.BYTES;
import static io.aloft.controller.codec.FieldType.INT32;
import static io.aloft.controller.codec.FieldType.INT64;
import static io.aloft.controller.codec.FieldType.STRING;
import static io.aloft.controller.codec.FieldType.enumOf;
import static io.aloft.controller.codec.FieldType.listOf;
import static io.aloft.controller.codec.FieldType.mapOf;
import static io.aloft.controller.codec.FieldType.nullable;
import static io.aloft.controller.codec.FieldType.record;
import static io.aloft.controller.model.FeatureLevel.INITIAL;
import static io.aloft.controller.model.FeatureLevel.SECURITY_METADATA;

import io.aloft.controller.command.AllocateProducerIds;
import io.aloft.controller.command.AlterTopicConfigs;
import io.aloft.controller.command.BrokerHeartbeat;
import io.aloft.controller.command.CreatePartitions;
import io.aloft.controller.command.CreateTopic;
import io.aloft.controller.command.DeleteKv;
import io.aloft.controller.command.DeleteTopic;
import io.aloft.controller.command.DrainBroker;
import io.aloft.controller.command.FenceBroker;
import io.aloft.controller.command.PutKv;
import io.aloft.controller.command.ReassignPartition;
import io.aloft.controller.command.RegisterBroker;
import io.aloft.controller.command.ReportVoterFeatures;
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
import java.util.Map;

/**
 * Schemas of brokers, topics, the key-value space and feature levels: the cluster commands
 * (type ids 64 to 95) and values (96 to 127; see {@link ControllerSchemas}).
 *
 * <p>Immutable constants.
 */
final class ClusterSchemas {
    private ClusterSchemas() {
    }

    // ---- values (96-127) ----

    static final RecordSchema<Endpoint> ENDPOINT = RecordSchema.builder(96, "Endpoint", Endpoint.class)
            .version(0, INITIAL)
            .field("listener", STRING, Endpoint::listener)
            .field("host", STRING, Endpoint::host)
            .field("port", INT32, Endpoint::port)
            .field("securityProtocol", STRING, Endpoint::securityProtocol)
            .build(v -> new Endpoint(v.get("listener"), v.get("host"), v.get("port"), v.get("securityProtocol")));

    static final EnumSchema<BrokerState> BROKER_STATE = EnumSchema.builder(97, "BrokerState", BrokerState.class)
            .constant(0, "ACTIVE", BrokerState.ACTIVE)
            .constant(1, "FENCED", BrokerState.FENCED)
            .constant(2, "DRAINING", BrokerState.DRAINING)
            .build();

    static final RecordSchema<FeatureRange> FEATURE_RANGE = RecordSchema.builder(104, "FeatureRange",
                    FeatureRange.class)
            .version(0, INITIAL)
            .field("minLevel", INT32, FeatureRange::minLevel)
            .field("maxLevel", INT32, FeatureRange::maxLevel)
            .build(v -> new FeatureRange(v.get("minLevel"), v.get("maxLevel")));

    static final RecordSchema<BrokerInfo> BROKER_INFO = RecordSchema.builder(98, "BrokerInfo", BrokerInfo.class)
            .version(0, INITIAL)
            .field("brokerId", INT32, BrokerInfo::brokerId)
            .field("incarnationId", STRING, BrokerInfo::incarnationId)
            .field("brokerEpoch", INT64, BrokerInfo::brokerEpoch)
            .field("endpoints", listOf(record(ENDPOINT)), BrokerInfo::endpoints)
            .field("rack", STRING, BrokerInfo::rack)
            .field("state", enumOf(BROKER_STATE), BrokerInfo::state)
            .field("supportedFeatures", record(FEATURE_RANGE), BrokerInfo::supportedFeatures)
            .build(v -> new BrokerInfo(v.get("brokerId"), v.get("incarnationId"), v.get("brokerEpoch"),
                    v.get("endpoints"), v.get("rack"), v.get("state"), v.get("supportedFeatures")));

    static final RecordSchema<PartitionInfo> PARTITION_INFO = RecordSchema.builder(99, "PartitionInfo",
                    PartitionInfo.class)
            .version(0, INITIAL)
            .field("partition", INT32, PartitionInfo::partition)
            .field("brokerId", INT32, PartitionInfo::brokerId)
            .field("leaderEpoch", INT32, PartitionInfo::leaderEpoch)
            .field("streamIds", listOf(INT64), PartitionInfo::streamIds)
            .build(v -> new PartitionInfo(v.get("partition"), v.get("brokerId"), v.get("leaderEpoch"),
                    v.get("streamIds")));

    static final RecordSchema<TopicInfo> TOPIC_INFO = RecordSchema.builder(100, "TopicInfo", TopicInfo.class)
            .version(0, INITIAL)
            .field("topicId", FieldType.UUID, TopicInfo::topicId)
            .field("name", STRING, TopicInfo::name)
            .field("configs", mapOf(STRING, STRING), TopicInfo::configs)
            .field("partitions", listOf(record(PARTITION_INFO)), TopicInfo::partitions)
            .build(v -> new TopicInfo(v.get("topicId"), v.get("name"), v.get("configs"), v.get("partitions")));

    static final RecordSchema<ClusterImage> CLUSTER_IMAGE = RecordSchema.builder(101, "ClusterImage",
                    ClusterImage.class)
            .version(0, INITIAL)
            .version(1, SECURITY_METADATA)
            .field("appliedIndex", INT64, ClusterImage::appliedIndex)
            .field("finalizedFeatureLevel", INT32, ClusterImage::finalizedFeatureLevel)
            .field("brokers", listOf(record(BROKER_INFO)), ClusterImage::brokers)
            .field("topics", listOf(record(TOPIC_INFO)), ClusterImage::topics)
            .field("securityEntries", mapOf(STRING, BYTES), ClusterImage::securityEntries).since(1).orElse(Map.of())
            .build(v -> ClusterImage.of(v.get("appliedIndex"), v.get("brokers"), v.get("topics"),
                    v.get("finalizedFeatureLevel"), v.get("securityEntries")));

    static final RecordSchema<MetadataEvent> METADATA_EVENT = RecordSchema.builder(102, "MetadataEvent",
                    MetadataEvent.class)
            .version(0, INITIAL)
            .version(1, SECURITY_METADATA)
            .field("index", INT64, MetadataEvent::index)
            .field("broker", nullable(record(BROKER_INFO)), MetadataEvent::broker)
            .field("removedBrokerId", INT32, MetadataEvent::removedBrokerId)
            .field("topic", nullable(record(TOPIC_INFO)), MetadataEvent::topic)
            .field("deletedTopic", nullable(record(TOPIC_INFO)), MetadataEvent::deletedTopic)
            .field("finalizedFeatureLevel", INT32, MetadataEvent::finalizedFeatureLevel)
            .field("kvKey", STRING, MetadataEvent::kvKey).since(1).orElse(null)
            .field("kvValue", BYTES, MetadataEvent::kvValue).since(1).orElse(null)
            .build(v -> new MetadataEvent(v.get("index"), v.get("broker"), v.get("removedBrokerId"), v.get("topic"),
                    v.get("deletedTopic"), v.get("finalizedFeatureLevel"), v.get("kvKey"), v.get("kvValue")));

    static final RecordSchema<WatchResult> WATCH_RESULT = RecordSchema.builder(103, "WatchResult", WatchResult.class)
            .version(0, INITIAL)
            .field("image", nullable(record(CLUSTER_IMAGE)), WatchResult::image)
            .field("events", listOf(record(METADATA_EVENT)), WatchResult::events)
            .field("nextIndex", INT64, WatchResult::nextIndex)
            .build(v -> new WatchResult(v.get("image"), v.get("events"), v.get("nextIndex")));

    static final RecordSchema<VoterFeatures> VOTER_FEATURES = RecordSchema.builder(105, "VoterFeatures",
                    VoterFeatures.class)
            .version(0, INITIAL)
            .field("voterId", INT32, VoterFeatures::voterId)
            .field("supported", record(FEATURE_RANGE), VoterFeatures::supported)
            .build(v -> new VoterFeatures(v.get("voterId"), v.get("supported")));

    static final RecordSchema<FeatureStatus> FEATURE_STATUS = RecordSchema.builder(106, "FeatureStatus",
                    FeatureStatus.class)
            .version(0, INITIAL)
            .field("finalizedLevel", INT32, FeatureStatus::finalizedLevel)
            .field("voters", listOf(record(VOTER_FEATURES)), FeatureStatus::voters)
            .build(v -> new FeatureStatus(v.get("finalizedLevel"), v.get("voters")));

    // ---- commands (64-95) ----

    static final RecordSchema<RegisterBroker> REGISTER_BROKER = RecordSchema.builder(64, "RegisterBroker",
                    RegisterBroker.class)
            .version(0, INITIAL)
            .field("brokerId", INT32, RegisterBroker::brokerId)
            .field("incarnationId", STRING, RegisterBroker::incarnationId)
            .field("endpoints", listOf(record(ENDPOINT)), RegisterBroker::endpoints)
            .field("rack", STRING, RegisterBroker::rack)
            .field("supportedFeatures", record(FEATURE_RANGE), RegisterBroker::supportedFeatures)
            .build(v -> new RegisterBroker(v.get("brokerId"), v.get("incarnationId"), v.get("endpoints"),
                    v.get("rack"), v.get("supportedFeatures")));

    static final RecordSchema<BrokerHeartbeat> BROKER_HEARTBEAT = RecordSchema.builder(65, "BrokerHeartbeat",
                    BrokerHeartbeat.class)
            .version(0, INITIAL)
            .field("brokerId", INT32, BrokerHeartbeat::brokerId)
            .field("brokerEpoch", INT64, BrokerHeartbeat::brokerEpoch)
            .build(v -> new BrokerHeartbeat(v.get("brokerId"), v.get("brokerEpoch")));

    static final RecordSchema<FenceBroker> FENCE_BROKER = RecordSchema.builder(66, "FenceBroker", FenceBroker.class)
            .version(0, INITIAL)
            .field("brokerId", INT32, FenceBroker::brokerId)
            .field("brokerEpoch", INT64, FenceBroker::brokerEpoch)
            .build(v -> new FenceBroker(v.get("brokerId"), v.get("brokerEpoch")));

    static final RecordSchema<DrainBroker> DRAIN_BROKER = RecordSchema.builder(67, "DrainBroker", DrainBroker.class)
            .version(0, INITIAL)
            .field("brokerId", INT32, DrainBroker::brokerId)
            .field("brokerEpoch", INT64, DrainBroker::brokerEpoch)
            .build(v -> new DrainBroker(v.get("brokerId"), v.get("brokerEpoch")));

    static final RecordSchema<UnregisterBroker> UNREGISTER_BROKER = RecordSchema.builder(68, "UnregisterBroker",
                    UnregisterBroker.class)
            .version(0, INITIAL)
            .field("brokerId", INT32, UnregisterBroker::brokerId)
            .build(v -> new UnregisterBroker(v.get("brokerId")));

    static final RecordSchema<CreateTopic> CREATE_TOPIC = RecordSchema.builder(69, "CreateTopic", CreateTopic.class)
            .version(0, INITIAL)
            .field("topicId", FieldType.UUID, CreateTopic::topicId)
            .field("name", STRING, CreateTopic::name)
            .field("partitions", INT32, CreateTopic::partitions)
            .field("streamsPerPartition", INT32, CreateTopic::streamsPerPartition)
            .field("configs", mapOf(STRING, STRING), CreateTopic::configs)
            .build(v -> new CreateTopic(v.get("topicId"), v.get("name"), v.get("partitions"),
                    v.get("streamsPerPartition"), v.get("configs")));

    static final RecordSchema<DeleteTopic> DELETE_TOPIC = RecordSchema.builder(70, "DeleteTopic", DeleteTopic.class)
            .version(0, INITIAL)
            .field("name", STRING, DeleteTopic::name)
            .build(v -> new DeleteTopic(v.get("name")));

    static final RecordSchema<CreatePartitions> CREATE_PARTITIONS = RecordSchema.builder(71, "CreatePartitions",
                    CreatePartitions.class)
            .version(0, INITIAL)
            .field("name", STRING, CreatePartitions::name)
            .field("totalCount", INT32, CreatePartitions::totalCount)
            .build(v -> new CreatePartitions(v.get("name"), v.get("totalCount")));

    static final RecordSchema<AlterTopicConfigs> ALTER_TOPIC_CONFIGS = RecordSchema.builder(72, "AlterTopicConfigs",
                    AlterTopicConfigs.class)
            .version(0, INITIAL)
            .field("name", STRING, AlterTopicConfigs::name)
            .field("set", mapOf(STRING, STRING), AlterTopicConfigs::set)
            .field("delete", listOf(STRING), AlterTopicConfigs::delete)
            .build(v -> new AlterTopicConfigs(v.get("name"), v.get("set"), v.get("delete")));

    static final RecordSchema<ReassignPartition> REASSIGN_PARTITION = RecordSchema.builder(73, "ReassignPartition",
                    ReassignPartition.class)
            .version(0, INITIAL)
            .field("name", STRING, ReassignPartition::name)
            .field("partition", INT32, ReassignPartition::partition)
            .field("targetBrokerId", INT32, ReassignPartition::targetBrokerId)
            .build(v -> new ReassignPartition(v.get("name"), v.get("partition"), v.get("targetBrokerId")));

    static final RecordSchema<PutKv> PUT_KV = RecordSchema.builder(74, "PutKv", PutKv.class)
            .version(0, INITIAL)
            .field("key", STRING, PutKv::key)
            .field("value", BYTES, PutKv::value)
            .build(v -> new PutKv(v.get("key"), v.get("value")));

    static final RecordSchema<DeleteKv> DELETE_KV = RecordSchema.builder(75, "DeleteKv", DeleteKv.class)
            .version(0, INITIAL)
            .field("key", STRING, DeleteKv::key)
            .build(v -> new DeleteKv(v.get("key")));

    static final RecordSchema<AllocateProducerIds> ALLOCATE_PRODUCER_IDS = RecordSchema.builder(76,
                    "AllocateProducerIds", AllocateProducerIds.class)
            .version(0, INITIAL)
            .field("brokerId", INT32, AllocateProducerIds::brokerId)
            .field("count", INT32, AllocateProducerIds::count)
            .build(v -> new AllocateProducerIds(v.get("brokerId"), v.get("count")));

    static final RecordSchema<ReportVoterFeatures> REPORT_VOTER_FEATURES = RecordSchema.builder(77,
                    "ReportVoterFeatures", ReportVoterFeatures.class)
            .version(0, INITIAL)
            .field("voterId", INT32, ReportVoterFeatures::voterId)
            .field("supported", record(FEATURE_RANGE), ReportVoterFeatures::supported)
            .field("voterIds", listOf(INT32), ReportVoterFeatures::voterIds)
            .build(v -> new ReportVoterFeatures(v.get("voterId"), v.get("supported"), v.get("voterIds")));

    static final RecordSchema<UpdateFeatureLevel> UPDATE_FEATURE_LEVEL = RecordSchema.builder(78,
                    "UpdateFeatureLevel", UpdateFeatureLevel.class)
            .version(0, INITIAL)
            .field("level", INT32, UpdateFeatureLevel::level)
            .field("voterIds", listOf(INT32), UpdateFeatureLevel::voterIds)
            .build(v -> new UpdateFeatureLevel(v.get("level"), v.get("voterIds")));

    static void addTo(SchemaRegistry.Builder registry) {
        registry.add(REGISTER_BROKER).add(BROKER_HEARTBEAT).add(FENCE_BROKER).add(DRAIN_BROKER)
                .add(UNREGISTER_BROKER).add(CREATE_TOPIC).add(DELETE_TOPIC).add(CREATE_PARTITIONS)
                .add(ALTER_TOPIC_CONFIGS).add(REASSIGN_PARTITION).add(PUT_KV).add(DELETE_KV)
                .add(ALLOCATE_PRODUCER_IDS).add(REPORT_VOTER_FEATURES).add(UPDATE_FEATURE_LEVEL)
                .add(ENDPOINT).add(BROKER_STATE).add(BROKER_INFO).add(PARTITION_INFO).add(TOPIC_INFO)
                .add(CLUSTER_IMAGE).add(METADATA_EVENT).add(WATCH_RESULT).add(FEATURE_RANGE).add(VOTER_FEATURES)
                .add(FEATURE_STATUS);
    }
}
