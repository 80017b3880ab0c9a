package io.aloft.broker.security.acl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.aloft.broker.TestBroker;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.message.*;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.*;
import org.apache.kafka.common.requests.AlterShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.DeleteShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.DescribeShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.ShareAcknowledgeRequest;
import org.apache.kafka.common.requests.ShareFetchRequest;
import org.apache.kafka.common.requests.ShareGroupDescribeRequest;
import org.apache.kafka.common.requests.ShareGroupHeartbeatRequest;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The authorization matrix (issue 20): ONE table with a row per API the broker advertises, each
 * naming the ACLs the API needs for its request, the error Kafka gives a principal without them,
 * and the answer with them. Every row is sent twice over SASL/PLAIN: as {@code bob}, who has no ACL
 * (refused with the row's error), and as {@code alice}, who was granted (through CreateAcls) the
 * union of every row's bindings (gets the row's answer, whatever the request itself earns once
 * authorized). A test fails when the broker advertises an API the table has no row for, so a new
 * handler cannot be added without its authorization.
 */
class AclMatrixTest {
    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "user_admin=\"admin-secret\" user_alice=\"alice-secret\" user_bob=\"bob-secret\";";
    static final String TOPIC = "acl-t";
    static final String GROUP = "acl-g";
    static final String CG = "acl-cg";
    static final String TXN = "acl-tx";
    static final String CLUSTER = Authorizer.CLUSTER_NAME;

    @TempDir
    static Path dir;
    private static TestBroker broker;
    private static int saslPort;
    private static Admin admin;
    private static Uuid topicId;

    /**
     * One API's authorization: what it needs ({@code grants}), its request, and the errors
     * ({@link AbstractResponse#errorCounts()} without NONE) without and with the grants. A row with
     * {@code denied == NONE} is an API Kafka serves without an ACL (or filters instead of refusing:
     * {@code hidden} then checks that nothing is shown to bob).
     */
    record Row(ApiKeys api, List<AclBinding> grants, RequestFactory request, Errors denied, Errors allowed,
            HiddenCheck hidden) {
        Row(ApiKeys api, List<AclBinding> grants, RequestFactory request, Errors denied, Errors allowed) {
            this(api, grants, request, denied, allowed, null);
        }
    }

    interface RequestFactory {
        AbstractRequest.Builder<?> build() throws Exception;
    }

    interface HiddenCheck {
        /** Whether {@code response} (bob's) shows nothing bob may not see. */
        boolean hidesEverything(AbstractResponse response);
    }

    /** A ShareFetch opening a session on partition 0 of the topic, without waiting. */
    private static ShareFetchRequestData shareFetch(String group) {
        ShareFetchRequestData.FetchPartitionCollection partitions = new ShareFetchRequestData.FetchPartitionCollection();
        partitions.add(new ShareFetchRequestData.FetchPartition().setPartitionIndex(0));
        ShareFetchRequestData.FetchTopicCollection topics = new ShareFetchRequestData.FetchTopicCollection();
        topics.add(new ShareFetchRequestData.FetchTopic().setTopicId(topicId).setPartitions(partitions));
        return new ShareFetchRequestData().setGroupId(group).setMemberId(Uuid.randomUuid().toString())
                .setShareSessionEpoch(0).setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 20).setMaxRecords(10)
                .setBatchSize(10).setTopics(topics);
    }

    /** AlterShareGroupOffsets of partition 0 of the topic to offset 0 (creates the empty group, as Kafka). */
    private static AlterShareGroupOffsetsRequestData shareAlter(String group) {
        AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopicCollection topics =
                new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopicCollection();
        topics.add(new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic().setTopicName(TOPIC)
                .setPartitions(List.of(new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestPartition()
                        .setPartitionIndex(0).setStartOffset(0))));
        return new AlterShareGroupOffsetsRequestData().setGroupId(group).setTopics(topics);
    }

    static AclBinding allow(ResourceType type, String name, AclOperation op) {
        return new AclBinding(new ResourcePattern(type, name, PatternType.LITERAL),
                new AccessControlEntry("User:alice", "*", op, AclPermissionType.ALLOW));
    }

    /** The table. */
    static List<Row> rows() {
        AclBinding describeTopic = allow(ResourceType.TOPIC, TOPIC, AclOperation.DESCRIBE);
        AclBinding readTopic = allow(ResourceType.TOPIC, TOPIC, AclOperation.READ);
        AclBinding writeTopic = allow(ResourceType.TOPIC, TOPIC, AclOperation.WRITE);
        AclBinding readGroup = allow(ResourceType.GROUP, GROUP, AclOperation.READ);
        AclBinding writeTxn = allow(ResourceType.TRANSACTIONAL_ID, TXN, AclOperation.WRITE);
        return List.of(
                new Row(ApiKeys.API_VERSIONS, List.of(), () -> new ApiVersionsRequest.Builder(), Errors.NONE,
                        Errors.NONE),
                new Row(ApiKeys.SASL_HANDSHAKE, List.of(), null, Errors.NONE, Errors.NONE), // before authentication
                new Row(ApiKeys.SASL_AUTHENTICATE, List.of(), null, Errors.NONE, Errors.NONE),
                new Row(ApiKeys.DESCRIBE_CLUSTER, List.of(), () -> new DescribeClusterRequest.Builder(
                        new DescribeClusterRequestData()), Errors.NONE, Errors.NONE),
                new Row(ApiKeys.METADATA, List.of(describeTopic),
                        () -> new MetadataRequest.Builder(List.of(TOPIC), false),
                        Errors.TOPIC_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.PRODUCE, List.of(writeTopic), AclMatrixTest::produce,
                        Errors.TOPIC_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.FETCH, List.of(readTopic), () -> FetchRequest.Builder.forConsumer(
                        ApiKeys.FETCH.latestVersion(), 0, 0, Map.of(new TopicPartition(TOPIC, 0),
                                new FetchRequest.PartitionData(topicId, 0, -1, 1 << 20, Optional.empty()))),
                        Errors.TOPIC_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.LIST_OFFSETS, List.of(describeTopic), () -> ListOffsetsRequest.Builder
                        .forConsumer(false, IsolationLevel.READ_UNCOMMITTED).setTargetTimes(List.of(
                                new ListOffsetsRequestData.ListOffsetsTopic().setName(TOPIC).setPartitions(List.of(
                                        new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0)
                                                .setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP))))),
                        Errors.TOPIC_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.OFFSET_FOR_LEADER_EPOCH, List.of(describeTopic), AclMatrixTest::offsetForLeaderEpoch,
                        Errors.TOPIC_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.DESCRIBE_PRODUCERS, List.of(readTopic), () -> new DescribeProducersRequest.Builder(
                        new DescribeProducersRequestData().setTopics(List.of(new DescribeProducersRequestData
                                .TopicRequest().setName(TOPIC).setPartitionIndexes(List.of(0))))),
                        Errors.TOPIC_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.DELETE_RECORDS, List.of(allow(ResourceType.TOPIC, TOPIC, AclOperation.DELETE)),
                        AclMatrixTest::deleteRecords, Errors.TOPIC_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.CREATE_TOPICS, List.of(allow(ResourceType.TOPIC, "acl-new", AclOperation.CREATE)),
                        AclMatrixTest::createTopics, Errors.TOPIC_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.DELETE_TOPICS, List.of(allow(ResourceType.TOPIC, "acl-gone", AclOperation.DELETE)),
                        () -> new DeleteTopicsRequest.Builder(new DeleteTopicsRequestData()
                                .setTopics(List.of(new DeleteTopicsRequestData.DeleteTopicState().setName("acl-gone")))
                                .setTimeoutMs(10_000)),
                        Errors.TOPIC_AUTHORIZATION_FAILED, Errors.UNKNOWN_TOPIC_OR_PARTITION),
                new Row(ApiKeys.CREATE_PARTITIONS, List.of(allow(ResourceType.TOPIC, TOPIC, AclOperation.ALTER)),
                        () -> new CreatePartitionsRequest.Builder(new CreatePartitionsRequestData()
                                .setValidateOnly(true)
                                .setTimeoutMs(10_000).setTopics(new CreatePartitionsRequestData
                                        .CreatePartitionsTopicCollection(List.of(new CreatePartitionsRequestData
                                                .CreatePartitionsTopic().setName(TOPIC).setCount(2)
                                                .setAssignments(null)).iterator()))),
                        Errors.TOPIC_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.DESCRIBE_CONFIGS, List.of(allow(ResourceType.TOPIC, TOPIC,
                        AclOperation.DESCRIBE_CONFIGS)), () -> new DescribeConfigsRequest.Builder(
                                new DescribeConfigsRequestData().setResources(List.of(new DescribeConfigsRequestData
                                        .DescribeConfigsResource().setResourceType(ConfigResource.Type.TOPIC.id())
                                        .setResourceName(TOPIC)))),
                        Errors.TOPIC_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.ALTER_CONFIGS, List.of(allow(ResourceType.TOPIC, TOPIC, AclOperation.ALTER_CONFIGS)),
                        () -> new AlterConfigsRequest.Builder(Map.of(
                                new ConfigResource(ConfigResource.Type.TOPIC, TOPIC),
                                new AlterConfigsRequest.Config(List.of(new AlterConfigsRequest.ConfigEntry(
                                        "retention.ms", "86400000")))), true),
                        Errors.TOPIC_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.INCREMENTAL_ALTER_CONFIGS, List.of(allow(ResourceType.TOPIC, TOPIC,
                        AclOperation.ALTER_CONFIGS)), AclMatrixTest::incrementalAlterConfigs,
                        Errors.TOPIC_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.DESCRIBE_LOG_DIRS, List.of(allow(ResourceType.CLUSTER, CLUSTER, AclOperation.DESCRIBE)),
                        () -> new DescribeLogDirsRequest.Builder(new DescribeLogDirsRequestData().setTopics(null)),
                        Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, List.of(allow(ResourceType.CLUSTER, CLUSTER,
                        AclOperation.ALTER)), AclMatrixTest::alterReassignments,
                        Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.NO_REASSIGNMENT_IN_PROGRESS),
                new Row(ApiKeys.LIST_PARTITION_REASSIGNMENTS, List.of(allow(ResourceType.CLUSTER, CLUSTER,
                        AclOperation.DESCRIBE)), () -> new ListPartitionReassignmentsRequest.Builder(
                                new ListPartitionReassignmentsRequestData()),
                        Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.UNREGISTER_BROKER, List.of(allow(ResourceType.CLUSTER, CLUSTER, AclOperation.ALTER)),
                        () -> new UnregisterBrokerRequest.Builder(new UnregisterBrokerRequestData().setBrokerId(99)),
                        Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.BROKER_ID_NOT_REGISTERED),
                // Idempotent producer: IDEMPOTENT_WRITE on the cluster or WRITE on some topic (KIP-679).
                new Row(ApiKeys.INIT_PRODUCER_ID, List.of(writeTopic), () -> new InitProducerIdRequest.Builder(
                        new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(60_000)
                                .setProducerId(-1).setProducerEpoch((short) -1)),
                        Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.FIND_COORDINATOR, List.of(readGroup), () -> new FindCoordinatorRequest.Builder(
                        new FindCoordinatorRequestData().setKeyType((byte) 0).setCoordinatorKeys(List.of(GROUP))),
                        Errors.GROUP_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.JOIN_GROUP, List.of(readGroup), () -> new JoinGroupRequest.Builder(
                        new JoinGroupRequestData().setGroupId(GROUP).setMemberId("").setProtocolType("consumer")
                                .setSessionTimeoutMs(10_000).setRebalanceTimeoutMs(10_000)
                                .setProtocols(new JoinGroupRequestData.JoinGroupRequestProtocolCollection(List.of(
                                        new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range")
                                                .setMetadata(new byte[0])).iterator()))),
                        Errors.GROUP_AUTHORIZATION_FAILED, Errors.MEMBER_ID_REQUIRED),
                new Row(ApiKeys.SYNC_GROUP, List.of(readGroup), () -> new SyncGroupRequest.Builder(
                        new SyncGroupRequestData().setGroupId(GROUP).setMemberId("m").setGenerationId(1)
                                .setProtocolType("consumer").setProtocolName("range")),
                        Errors.GROUP_AUTHORIZATION_FAILED, Errors.UNKNOWN_MEMBER_ID),
                new Row(ApiKeys.HEARTBEAT, List.of(readGroup), () -> new HeartbeatRequest.Builder(
                        new HeartbeatRequestData().setGroupId(GROUP).setMemberId("m").setGenerationId(1)),
                        Errors.GROUP_AUTHORIZATION_FAILED, Errors.UNKNOWN_MEMBER_ID),
                new Row(ApiKeys.LEAVE_GROUP, List.of(readGroup), () -> new LeaveGroupRequest.Builder(GROUP, List.of(
                        new LeaveGroupRequestData.MemberIdentity().setMemberId("m"))),
                        Errors.GROUP_AUTHORIZATION_FAILED, Errors.UNKNOWN_MEMBER_ID),
                new Row(ApiKeys.OFFSET_COMMIT, List.of(readGroup, readTopic), AclMatrixTest::offsetCommit,
                        Errors.GROUP_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.OFFSET_FETCH, List.of(readGroup, describeTopic), () -> OffsetFetchRequest.Builder
                        .forTopicNames(new OffsetFetchRequestData().setGroups(List.of(new OffsetFetchRequestData
                                .OffsetFetchRequestGroup().setGroupId(GROUP).setTopics(List.of(
                                        new OffsetFetchRequestData.OffsetFetchRequestTopics().setName(TOPIC)
                                                .setPartitionIndexes(List.of(0)))))),
                                false),
                        Errors.GROUP_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.LIST_GROUPS, List.of(readGroup), () -> new ListGroupsRequest.Builder(
                        new ListGroupsRequestData()), Errors.NONE, Errors.NONE,
                        r -> ((ListGroupsResponse) r).data().groups().isEmpty()),
                new Row(ApiKeys.DESCRIBE_GROUPS, List.of(readGroup), () -> new DescribeGroupsRequest.Builder(
                        new DescribeGroupsRequestData().setGroups(List.of(GROUP))),
                        Errors.GROUP_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.DELETE_GROUPS, List.of(allow(ResourceType.GROUP, "acl-g-gone", AclOperation.DELETE)),
                        () -> new DeleteGroupsRequest.Builder(new DeleteGroupsRequestData()
                                .setGroupsNames(List.of("acl-g-gone"))),
                        Errors.GROUP_AUTHORIZATION_FAILED, Errors.GROUP_ID_NOT_FOUND),
                new Row(ApiKeys.OFFSET_DELETE, List.of(allow(ResourceType.GROUP, "acl-g-gone", AclOperation.DELETE),
                        readTopic), AclMatrixTest::offsetDelete,
                        Errors.GROUP_AUTHORIZATION_FAILED, Errors.GROUP_ID_NOT_FOUND),
                new Row(ApiKeys.CONSUMER_GROUP_HEARTBEAT, List.of(allow(ResourceType.GROUP, CG, AclOperation.READ),
                        describeTopic), AclMatrixTest::consumerGroupHeartbeat,
                        Errors.GROUP_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.CONSUMER_GROUP_DESCRIBE, List.of(allow(ResourceType.GROUP, "acl-cg-none",
                        AclOperation.DESCRIBE)),
                        () -> new ConsumerGroupDescribeRequest.Builder(new ConsumerGroupDescribeRequestData()
                                .setGroupIds(List.of("acl-cg-none"))),
                        Errors.GROUP_AUTHORIZATION_FAILED, Errors.GROUP_ID_NOT_FOUND),
                // Share groups (KIP-932), part G: READ on the group, DESCRIBE on subscribed topics (as Kafka 4.3).
                new Row(ApiKeys.SHARE_GROUP_HEARTBEAT, List.of(allow(ResourceType.GROUP, "acl-sg", AclOperation.READ),
                        describeTopic), () -> new ShareGroupHeartbeatRequest.Builder(new ShareGroupHeartbeatRequestData()
                                .setGroupId("acl-sg").setMemberId(Uuid.randomUuid().toString()).setMemberEpoch(0)
                                .setSubscribedTopicNames(List.of(TOPIC))),
                        Errors.GROUP_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.SHARE_GROUP_DESCRIBE, List.of(allow(ResourceType.GROUP, "acl-sg-none",
                        AclOperation.DESCRIBE)),
                        () -> new ShareGroupDescribeRequest.Builder(new ShareGroupDescribeRequestData()
                                .setGroupIds(List.of("acl-sg-none"))),
                        Errors.GROUP_AUTHORIZATION_FAILED, Errors.GROUP_ID_NOT_FOUND),
                // ShareFetch: READ on the group, READ on each topic; a new session with no wait.
                new Row(ApiKeys.SHARE_FETCH, List.of(allow(ResourceType.GROUP, "acl-sf", AclOperation.READ), readTopic),
                        () -> new ShareFetchRequest.Builder(shareFetch("acl-sf")),
                        Errors.GROUP_AUTHORIZATION_FAILED, Errors.NONE),
                // ShareAcknowledge: READ on the group first; granted, epoch 0 opens no session to acknowledge in.
                new Row(ApiKeys.SHARE_ACKNOWLEDGE, List.of(allow(ResourceType.GROUP, "acl-sa", AclOperation.READ),
                        readTopic), () -> new ShareAcknowledgeRequest.Builder(new ShareAcknowledgeRequestData()
                                .setGroupId("acl-sa").setMemberId(Uuid.randomUuid().toString()).setShareSessionEpoch(0)),
                        Errors.GROUP_AUTHORIZATION_FAILED, Errors.INVALID_SHARE_SESSION_EPOCH),
                new Row(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, List.of(allow(ResourceType.GROUP, "acl-sgo",
                        AclOperation.DESCRIBE), describeTopic), () -> new DescribeShareGroupOffsetsRequest.Builder(
                                new DescribeShareGroupOffsetsRequestData().setGroups(List.of(
                                        new DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup()
                                                .setGroupId("acl-sgo").setTopics(List.of(new DescribeShareGroupOffsetsRequestData
                                                        .DescribeShareGroupOffsetsRequestTopic().setTopicName(TOPIC)
                                                        .setPartitions(List.of(0))))))),
                        Errors.GROUP_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.ALTER_SHARE_GROUP_OFFSETS, List.of(allow(ResourceType.GROUP, "acl-sga",
                        AclOperation.READ), readTopic), () -> new AlterShareGroupOffsetsRequest.Builder(
                                shareAlter("acl-sga")),
                        Errors.GROUP_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.DELETE_SHARE_GROUP_OFFSETS, List.of(allow(ResourceType.GROUP, "acl-sgd-none",
                        AclOperation.DELETE), readTopic), () -> new DeleteShareGroupOffsetsRequest.Builder(
                                new DeleteShareGroupOffsetsRequestData().setGroupId("acl-sgd-none").setTopics(List.of(
                                        new DeleteShareGroupOffsetsRequestData.DeleteShareGroupOffsetsRequestTopic()
                                                .setTopicName(TOPIC)))),
                        Errors.GROUP_AUTHORIZATION_FAILED, Errors.GROUP_ID_NOT_FOUND),
                new Row(ApiKeys.ADD_PARTITIONS_TO_TXN, List.of(writeTxn, writeTopic), () -> AddPartitionsToTxnRequest
                        .Builder.forClient(TXN, 1_000, (short) 0, List.of(new TopicPartition(TOPIC, 0))),
                        Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, Errors.INVALID_PRODUCER_ID_MAPPING),
                new Row(ApiKeys.ADD_OFFSETS_TO_TXN, List.of(writeTxn, readGroup), () -> new AddOffsetsToTxnRequest
                        .Builder(new AddOffsetsToTxnRequestData().setTransactionalId(TXN).setProducerId(1_000)
                                .setProducerEpoch((short) 0).setGroupId(GROUP)),
                        Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, Errors.INVALID_PRODUCER_ID_MAPPING),
                new Row(ApiKeys.TXN_OFFSET_COMMIT, List.of(writeTxn, readGroup, readTopic),
                        () -> new TxnOffsetCommitRequest.Builder(TXN, GROUP, 1_000, (short) 0, Map.of(
                                new TopicPartition(TOPIC, 0), new TxnOffsetCommitRequest.CommittedOffset(0, "",
                                        Optional.empty())), false),
                        Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, Errors.INVALID_PRODUCER_ID_MAPPING),
                new Row(ApiKeys.END_TXN, List.of(writeTxn), () -> new EndTxnRequest.Builder(new EndTxnRequestData()
                        .setTransactionalId(TXN).setProducerId(1_000).setProducerEpoch((short) 0).setCommitted(false),
                        false),
                        Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, Errors.INVALID_PRODUCER_ID_MAPPING),
                new Row(ApiKeys.DESCRIBE_TRANSACTIONS, List.of(writeTxn), () -> new DescribeTransactionsRequest.Builder(
                        new DescribeTransactionsRequestData().setTransactionalIds(List.of(TXN))),
                        Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.LIST_TRANSACTIONS, List.of(writeTxn), () -> new ListTransactionsRequest.Builder(
                        new ListTransactionsRequestData()), Errors.NONE, Errors.NONE,
                        r -> ((ListTransactionsResponse) r).data().transactionStates().isEmpty()),
                // The share coordinator's state APIs: brokers only, as Kafka. A negative partition is
                // refused before the coordinator is asked, so the granted answer does not depend on
                // whether __share_group_state exists yet.
                new Row(ApiKeys.INITIALIZE_SHARE_GROUP_STATE, List.of(allow(ResourceType.CLUSTER, CLUSTER,
                        AclOperation.CLUSTER_ACTION)), () -> new InitializeShareGroupStateRequest.Builder(
                                new InitializeShareGroupStateRequestData().setGroupId(GROUP).setTopics(List.of(
                                        new InitializeShareGroupStateRequestData.InitializeStateData()
                                                .setTopicId(Uuid.randomUuid()).setPartitions(List.of(
                                                        new InitializeShareGroupStateRequestData.PartitionData()
                                                                .setPartition(-1)))))),
                        Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.INVALID_REQUEST),
                new Row(ApiKeys.READ_SHARE_GROUP_STATE, List.of(allow(ResourceType.CLUSTER, CLUSTER,
                        AclOperation.CLUSTER_ACTION)), () -> new ReadShareGroupStateRequest.Builder(
                                new ReadShareGroupStateRequestData().setGroupId(GROUP).setTopics(List.of(
                                        new ReadShareGroupStateRequestData.ReadStateData()
                                                .setTopicId(Uuid.randomUuid()).setPartitions(List.of(
                                                        new ReadShareGroupStateRequestData.PartitionData()
                                                                .setPartition(-1)))))),
                        Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.INVALID_REQUEST),
                new Row(ApiKeys.WRITE_SHARE_GROUP_STATE, List.of(allow(ResourceType.CLUSTER, CLUSTER,
                        AclOperation.CLUSTER_ACTION)), () -> new WriteShareGroupStateRequest.Builder(
                                new WriteShareGroupStateRequestData().setGroupId(GROUP).setTopics(List.of(
                                        new WriteShareGroupStateRequestData.WriteStateData()
                                                .setTopicId(Uuid.randomUuid()).setPartitions(List.of(
                                                        new WriteShareGroupStateRequestData.PartitionData()
                                                                .setPartition(-1)))))),
                        Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.INVALID_REQUEST),
                new Row(ApiKeys.DELETE_SHARE_GROUP_STATE, List.of(allow(ResourceType.CLUSTER, CLUSTER,
                        AclOperation.CLUSTER_ACTION)), () -> new DeleteShareGroupStateRequest.Builder(
                                new DeleteShareGroupStateRequestData().setGroupId(GROUP).setTopics(List.of(
                                        new DeleteShareGroupStateRequestData.DeleteStateData()
                                                .setTopicId(Uuid.randomUuid()).setPartitions(List.of(
                                                        new DeleteShareGroupStateRequestData.PartitionData()
                                                                .setPartition(-1)))))),
                        Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.INVALID_REQUEST),
                new Row(ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY, List.of(allow(ResourceType.CLUSTER, CLUSTER,
                        AclOperation.CLUSTER_ACTION)), () -> new ReadShareGroupStateSummaryRequest.Builder(
                                new ReadShareGroupStateSummaryRequestData().setGroupId(GROUP).setTopics(List.of(
                                        new ReadShareGroupStateSummaryRequestData.ReadStateSummaryData()
                                                .setTopicId(Uuid.randomUuid()).setPartitions(List.of(
                                                        new ReadShareGroupStateSummaryRequestData.PartitionData()
                                                                .setPartition(-1)))))),
                        Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.INVALID_REQUEST),
                new Row(ApiKeys.WRITE_TXN_MARKERS, List.of(allow(ResourceType.CLUSTER, CLUSTER,
                        AclOperation.CLUSTER_ACTION)), () -> new WriteTxnMarkersRequest.Builder(List.of(
                                new WriteTxnMarkersRequest.TxnMarkerEntry(1_000, (short) 0, 0,
                                        TransactionResult.ABORT, List.of(new TopicPartition("acl-none", 0)),
                                        (short) 0))),
                        Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.UNKNOWN_TOPIC_OR_PARTITION),
                new Row(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, List.of(allow(ResourceType.CLUSTER, CLUSTER,
                        AclOperation.ALTER)), () -> new AlterUserScramCredentialsRequest.Builder(
                                new AlterUserScramCredentialsRequestData().setDeletions(List.of(
                                        new AlterUserScramCredentialsRequestData.ScramCredentialDeletion()
                                                .setName("nobody").setMechanism((byte) 1)))),
                        Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.RESOURCE_NOT_FOUND),
                new Row(ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, List.of(allow(ResourceType.CLUSTER, CLUSTER,
                        AclOperation.DESCRIBE)), () -> new DescribeUserScramCredentialsRequest.Builder(
                                new DescribeUserScramCredentialsRequestData().setUsers(List.of(
                                        new DescribeUserScramCredentialsRequestData.UserName().setName("nobody")))),
                        Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.RESOURCE_NOT_FOUND),
                new Row(ApiKeys.ALTER_CLIENT_QUOTAS, List.of(allow(ResourceType.CLUSTER, CLUSTER,
                        AclOperation.ALTER_CONFIGS)), () -> new AlterClientQuotasRequest.Builder(List.of(
                                new ClientQuotaAlteration(new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, "nobody")),
                                        List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1024.0)))), true),
                        Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.DESCRIBE_CLIENT_QUOTAS, List.of(allow(ResourceType.CLUSTER, CLUSTER,
                        AclOperation.DESCRIBE_CONFIGS)), () -> new DescribeClientQuotasRequest.Builder(
                                ClientQuotaFilter.all()),
                        Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.CREATE_ACLS, List.of(allow(ResourceType.CLUSTER, CLUSTER, AclOperation.ALTER)),
                        () -> new CreateAclsRequest.Builder(new CreateAclsRequestData().setCreations(List.of(
                                CreateAclsRequest.aclCreation(carolReads())))),
                        Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.DESCRIBE_ACLS, List.of(allow(ResourceType.CLUSTER, CLUSTER, AclOperation.DESCRIBE)),
                        () -> new DescribeAclsRequest.Builder(AclBindingFilter.ANY),
                        Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.NONE),
                new Row(ApiKeys.DELETE_ACLS, List.of(allow(ResourceType.CLUSTER, CLUSTER, AclOperation.ALTER)),
                        () -> new DeleteAclsRequest.Builder(new DeleteAclsRequestData().setFilters(List.of(
                                DeleteAclsRequest.deleteAclsFilter(carolReads().toFilter())))),
                        Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.NONE));
    }

    /** The oracle test sends the table's requests to brokers without the matrix's topic: any id will do. */
    static void topicIdForOracle() {
        if (topicId == null) {
            topicId = Uuid.randomUuid();
        }
    }

    private static AclBinding carolReads() {
        return new AclBinding(new ResourcePattern(ResourceType.TOPIC, "carol-t", PatternType.LITERAL),
                new AccessControlEntry("User:carol", "*", AclOperation.READ, AclPermissionType.ALLOW));
    }

    @BeforeAll
    static void start() throws Exception {
        broker = new TestBroker(dir, Map.of(
                "listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config", JAAS,
                "authorizer.class.name", AuthorizerConfig.KAFKA_STANDARD_AUTHORIZER,
                "super.users", "User:admin;User:ANONYMOUS",
                "group.coordinator.rebalance.protocols", "classic,consumer"));
        saslPort = broker.broker().port("SASL_PLAINTEXT");
        admin = Admin.create(clientProps("admin", "admin-secret"));
        admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        topicId = admin.describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS).get(TOPIC).topicId();
        // The group exists, with an offset, so OffsetFetch/DescribeGroups/ListGroups have something to show.
        admin.alterConsumerGroupOffsets(GROUP, Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(0)))
                .all().get(30, TimeUnit.SECONDS);
        // A transaction (of the super user's producer) for the transaction APIs to find and ListTransactions
        // to list; initTransactions also waits for the transaction coordinator.
        Properties txp = clientProps("admin", "admin-secret");
        txp.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, TXN);
        txp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        txp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(txp)) {
            producer.initTransactions();
        }
        Set<AclBinding> grants = new LinkedHashSet<>();
        rows().forEach(r -> grants.addAll(r.grants()));
        grants.addAll(metadataGrants());
        admin.createAcls(grants).all().get(30, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    static Properties clientProps(String user, String password) {
        Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + saslPort);
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        p.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"" + user + "\" password=\"" + password + "\";");
        return p;
    }

    /** For the Metadata test: DESCRIBE on acl-auto-*, CREATE too on acl-auto-ok-*. */
    private static List<AclBinding> metadataGrants() {
        return List.of(
                new AclBinding(new ResourcePattern(ResourceType.TOPIC, "acl-auto-", PatternType.PREFIXED),
                        new AccessControlEntry("User:alice", "*", AclOperation.DESCRIBE, AclPermissionType.ALLOW)),
                new AclBinding(new ResourcePattern(ResourceType.TOPIC, "acl-auto-ok-", PatternType.PREFIXED),
                        new AccessControlEntry("User:alice", "*", AclOperation.CREATE, AclPermissionType.ALLOW)));
    }

    @Test
    void metadata_hidesWhatThePrincipalMayNotDescribe() throws Exception {
        try (AclWire bob = new AclWire(saslPort, "bob", "bob-secret");
                AclWire alice = new AclWire(saslPort, "alice", "alice-secret")) {
            MetadataResponse all = bob.send(MetadataRequest.Builder.allTopics());
            assertEquals(List.of(), all.data().topics().stream().map(t -> t.name()).toList(), "bob sees no topic");
            MetadataResponse allAlice = alice.send(MetadataRequest.Builder.allTopics());
            assertEquals(List.of(TOPIC), allAlice.data().topics().stream().map(t -> t.name()).toList());
            // An existing and a missing topic look the same to bob: existence is not revealed.
            MetadataResponse named = bob.send(new MetadataRequest.Builder(List.of(TOPIC, "acl-nope"), true));
            named.data().topics().forEach(t -> assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(), t.errorCode(),
                    t.name()));
            assertEquals(2, named.data().topics().size());
            // Auto-creation needs CREATE: alice may describe acl-auto-* but create only acl-auto-ok-*.
            MetadataResponse noCreate = alice.send(new MetadataRequest.Builder(List.of("acl-auto-1"), true));
            assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(), noCreate.data().topics().iterator().next()
                    .errorCode());
            MetadataResponse created = alice.send(new MetadataRequest.Builder(List.of("acl-auto-ok-1"), true));
            assertEquals(Errors.NONE.code(), created.data().topics().iterator().next().errorCode());
            assertEquals(Set.of(TOPIC, "acl-auto-ok-1"), admin.listTopics().names().get(30, TimeUnit.SECONDS));
        }
    }

    /** Kafka 4.3.1 does not answer this one when refused (its error response fails on the null list). */
    @Test
    void describeUserScramCredentials_allUsersRefused_isAnswered() throws Exception {
        try (AclWire bob = new AclWire(saslPort, "bob", "bob-secret")) {
            DescribeUserScramCredentialsResponse r = bob.send(new DescribeUserScramCredentialsRequest.Builder(
                    new DescribeUserScramCredentialsRequestData().setUsers(null)));
            assertEquals(Errors.CLUSTER_AUTHORIZATION_FAILED.code(), r.data().errorCode());
        }
    }

    @Test
    void everyAdvertisedApi_hasARow() throws Exception {
        Set<ApiKeys> inTable = new HashSet<>();
        rows().forEach(r -> assertTrue(inTable.add(r.api()), "two rows for " + r.api()));
        ApiVersionsResponse versions;
        try (AclWire w = new AclWire(saslPort, "bob", "bob-secret")) {
            versions = w.send(new ApiVersionsRequest.Builder());
        }
        Set<ApiKeys> missing = new TreeSet<>();
        versions.data().apiKeys().forEach(v -> {
            ApiKeys key = ApiKeys.forId(v.apiKey());
            if (!inTable.contains(key)) {
                missing.add(key);
            }
        });
        assertEquals(Set.of(), missing, "advertised APIs without an authorization row");
    }

    @TestFactory
    Stream<DynamicTest> matrix() {
        return rows().stream().filter(r -> r.request() != null).map(r -> DynamicTest.dynamicTest(r.api().name, () -> {
            AbstractResponse asBob;
            AbstractResponse asAlice;
            try (AclWire bob = new AclWire(saslPort, "bob", "bob-secret");
                    AclWire alice = new AclWire(saslPort, "alice", "alice-secret")) {
                asBob = bob.send(r.request().build());
                asAlice = alice.send(r.request().build());
            }
            assertEquals(errors(r.denied()), errors(asBob), r.api() + " as bob (no ACL): " + asBob);
            if (r.hidden() != null) {
                assertTrue(r.hidden().hidesEverything(asBob), r.api() + " shows bob what he may not see: " + asBob);
                assertTrue(!r.hidden().hidesEverything(asAlice), r.api() + " hides from alice what she may see: "
                        + asAlice);
            }
            assertEquals(errors(r.allowed()), errors(asAlice), r.api() + " as alice (granted): " + asAlice);
        }));
    }

    private static Set<Errors> errors(Errors e) {
        return e == Errors.NONE ? Set.of() : Set.of(e);
    }

    private static Set<Errors> errors(AbstractResponse r) {
        Set<Errors> out = new HashSet<>(r.errorCounts().keySet());
        out.remove(Errors.NONE);
        return out;
    }

    private static AbstractRequest.Builder<?> produce() {
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("v".getBytes()));
        ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(10_000)
                .setTopicData(new ProduceRequestData.TopicProduceDataCollection(List.of(
                        new ProduceRequestData.TopicProduceData().setName(TOPIC).setTopicId(topicId)
                                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData().setIndex(0)
                                        .setRecords(records)))).iterator()));
        return ProduceRequest.builder(data);
    }

    private static AbstractRequest.Builder<?> offsetForLeaderEpoch() {
        OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection topics =
                new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection();
        topics.add(new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic(TOPIC).setPartitions(List.of(
                new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition().setPartition(0).setLeaderEpoch(0)
                        .setCurrentLeaderEpoch(-1))));
        return OffsetsForLeaderEpochRequest.Builder.forConsumer(topics);
    }

    private static AbstractRequest.Builder<?> deleteRecords() {
        return new DeleteRecordsRequest.Builder(new DeleteRecordsRequestData().setTimeoutMs(10_000).setTopics(List.of(
                new DeleteRecordsRequestData.DeleteRecordsTopic().setName(TOPIC).setPartitions(List.of(
                        new DeleteRecordsRequestData.DeleteRecordsPartition().setPartitionIndex(0).setOffset(0))))));
    }

    private static AbstractRequest.Builder<?> createTopics() {
        CreateTopicsRequestData.CreatableTopicCollection topics =
                new CreateTopicsRequestData.CreatableTopicCollection();
        topics.add(new CreateTopicsRequestData.CreatableTopic().setName("acl-new").setNumPartitions(1)
                .setReplicationFactor((short) 1));
        return new CreateTopicsRequest.Builder(new CreateTopicsRequestData().setTopics(topics).setValidateOnly(true)
                .setTimeoutMs(10_000));
    }

    private static AbstractRequest.Builder<?> incrementalAlterConfigs() {
        IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection resources =
                new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
        IncrementalAlterConfigsRequestData.AlterableConfigCollection configs =
                new IncrementalAlterConfigsRequestData.AlterableConfigCollection();
        configs.add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("retention.ms")
                .setValue("86400000").setConfigOperation((byte) 0));
        resources.add(new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                .setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName(TOPIC).setConfigs(configs));
        return new IncrementalAlterConfigsRequest.Builder(new IncrementalAlterConfigsRequestData()
                .setResources(resources).setValidateOnly(true));
    }

    private static AbstractRequest.Builder<?> alterReassignments() {
        return new AlterPartitionReassignmentsRequest.Builder(new AlterPartitionReassignmentsRequestData()
                .setTimeoutMs(10_000).setTopics(List.of(new AlterPartitionReassignmentsRequestData.ReassignableTopic()
                        .setName(TOPIC).setPartitions(List.of(new AlterPartitionReassignmentsRequestData
                                .ReassignablePartition().setPartitionIndex(0).setReplicas(null))))));
    }

    private static AbstractRequest.Builder<?> offsetCommit() {
        return OffsetCommitRequest.Builder.forTopicNames(new OffsetCommitRequestData().setGroupId(GROUP)
                .setGenerationIdOrMemberEpoch(-1).setMemberId("").setTopics(List.of(new OffsetCommitRequestData
                        .OffsetCommitRequestTopic().setName(TOPIC).setPartitions(List.of(new OffsetCommitRequestData
                                .OffsetCommitRequestPartition().setPartitionIndex(0).setCommittedOffset(0))))));
    }

    private static AbstractRequest.Builder<?> offsetDelete() {
        OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection topics =
                new OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection();
        OffsetDeleteRequestData.OffsetDeleteRequestPartition p =
                new OffsetDeleteRequestData.OffsetDeleteRequestPartition().setPartitionIndex(0);
        topics.add(new OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName(TOPIC).setPartitions(List.of(p)));
        return new OffsetDeleteRequest.Builder(new OffsetDeleteRequestData().setGroupId("acl-g-gone")
                .setTopics(topics));
    }

    private static AbstractRequest.Builder<?> consumerGroupHeartbeat() {
        return new ConsumerGroupHeartbeatRequest.Builder(new ConsumerGroupHeartbeatRequestData().setGroupId(CG)
                .setMemberId(Uuid.randomUuid().toString()).setMemberEpoch(0).setRebalanceTimeoutMs(10_000)
                .setSubscribedTopicNames(List.of(TOPIC)).setTopicPartitions(List.of()));
    }
}
