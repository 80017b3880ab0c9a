package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.servers.ApacheKafkaServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
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
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The KIP-848 APIs' answers to bad and borderline input, Aloft against Apache Kafka 4.3.1 (the
 * oracle, run with {@code group.consumer.migration.policy=disabled}, the behaviour Aloft has for
 * mixed groups): the same raw requests go to both, and the error codes (and a few fields) must match.
 */
class ConsumerGroupProtocolOracleTest {
    private static final String TOPIC = "oracle-topic";

    @TempDir
    static Path dir;
    static TestBroker aloft;
    static ApacheKafkaServer kafka;

    @BeforeAll
    static void start() throws Exception {
        aloft = new TestBroker(dir.resolve("aloft"), Map.of("group.initial.rebalance.delay.ms", "0"));
        kafka = new ApacheKafkaServer(ApacheKafkaServer.findLibsDir(), "512m", false, dir.resolve("kafka"),
                Map.of("group.consumer.migration.policy", "disabled"), Duration.ofSeconds(120));
        kafka.start();
        for (String bootstrap : List.of(aloft.bootstrap(), kafka.bootstrap())) {
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get(60, TimeUnit.SECONDS);
            }
        }
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.stop();
        }
        if (aloft != null) {
            aloft.close();
        }
    }

    /** One probe: requests on one connection, answering a short text to compare. */
    @FunctionalInterface
    interface Probe {
        String run(RawKafkaClient c) throws Exception;
    }

    private static ConsumerGroupHeartbeatRequestData join(String group, String member) {
        return new ConsumerGroupHeartbeatRequestData().setGroupId(group).setMemberId(member).setMemberEpoch(0)
                .setRebalanceTimeoutMs(30_000).setSubscribedTopicNames(List.of(TOPIC)).setTopicPartitions(List.of());
    }

    private static ConsumerGroupHeartbeatResponse heartbeat(RawKafkaClient c, ConsumerGroupHeartbeatRequestData d,
                                                            short version) throws Exception {
        return c.send(new ConsumerGroupHeartbeatRequest.Builder(d, true).build(version));
    }

    /** A heartbeat (not a join) saying the member owns {@code partitions} of the topic. */
    private static ConsumerGroupHeartbeatRequestData owning(ConsumerGroupHeartbeatRequestData d, Uuid topicId,
                                                           int... partitions) {
        return d.setRebalanceTimeoutMs(-1).setSubscribedTopicNames(null).setTopicPartitions(List.of(
                new ConsumerGroupHeartbeatRequestData.TopicPartitions().setTopicId(topicId)
                        .setPartitions(java.util.Arrays.stream(partitions).boxed().toList())));
    }

    private static String code(ConsumerGroupHeartbeatResponse r) {
        return r.data().errorCode() + "";
    }

    private static JoinGroupResponse classicJoin(RawKafkaClient c, String group) throws Exception {
        JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
                new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range").setMetadata(new byte[0]));
        return c.send(new JoinGroupRequest.Builder(new JoinGroupRequestData().setGroupId(group).setMemberId("")
                .setProtocolType("consumer").setProtocols(protocols).setSessionTimeoutMs(30_000)
                .setRebalanceTimeoutMs(30_000)).build((short) 3));
    }

    private static Map<String, Probe> probes() {
        Map<String, Probe> p = new LinkedHashMap<>();
        p.put("join without rebalance timeout", c -> code(heartbeat(c, join("g1", Uuid.randomUuid().toString())
                .setRebalanceTimeoutMs(-1), (short) 1)));
        p.put("join without subscription", c -> code(heartbeat(c, join("g1", Uuid.randomUuid().toString())
                .setSubscribedTopicNames(null), (short) 1)));
        p.put("join with owned partitions", c -> code(heartbeat(c, join("g1", Uuid.randomUuid().toString())
                .setTopicPartitions(List.of(new ConsumerGroupHeartbeatRequestData.TopicPartitions()
                        .setTopicId(Uuid.randomUuid()).setPartitions(List.of(0)))), (short) 1)));
        p.put("join v1 without member id", c -> code(heartbeat(c, join("g1", ""), (short) 1)));
        p.put("join v0 without member id gets one", c -> {
            ConsumerGroupHeartbeatResponse r = heartbeat(c, join("g0", ""), (short) 0);
            return code(r) + " id=" + (r.data().memberId() != null && !r.data().memberId().isEmpty());
        });
        p.put("unknown assignor", c -> code(heartbeat(c, join("g1", Uuid.randomUuid().toString())
                .setServerAssignor("sticky"), (short) 1)));
        p.put("bad regex", c -> code(heartbeat(c, join("g1", Uuid.randomUuid().toString())
                .setSubscribedTopicNames(null).setSubscribedTopicRegex("[oops"), (short) 1)));
        p.put("epoch -3", c -> code(heartbeat(c, join("g1", Uuid.randomUuid().toString()).setMemberEpoch(-3),
                (short) 1)));
        p.put("static leave without instance id", c -> code(heartbeat(c, join("g1", Uuid.randomUuid().toString())
                .setMemberEpoch(-2), (short) 1)));
        p.put("empty instance id", c -> code(heartbeat(c, join("g1", Uuid.randomUuid().toString())
                .setInstanceId(""), (short) 1)));
        p.put("empty group id", c -> code(heartbeat(c, join("", Uuid.randomUuid().toString()), (short) 1)));
        p.put("heartbeat, group unknown", c -> code(heartbeat(c, join("nope", Uuid.randomUuid().toString())
                .setMemberEpoch(1), (short) 1)));
        p.put("leave, group unknown", c -> code(heartbeat(c, join("nope", Uuid.randomUuid().toString())
                .setMemberEpoch(-1), (short) 1)));
        p.put("heartbeat, member unknown", c -> {
            heartbeat(c, join("g2", Uuid.randomUuid().toString()), (short) 1);
            return code(heartbeat(c, join("g2", Uuid.randomUuid().toString()).setMemberEpoch(1), (short) 1));
        });
        p.put("leave, member unknown", c -> code(heartbeat(c, join("g2", Uuid.randomUuid().toString())
                .setMemberEpoch(-1), (short) 1)));
        p.put("first join: epoch, assignment", c -> {
            ConsumerGroupHeartbeatResponse r = heartbeat(c, join("g10", "m10"), (short) 1);
            ConsumerGroupHeartbeatResponse next = heartbeat(c, join("g10", "m10").setMemberEpoch(
                    r.data().memberEpoch()).setTopicPartitions(null).setRebalanceTimeoutMs(-1)
                    .setSubscribedTopicNames(null), (short) 1);
            // Epoch numbers are the coordinator's own (Kafka starts a new group one higher); not compared.
            return code(r) + " assigned="
                    + (r.data().assignment() == null ? "null" : r.data().assignment().topicPartitions().size())
                    + " interval=" + r.data().heartbeatIntervalMs() + " / " + code(next) + " sameEpoch="
                    + (next.data().memberEpoch() == r.data().memberEpoch()) + " assignment=" + (next.data().assignment() == null ? "null" : "set");
        });
        p.put("fenced epoch (ahead, then behind)", c -> {
            String m = Uuid.randomUuid().toString();
            ConsumerGroupHeartbeatResponse joined = heartbeat(c, join("g3", m), (short) 1);
            int epoch = joined.data().memberEpoch();
            return code(heartbeat(c, join("g3", m).setMemberEpoch(epoch + 5), (short) 1)) + "/"
                    + code(heartbeat(c, join("g3", m).setMemberEpoch(epoch + 100).setTopicPartitions(null),
                    (short) 1));
        });
        p.put("revoke before assign; lost response: the previous epoch with the partitions owned", c -> {
            ConsumerGroupHeartbeatResponse a0 = heartbeat(c, join("g11", "a"), (short) 1);
            int ea = a0.data().memberEpoch();
            Uuid topicId = a0.data().assignment().topicPartitions().get(0).topicId();
            ConsumerGroupHeartbeatResponse b0 = heartbeat(c, join("g11", "b"), (short) 1);
            // Kafka may compute the new target a moment after b joined: heartbeat until a is asked to revoke.
            ConsumerGroupHeartbeatResponse a1;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            do {
                a1 = heartbeat(c, owning(join("g11", "a").setMemberEpoch(ea), topicId, 0, 1), (short) 1);
            } while (a1.data().errorCode() == 0 && a1.data().assignment() == null && System.nanoTime() < deadline);
            List<Integer> kept = a1.data().assignment().topicPartitions().get(0).partitions();
            ConsumerGroupHeartbeatResponse a2 = heartbeat(c, owning(join("g11", "a").setMemberEpoch(ea), topicId,
                    kept.stream().mapToInt(Integer::intValue).toArray()), (short) 1);
            ConsumerGroupHeartbeatResponse lost = heartbeat(c, owning(join("g11", "a").setMemberEpoch(ea), topicId,
                    kept.stream().mapToInt(Integer::intValue).toArray()), (short) 1);
            return code(b0) + " b=" + b0.data().memberEpoch() + " a:" + code(a1) + " keeps " + kept.size()
                    + " epochKept=" + (a1.data().memberEpoch() == ea) + " " + code(a2) + " bumped="
                    + (a2.data().memberEpoch() > ea) + " " + code(lost) + " same="
                    + (lost.data().memberEpoch() == a2.data().memberEpoch());
        });
        p.put("instance id held by another member", c -> {
            heartbeat(c, join("g4", Uuid.randomUuid().toString()).setInstanceId("i"), (short) 1);
            return code(heartbeat(c, join("g4", Uuid.randomUuid().toString()).setInstanceId("i"), (short) 1));
        });
        p.put("static leave, then a new member takes the instance", c -> {
            String m = Uuid.randomUuid().toString();
            ConsumerGroupHeartbeatResponse joined = heartbeat(c, join("g5", m).setInstanceId("i"), (short) 1);
            ConsumerGroupHeartbeatResponse left = heartbeat(c, join("g5", m).setInstanceId("i")
                    .setMemberEpoch(-2), (short) 1);
            ConsumerGroupHeartbeatResponse back = heartbeat(c, join("g5", Uuid.randomUuid().toString())
                    .setInstanceId("i"), (short) 1);
            return code(left) + " epoch=" + left.data().memberEpoch() + " / " + code(back) + " sameEpoch="
                    + (back.data().memberEpoch() == joined.data().memberEpoch());
        });
        p.put("consumer join on a classic group with members", c -> {
            JoinGroupResponse j = classicJoin(c, "mixed-1");
            return j.data().errorCode() + "/" + code(heartbeat(c, join("mixed-1", Uuid.randomUuid().toString()),
                    (short) 1));
        });
        p.put("classic join on a consumer group with members", c -> {
            heartbeat(c, join("mixed-2", Uuid.randomUuid().toString()), (short) 1);
            return classicJoin(c, "mixed-2").data().errorCode() + "";
        });
        p.put("DescribeGroups v5 and v6 of a consumer group", c -> {
            heartbeat(c, join("g6", "m6"), (short) 1);
            StringBuilder out = new StringBuilder();
            for (short v : new short[] {5, 6}) {
                DescribeGroupsResponse r = c.send(new DescribeGroupsRequest.Builder(new DescribeGroupsRequestData()
                        .setGroups(List.of("g6"))).build(v));
                var g = r.data().groups().get(0);
                out.append(g.errorCode()).append(' ').append(g.errorMessage()).append(' ').append(g.groupState())
                        .append(" type=").append(g.protocolType()).append(" data=").append(g.protocolData())
                        .append(" members=").append(g.members().size()).append(" / ");
            }
            return out.toString();
        });
        p.put("ListGroups shows a consumer group", c -> {
            heartbeat(c, join("g12", "m12"), (short) 1);
            ListGroupsResponse r = c.send(new ListGroupsRequest.Builder(new ListGroupsRequestData()).build((short) 5));
            return r.data().groups().stream().filter(g -> g.groupId().equals("g12"))
                    .map(g -> g.protocolType() + " " + g.groupState() + " " + g.groupType()).toList().toString();
        });
        p.put("DeleteGroups of a consumer group with members", c -> {
            heartbeat(c, join("g13", "m13"), (short) 1);
            DeleteGroupsResponse r = c.send(new DeleteGroupsRequest.Builder(new DeleteGroupsRequestData()
                    .setGroupsNames(List.of("g13"))).build((short) 2));
            return r.data().results().iterator().next().errorCode() + "";
        });
        p.put("LeaveGroup (admin removal) on a consumer group", c -> {
            heartbeat(c, join("g15", "m15a").setInstanceId("i15"), (short) 1);
            heartbeat(c, join("g15", "m15b"), (short) 1);
            LeaveGroupResponse r = c.send(new LeaveGroupRequest.Builder("g15", List.of(
                    new LeaveGroupRequestData.MemberIdentity().setGroupInstanceId("i15"),
                    new LeaveGroupRequestData.MemberIdentity().setMemberId("m15b"),
                    new LeaveGroupRequestData.MemberIdentity().setMemberId("nobody"),
                    new LeaveGroupRequestData.MemberIdentity().setGroupInstanceId("nope"))).build((short) 5));
            ConsumerGroupDescribeResponse d = c.send(new ConsumerGroupDescribeRequest.Builder(
                    new ConsumerGroupDescribeRequestData().setGroupIds(List.of("g15"))).build((short) 1));
            return r.data().errorCode() + " " + r.data().members().stream().map(m -> "" + m.errorCode()).toList()
                    + " left=" + d.data().groups().get(0).members().size();
        });
        p.put("OffsetCommit v8 from a consumer-protocol member", c -> {
            ConsumerGroupHeartbeatResponse joined = heartbeat(c, join("g14", "m14"), (short) 1);
            OffsetCommitRequestData d = new OffsetCommitRequestData().setGroupId("g14").setMemberId("m14")
                    .setGenerationIdOrMemberEpoch(joined.data().memberEpoch())
                    .setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName(TOPIC)
                            .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                    .setPartitionIndex(0).setCommittedOffset(0)))));
            OffsetCommitResponse r = c.send(OffsetCommitRequest.Builder.forTopicNames(d).build((short) 8));
            return "" + r.data().topics().get(0).partitions().get(0).errorCode();
        });
        p.put("ConsumerGroupDescribe of unknown and classic groups", c -> {
            classicJoin(c, "classic-7");
            ConsumerGroupDescribeResponse r = c.send(new ConsumerGroupDescribeRequest.Builder(
                    new ConsumerGroupDescribeRequestData().setGroupIds(List.of("unknown-7", "classic-7")))
                    .build((short) 1));
            return r.data().groups().get(0).errorCode() + "/" + r.data().groups().get(1).errorCode();
        });
        p.put("OffsetCommit v9: stale epoch, unknown member, anonymous", c -> {
            ConsumerGroupHeartbeatResponse joined = heartbeat(c, join("g8", "m8"), (short) 1);
            int epoch = joined.data().memberEpoch();
            List<String> codes = new ArrayList<>();
            for (Object[] who : new Object[][] {{"m8", epoch + 1}, {"m8", epoch - 1}, {"other", epoch},
                    {"", -1}, {"m8", epoch}}) {
                OffsetCommitRequestData d = new OffsetCommitRequestData().setGroupId("g8")
                        .setMemberId((String) who[0]).setGenerationIdOrMemberEpoch((Integer) who[1])
                        .setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName(TOPIC)
                                .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                        .setPartitionIndex(0).setCommittedOffset(0)))));
                OffsetCommitResponse r = c.send(OffsetCommitRequest.Builder.forTopicNames(d).build((short) 9));
                codes.add("" + r.data().topics().get(0).partitions().get(0).errorCode());
            }
            return String.join(",", codes);
        });
        p.put("OffsetFetch v9: stale epoch, unknown member, admin", c -> {
            ConsumerGroupHeartbeatResponse joined = heartbeat(c, join("g9", "m9"), (short) 1);
            int epoch = joined.data().memberEpoch();
            List<String> codes = new ArrayList<>();
            for (Object[] who : new Object[][] {{"m9", epoch + 1}, {"other", epoch}, {null, -1}, {"m9", epoch}}) {
                OffsetFetchRequestData d = new OffsetFetchRequestData().setGroups(List.of(
                        new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId("g9")
                                .setMemberId((String) who[0]).setMemberEpoch((Integer) who[1]).setTopics(null)));
                OffsetFetchResponse r = c.send(OffsetFetchRequest.Builder.forTopicNames(d, true).build((short) 9));
                codes.add("" + r.data().groups().get(0).errorCode());
            }
            return String.join(",", codes);
        });
        return p;
    }

    @Test
    void badAndBorderlineRequests_answeredAsKafkaAnswersThem() throws Exception {
        Map<String, String> kafkaAnswers = answers(kafka.bootstrap());
        Map<String, String> aloftAnswers = answers(aloft.bootstrap());
        StringBuilder table = new StringBuilder();
        kafkaAnswers.forEach((name, k) -> table.append(String.format("%-55s kafka=%-30s aloft=%s%n", name, k,
                aloftAnswers.get(name))));
        System.out.println(table);
        assertEquals(kafkaAnswers, aloftAnswers, table.toString());
    }

    private static Map<String, String> answers(String bootstrap) throws Exception {
        Map<String, String> out = new LinkedHashMap<>();
        try (RawKafkaClient c = new RawKafkaClient(bootstrap)) {
            awaitCoordinator(c);
            for (Map.Entry<String, Probe> e : probes().entrySet()) {
                try {
                    out.put(e.getKey(), e.getValue().run(c));
                } catch (Exception ex) {
                    out.put(e.getKey(), "threw " + ex);
                }
            }
        }
        return out;
    }

    /**
     * Asks for a group coordinator until one is there: Kafka creates __consumer_offsets on the
     * first FindCoordinator, and a single broker then coordinates every group.
     */
    private static void awaitCoordinator(RawKafkaClient c) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            FindCoordinatorResponse r = c.send(new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData()
                    .setKeyType(FindCoordinatorRequest.CoordinatorType.GROUP.id()).setCoordinatorKeys(List.of("g1")))
                    .build((short) 4));
            if (r.data().coordinators().get(0).errorCode() == 0) {
                ConsumerGroupDescribeResponse d = c.send(new ConsumerGroupDescribeRequest.Builder(
                        new ConsumerGroupDescribeRequestData().setGroupIds(List.of("warm-up"))).build((short) 1));
                short e = d.data().groups().get(0).errorCode();
                if (e != Errors.NOT_COORDINATOR.code() && e != Errors.COORDINATOR_LOAD_IN_PROGRESS.code()) {
                    return;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no group coordinator at " + c);
            }
            Thread.onSpinWait();
        }
    }

    @Test
    void apiVersions_advertiseTheConsumerGroupApisKafkaDoes() throws Exception {
        String kafkaRanges;
        String aloftRanges;
        try (RawKafkaClient c = new RawKafkaClient(kafka.bootstrap())) {
            kafkaRanges = ranges(c.send(new ApiVersionsRequest.Builder().build((short) 3)));
        }
        try (RawKafkaClient c = new RawKafkaClient(aloft.bootstrap())) {
            aloftRanges = ranges(c.send(new ApiVersionsRequest.Builder().build((short) 3)));
        }
        assertEquals(kafkaRanges, aloftRanges);
    }

    private static String ranges(ApiVersionsResponse r) {
        StringBuilder out = new StringBuilder();
        for (ApiKeys key : List.of(ApiKeys.CONSUMER_GROUP_HEARTBEAT, ApiKeys.CONSUMER_GROUP_DESCRIBE,
                ApiKeys.OFFSET_COMMIT, ApiKeys.OFFSET_FETCH)) {
            var v = r.data().apiKeys().find(key.id);
            out.append(key).append('=').append(v == null ? "none" : v.minVersion() + "-" + v.maxVersion()).append(' ');
        }
        return out.toString();
    }
}
