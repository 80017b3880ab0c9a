package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.coordinator.ManualTimer;
import io.aloft.broker.group.GroupCoordinator;
import io.aloft.broker.group.GroupCoordinatorConfig;
import io.aloft.broker.group.MemoryGroupLog;
import io.aloft.broker.group.MemoryShareStatePersister;
import io.aloft.broker.group.ShareGroupService;
import io.aloft.broker.group.TopicIdResolver;
import io.aloft.broker.group.consumer.ClusterTopics;
import io.aloft.broker.group.consumer.TopicMetadata;
import io.aloft.broker.share.ShareGroupConfig;
import io.aloft.broker.share.ShareGroupListener;
import io.aloft.broker.share.ShareGroupSettingsSource;
import io.aloft.servers.ApacheKafkaServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ConsumerGroupDescribeRequest;
import org.apache.kafka.common.requests.ConsumerGroupDescribeResponse;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.ShareGroupDescribeRequest;
import org.apache.kafka.common.requests.ShareGroupDescribeResponse;
import org.apache.kafka.common.requests.ShareGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ShareGroupHeartbeatResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Share group membership (KIP-932) against Apache Kafka 4.3.1 (the oracle, share groups on by
 * default): the same ShareGroupHeartbeat / ShareGroupDescribe requests, and the group APIs that meet
 * share groups (ConsumerGroupHeartbeat/Describe, DescribeGroups, ListGroups, DeleteGroups,
 * JoinGroup, OffsetCommit), go to Kafka as raw requests and to Aloft's group coordinator (with an
 * in-memory log and state persister), and the answers' codes, messages and shapes must match.
 * The broker-level test (handlers, ACLs) comes once the broker enables share groups with the share
 * state persister.
 */
class ShareGroupMembershipOracleTest {
    private static final String TOPIC = "oracle-topic";

    @TempDir
    static Path dir;
    static ApacheKafkaServer kafka;

    @BeforeAll
    static void start() throws Exception {
        kafka = new ApacheKafkaServer(ApacheKafkaServer.findLibsDir(), "512m", false, dir.resolve("kafka"),
                Map.of("group.consumer.migration.policy", "disabled"), Duration.ofSeconds(120));
        kafka.start();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.stop();
        }
    }

    /** Where the probes' requests go. */
    interface Side {
        ShareGroupHeartbeatResponseData share(ShareGroupHeartbeatRequestData d) throws Exception;

        ShareGroupDescribeResponseData.DescribedGroup shareDescribe(String group) throws Exception;

        ConsumerGroupHeartbeatResponseData consumer(ConsumerGroupHeartbeatRequestData d) throws Exception;

        short consumerDescribe(String group) throws Exception;

        DescribeGroupsResponseData.DescribedGroup describeGroups(String group, short version) throws Exception;

        List<ListGroupsResponseData.ListedGroup> listGroups(ListGroupsRequestData d) throws Exception;

        short deleteGroup(String group) throws Exception;

        short classicJoin(String group) throws Exception;

        short commit(String group) throws Exception;
    }

    static final class KafkaSide implements Side {
        final RawKafkaClient c;

        KafkaSide(RawKafkaClient c) {
            this.c = c;
        }

        @Override
        public ShareGroupHeartbeatResponseData share(ShareGroupHeartbeatRequestData d) throws Exception {
            return ((ShareGroupHeartbeatResponse) c.send(new ShareGroupHeartbeatRequest.Builder(d).build((short) 1)))
                    .data();
        }

        @Override
        public ShareGroupDescribeResponseData.DescribedGroup shareDescribe(String group) throws Exception {
            return ((ShareGroupDescribeResponse) c.send(new ShareGroupDescribeRequest.Builder(
                    new ShareGroupDescribeRequestData().setGroupIds(List.of(group))).build((short) 1)))
                    .data().groups().get(0);
        }

        @Override
        public ConsumerGroupHeartbeatResponseData consumer(ConsumerGroupHeartbeatRequestData d) throws Exception {
            return ((ConsumerGroupHeartbeatResponse) c.send(new ConsumerGroupHeartbeatRequest.Builder(d, true)
                    .build((short) 1))).data();
        }

        @Override
        public short consumerDescribe(String group) throws Exception {
            return ((ConsumerGroupDescribeResponse) c.send(new ConsumerGroupDescribeRequest.Builder(
                    new ConsumerGroupDescribeRequestData().setGroupIds(List.of(group))).build((short) 1)))
                    .data().groups().get(0).errorCode();
        }

        @Override
        public DescribeGroupsResponseData.DescribedGroup describeGroups(String group, short version)
                throws Exception {
            return ((DescribeGroupsResponse) c.send(new DescribeGroupsRequest.Builder(
                    new DescribeGroupsRequestData().setGroups(List.of(group))).build(version))).data().groups().get(0);
        }

        @Override
        public List<ListGroupsResponseData.ListedGroup> listGroups(ListGroupsRequestData d) throws Exception {
            return ((ListGroupsResponse) c.send(new ListGroupsRequest.Builder(d).build((short) 5))).data().groups();
        }

        @Override
        public short deleteGroup(String group) throws Exception {
            return ((DeleteGroupsResponse) c.send(new DeleteGroupsRequest.Builder(new DeleteGroupsRequestData()
                    .setGroupsNames(List.of(group))).build((short) 2))).data().results().find(group).errorCode();
        }

        @Override
        public short classicJoin(String group) throws Exception {
            return ((JoinGroupResponse) c.send(new JoinGroupRequest.Builder(joinRequest(group)).build((short) 9)))
                    .data().errorCode();
        }

        @Override
        public short commit(String group) throws Exception {
            return ((OffsetCommitResponse) c.send(OffsetCommitRequest.Builder.forTopicNames(commitRequest(group))
                    .build((short) 8))).data().topics().get(0).partitions().get(0).errorCode();
        }
    }

    /** Aloft's group coordinator, with share groups, over an in-memory log; shards on the calling thread. */
    static final class AloftSide implements Side {
        final GroupCoordinator coordinator;
        final ShareGroupService shares;

        AloftSide() {
            TopicMetadata topic = new TopicMetadata(Uuid.randomUuid(), TOPIC, 2);
            ClusterTopics cluster = new ClusterTopics() {
                @Override
                public TopicMetadata topic(String name) {
                    return TOPIC.equals(name) ? topic : null;
                }

                @Override
                public TopicMetadata topic(Uuid id) {
                    return topic.id().equals(id) ? topic : null;
                }

                @Override
                public Collection<String> names() {
                    return List.of(TOPIC);
                }
            };
            coordinator = new GroupCoordinator(GroupCoordinatorConfig.fromProperties(Map.of()), new MemoryGroupLog(),
                    new ManualTimer(0), TopicIdResolver.NONE, cluster);
            ShareGroupConfig config = ShareGroupConfig.defaults();
            shares = coordinator.enableShareGroups(config, ShareGroupSettingsSource.fixed(config.brokerDefaults()),
                    new MemoryShareStatePersister(), ShareGroupListener.NONE);
            coordinator.loadAll();
        }

        @Override
        public ShareGroupHeartbeatResponseData share(ShareGroupHeartbeatRequestData d) {
            return shares.heartbeat(d, "raw-client", "/127.0.0.1").join();
        }

        @Override
        public ShareGroupDescribeResponseData.DescribedGroup shareDescribe(String group) {
            return shares.describe(new ShareGroupDescribeRequestData().setGroupIds(List.of(group))).join().groups()
                    .get(0);
        }

        @Override
        public ConsumerGroupHeartbeatResponseData consumer(ConsumerGroupHeartbeatRequestData d) {
            return coordinator.consumerGroupHeartbeat(d, (short) 1, "raw-client", "/127.0.0.1").join();
        }

        @Override
        public short consumerDescribe(String group) {
            return coordinator.consumerGroupDescribe(new ConsumerGroupDescribeRequestData()
                    .setGroupIds(List.of(group)), (short) 1).join().groups().get(0).errorCode();
        }

        @Override
        public DescribeGroupsResponseData.DescribedGroup describeGroups(String group, short version) {
            return coordinator.describeGroups(new DescribeGroupsRequestData().setGroups(List.of(group)), version)
                    .join().groups().get(0);
        }

        @Override
        public List<ListGroupsResponseData.ListedGroup> listGroups(ListGroupsRequestData d) {
            return coordinator.listGroups(d, (short) 5).join().groups();
        }

        @Override
        public short deleteGroup(String group) {
            return coordinator.deleteGroups(new DeleteGroupsRequestData().setGroupsNames(List.of(group)), (short) 2)
                    .join().results().find(group).errorCode();
        }

        @Override
        public short classicJoin(String group) {
            return coordinator.joinGroup(joinRequest(group), (short) 9, "raw-client", "/127.0.0.1").join()
                    .errorCode();
        }

        @Override
        public short commit(String group) {
            return coordinator.commitOffsets(commitRequest(group), (short) 8).join().topics().get(0).partitions()
                    .get(0).errorCode();
        }
    }

    static JoinGroupRequestData joinRequest(String group) {
        JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
                new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range").setMetadata(new byte[0]));
        return new JoinGroupRequestData().setGroupId(group).setMemberId("").setProtocolType("consumer")
                .setProtocols(protocols).setSessionTimeoutMs(30_000).setRebalanceTimeoutMs(30_000);
    }

    static OffsetCommitRequestData commitRequest(String group) {
        return new OffsetCommitRequestData().setGroupId(group).setGenerationIdOrMemberEpoch(-1).setMemberId("")
                .setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName(TOPIC)
                        .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                .setPartitionIndex(0).setCommittedOffset(1)))));
    }

    static ShareGroupHeartbeatRequestData join(String group, String member) {
        return new ShareGroupHeartbeatRequestData().setGroupId(group).setMemberId(member).setMemberEpoch(0)
                .setSubscribedTopicNames(List.of(TOPIC));
    }

    static String code(ShareGroupHeartbeatResponseData r) {
        return r.errorCode() + (r.errorCode() == 0 ? "" : " '" + r.errorMessage() + "'");
    }

    /** One probe: requests to one side, answering a short text to compare. */
    @FunctionalInterface
    interface Probe {
        String run(Side s) throws Exception;
    }

    private static Map<String, Probe> probes() {
        Map<String, Probe> p = new LinkedHashMap<>();
        p.put("join without member id", s -> code(s.share(join("g1", ""))));
        p.put("join with blank member id", s -> code(s.share(join("g1", " "))));
        p.put("join without topics", s -> code(s.share(join("g1", Uuid.randomUuid().toString())
                .setSubscribedTopicNames(List.of()))));
        p.put("join, topics null", s -> code(s.share(join("g1", Uuid.randomUuid().toString())
                .setSubscribedTopicNames(null))));
        p.put("epoch -2", s -> code(s.share(join("g1", Uuid.randomUuid().toString()).setMemberEpoch(-2))));
        p.put("empty group id", s -> code(s.share(join("", Uuid.randomUuid().toString()))));
        p.put("blank rack id", s -> code(s.share(join("g1", Uuid.randomUuid().toString()).setRackId(" "))));
        p.put("heartbeat, group unknown", s -> code(s.share(join("nope", Uuid.randomUuid().toString())
                .setMemberEpoch(1))));
        p.put("leave, group unknown", s -> code(s.share(join("nope", Uuid.randomUuid().toString())
                .setMemberEpoch(-1))));
        p.put("heartbeat and leave, member unknown", s -> {
            s.share(join("g2", Uuid.randomUuid().toString()));
            return code(s.share(join("g2", "x").setMemberEpoch(1).setSubscribedTopicNames(null))) + " / "
                    + code(s.share(join("g2", "x").setMemberEpoch(-1).setSubscribedTopicNames(null)));
        });
        p.put("join, heartbeat, fenced, rejoin, leave", s -> {
            // Epoch numbers, and when the epoch moves after the share state is initialized, are the
            // coordinator's own (timing): not compared. Neither assigns a partition before its state is initialized.
            String m = Uuid.randomUuid().toString();
            ShareGroupHeartbeatResponseData joined = s.share(join("g3", m));
            int epoch = joined.memberEpoch();
            ShareGroupHeartbeatResponseData beat = s.share(join("g3", m).setMemberEpoch(epoch)
                    .setSubscribedTopicNames(null));
            ShareGroupHeartbeatResponseData ahead = s.share(join("g3", m).setMemberEpoch(epoch + 100)
                    .setSubscribedTopicNames(null));
            ShareGroupHeartbeatResponseData rejoined = s.share(join("g3", m));
            ShareGroupHeartbeatResponseData left = s.share(join("g3", m).setMemberEpoch(-1)
                    .setSubscribedTopicNames(null));
            return code(joined) + " id=" + joined.memberId().equals(m) + " interval=" + joined.heartbeatIntervalMs()
                    + " epoch>0=" + (epoch > 0) + " assigned at join=" + partitions(joined) + " / " + code(beat)
                    + " epoch>=" + (beat.memberEpoch() >= epoch) + " / ahead " + ahead.errorCode() + " / rejoin "
                    + code(rejoined) + " / leave " + code(left) + " epoch=" + left.memberEpoch() + " id="
                    + m.equals(left.memberId()) + " assignment=" + (left.assignment() != null);
        });
        p.put("share heartbeat on a consumer group", s -> {
            ConsumerGroupHeartbeatResponseData cg = s.consumer(new ConsumerGroupHeartbeatRequestData()
                    .setGroupId("cg1").setMemberId(Uuid.randomUuid().toString()).setMemberEpoch(0)
                    .setRebalanceTimeoutMs(30_000).setSubscribedTopicNames(List.of(TOPIC))
                    .setTopicPartitions(List.of()));
            ShareGroupDescribeResponseData.DescribedGroup d = s.shareDescribe("cg1");
            return cg.errorCode() + " / " + code(s.share(join("cg1", Uuid.randomUuid().toString()))) + " / describe "
                    + d.errorCode() + " '" + d.errorMessage() + "'";
        });
        p.put("share heartbeat on a classic (simple) group", s -> s.commit("simple1") + " / "
                + code(s.share(join("simple1", Uuid.randomUuid().toString()))));
        p.put("other protocols on a share group", s -> {
            s.share(join("sg1", Uuid.randomUuid().toString()));
            ConsumerGroupHeartbeatResponseData cg = s.consumer(new ConsumerGroupHeartbeatRequestData()
                    .setGroupId("sg1").setMemberId(Uuid.randomUuid().toString()).setMemberEpoch(0)
                    .setRebalanceTimeoutMs(30_000).setSubscribedTopicNames(List.of(TOPIC))
                    .setTopicPartitions(List.of()));
            DescribeGroupsResponseData.DescribedGroup v5 = s.describeGroups("sg1", (short) 5);
            DescribeGroupsResponseData.DescribedGroup v6 = s.describeGroups("sg1", (short) 6);
            return "consumer heartbeat " + cg.errorCode() + " '" + cg.errorMessage() + "' / consumer describe "
                    + s.consumerDescribe("sg1") + " / DescribeGroups v5 " + v5.errorCode() + " " + v5.groupState()
                    + " v6 " + v6.errorCode() + " / JoinGroup " + s.classicJoin("sg1") + " / OffsetCommit "
                    + s.commit("sg1");
        });
        p.put("describe unknown group", s -> {
            ShareGroupDescribeResponseData.DescribedGroup d = s.shareDescribe("unknown-share");
            return d.errorCode() + " '" + d.errorMessage() + "'";
        });
        p.put("describe a share group", s -> {
            String m = Uuid.randomUuid().toString();
            s.share(join("sg2", m).setRackId("r1"));
            ShareGroupDescribeResponseData.DescribedGroup d = s.shareDescribe("sg2");
            ShareGroupDescribeResponseData.Member member = d.members().get(0);
            return d.errorCode() + " " + d.groupState() + " assignor=" + d.assignorName() + " members="
                    + d.members().size() + " rack=" + member.rackId() + " topics=" + member.subscribedTopicNames()
                    + " client=" + member.clientId() + " epochs " + (member.memberEpoch() > 0 && d.groupEpoch() > 0);
        });
        p.put("list groups", s -> {
            String m = Uuid.randomUuid().toString();
            s.share(join("sg3", m));
            String stable = listed(s.listGroups(new ListGroupsRequestData().setTypesFilter(List.of("share"))), "sg3");
            s.share(join("sg3", m).setMemberEpoch(-1).setSubscribedTopicNames(null));
            String empty = listed(s.listGroups(new ListGroupsRequestData().setStatesFilter(List.of("Empty"))), "sg3");
            String consumerOnly = listed(s.listGroups(new ListGroupsRequestData()
                    .setTypesFilter(List.of("consumer"))), "sg3");
            return stable + " / " + empty + " / " + consumerOnly;
        });
        p.put("delete a share group", s -> {
            String m = Uuid.randomUuid().toString();
            s.share(join("sg4", m));
            short busy = s.deleteGroup("sg4");
            s.share(join("sg4", m).setMemberEpoch(-1).setSubscribedTopicNames(null));
            short done = s.deleteGroup("sg4");
            return busy + " " + done + " then describe " + s.shareDescribe("sg4").errorCode() + " delete again "
                    + s.deleteGroup("sg4");
        });
        return p;
    }

    /** How many partitions an answer assigns ("-" when it carries no assignment). */
    private static String partitions(ShareGroupHeartbeatResponseData r) {
        return r.assignment() == null ? "-" : String.valueOf(r.assignment().topicPartitions().stream()
                .mapToInt(t -> t.partitions().size()).sum());
    }

    private static String listed(List<ListGroupsResponseData.ListedGroup> groups, String id) {
        return groups.stream().filter(g -> g.groupId().equals(id)).map(g -> g.groupType() + "/" + g.protocolType()
                + "/" + g.groupState()).findFirst().orElse("absent");
    }

    private static Map<String, String> run(Side side) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, Probe> e : probes().entrySet()) {
            try {
                out.put(e.getKey(), e.getValue().run(side));
            } catch (Exception ex) {
                out.put(e.getKey(), "threw " + ex);
            }
        }
        return out;
    }

    @Test
    void membershipAnswers_matchKafka() throws Exception {
        Map<String, String> expected;
        try (RawKafkaClient c = new RawKafkaClient(kafka.bootstrap())) {
            awaitCoordinator(c);
            expected = run(new KafkaSide(c));
        }
        AloftSide aloft = new AloftSide();
        try {
            Map<String, String> actual = run(aloft);
            StringBuilder diff = new StringBuilder();
            expected.forEach((k, v) -> {
                if (!v.equals(actual.get(k))) {
                    diff.append("\n").append(k).append(":\n  kafka: ").append(v).append("\n  aloft: ")
                            .append(actual.get(k));
                }
            });
            assertEquals("", diff.toString(), "all probes: " + expected);
        } finally {
            aloft.coordinator.close();
        }
    }

    /** Kafka creates __consumer_offsets on the first FindCoordinator; waits until groups are served. */
    private static void awaitCoordinator(RawKafkaClient c) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            FindCoordinatorResponse r = c.send(new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData()
                    .setKeyType(FindCoordinatorRequest.CoordinatorType.GROUP.id()).setCoordinatorKeys(List.of("g1")))
                    .build((short) 4));
            if (r.data().coordinators().get(0).errorCode() == 0) {
                short e = new KafkaSide(c).shareDescribe("warm-up").errorCode();
                if (e != Errors.NOT_COORDINATOR.code() && e != Errors.COORDINATOR_LOAD_IN_PROGRESS.code()
                        && e != Errors.COORDINATOR_NOT_AVAILABLE.code()) {
                    return;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no group coordinator at " + c);
            }
            Thread.onSpinWait();
        }
    }
}
