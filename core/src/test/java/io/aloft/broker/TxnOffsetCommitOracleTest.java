package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.conformance.KafkaOracle;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.AddOffsetsToTxnResponse;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetDeleteResponse;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TxnOffsetCommit's answers, Aloft (transactions on) against Apache Kafka 4.3.1: the same raw
 * requests within a real transaction (InitProducerId, AddOffsetsToTxn) go to both, for a simple
 * group, a group that does not exist, a classic group's members (KIP-447: unknown member, wrong
 * generation, unknown static instance), a consumer group's (KIP-848) member epochs, unknown topics
 * and partitions, metadata over the limit, an empty group id, an older producer epoch (where the
 * group's partition already holds the producer's current one); then OffsetFetch with and without
 * require_stable while the transaction is open. The per-partition codes must match.
 */
class TxnOffsetCommitOracleTest {
    private static final String TOPIC = "txo-topic";
    private static final String TXN_ID = "txo-tx";

    @TempDir
    static Path dir;
    static TestBroker aloft;

    @BeforeAll
    static void start() throws Exception {
        aloft = new TestBroker(dir, Map.of("aloft.transactions.enable", "true",
                "transaction.state.log.num.partitions", "2", "group.initial.rebalance.delay.ms", "0"));
    }

    @AfterAll
    static void stop() {
        if (aloft != null) {
            aloft.close();
        }
    }

    @Test
    void txnOffsetCommitErrors_answeredAsKafkaAnswersThem() throws Exception {
        Map<String, String> kafkaAnswers = answers(KafkaOracle.bootstrap());
        Map<String, String> aloftAnswers = answers(aloft.bootstrap());
        StringBuilder table = new StringBuilder();
        kafkaAnswers.forEach((name, k) -> table.append(String.format("%-45s kafka=%-40s aloft=%s%n", name, k,
                aloftAnswers.get(name))));
        System.out.println(table);
        // What Kafka answered, so that two equally broken answers cannot pass.
        assertEquals("NONE", kafkaAnswers.get("classic member, its generation"), table.toString());
        assertEquals(kafkaAnswers, aloftAnswers, table.toString());
    }

    /** One side's answers: its own topic, transaction, groups; then the probes in order. */
    private static Map<String, String> answers(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            if (!admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(TOPIC)) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get(60, TimeUnit.SECONDS);
            }
        }
        Map<String, String> out = new LinkedHashMap<>();
        try (RawKafkaClient c = new RawKafkaClient(bootstrap)) {
            await(c, (byte) 0, "txo-warm-up");
            await(c, (byte) 1, TXN_ID);
            // Twice, so the epoch is above 0 and an older one is a real, stale epoch.
            InitProducerIdResponse init = null;
            for (int i = 0; i < 2; i++) {
                init = retry(() -> c.send(new InitProducerIdRequest.Builder(
                        new InitProducerIdRequestData().setTransactionalId(TXN_ID).setTransactionTimeoutMs(60_000)
                                .setProducerId(-1).setProducerEpoch((short) -1)).build((short) 4)),
                        r -> r.error());
                assertEquals(Errors.NONE, init.error());
            }
            long pid = init.data().producerId();
            short epoch = init.data().producerEpoch();
            String[] groups = {"txo-simple", "txo-none", "txo-classic", "txo-static", "txo-consumer", "txo-v0"};
            for (String g : groups) {
                AddOffsetsToTxnResponse added = retry(() -> c.send(new AddOffsetsToTxnRequest.Builder(
                        new AddOffsetsToTxnRequestData().setTransactionalId(TXN_ID).setProducerId(pid)
                                .setProducerEpoch(epoch).setGroupId(g)).build((short) 3)),
                        r -> Errors.forCode(r.data().errorCode()));
                assertEquals(Errors.NONE.code(), added.data().errorCode(), g);
            }
            // A classic group with one member, Stable (joined and synced).
            JoinGroupResponse joined = classicJoin(c, "txo-classic", "");
            if (joined.error() == Errors.MEMBER_ID_REQUIRED) {
                joined = classicJoin(c, "txo-classic", joined.data().memberId());
            }
            assertEquals(Errors.NONE, joined.error());
            String member = joined.data().memberId();
            int generation = joined.data().generationId();
            c.send(new SyncGroupRequest.Builder(new SyncGroupRequestData().setGroupId("txo-classic")
                    .setMemberId(member).setGenerationId(generation).setProtocolType("consumer")
                    .setProtocolName("range").setAssignments(List.of())).build((short) 5));
            // A classic group with one static member (KIP-345), Stable.
            JoinGroupResponse stat = c.send(new JoinGroupRequest.Builder(new JoinGroupRequestData()
                    .setGroupId("txo-static").setMemberId("").setGroupInstanceId("instance-1")
                    .setProtocolType("consumer").setProtocols(rangeProtocol()).setSessionTimeoutMs(30_000)
                    .setRebalanceTimeoutMs(30_000)).build((short) 5));
            assertEquals(Errors.NONE, stat.error());
            c.send(new SyncGroupRequest.Builder(new SyncGroupRequestData().setGroupId("txo-static")
                    .setMemberId(stat.data().memberId()).setGroupInstanceId("instance-1")
                    .setGenerationId(stat.data().generationId()).setProtocolType("consumer")
                    .setProtocolName("range").setAssignments(List.of())).build((short) 5));
            // A consumer group (KIP-848) with one member.
            String cgMember = Uuid.randomUuid().toString();
            ConsumerGroupHeartbeatResponse hb = c.send(new ConsumerGroupHeartbeatRequest.Builder(
                    new ConsumerGroupHeartbeatRequestData().setGroupId("txo-consumer").setMemberId(cgMember)
                            .setMemberEpoch(0).setRebalanceTimeoutMs(30_000).setSubscribedTopicNames(List.of(TOPIC))
                            .setTopicPartitions(List.of()), true).build((short) 1));
            assertEquals(Errors.NONE.code(), hb.data().errorCode());
            int cgEpoch = hb.data().memberEpoch();

            out.put("simple group, no member", commit(c, txn(pid, epoch, "txo-simple", -1, "", null, 0, "m")));
            out.put("group that does not exist, generation 1",
                    commit(c, txn(pid, epoch, "txo-none", 1, "someone", null, 0, "m")));
            out.put("classic, unknown member", commit(c, txn(pid, epoch, "txo-classic", generation, "nobody", null,
                    0, "m")));
            out.put("classic member, wrong generation", commit(c, txn(pid, epoch, "txo-classic", generation + 1,
                    member, null, 0, "m")));
            out.put("classic member, unknown instance id", commit(c, txn(pid, epoch, "txo-classic", generation,
                    member, "no-such-instance", 0, "m")));
            out.put("static member, another member id", commit(c, txn(pid, epoch, "txo-static",
                    stat.data().generationId(), "someone-else", "instance-1", 0, "m")));
            out.put("static member, its member id", commit(c, txn(pid, epoch, "txo-static",
                    stat.data().generationId(), stat.data().memberId(), "instance-1", 0, "m")));
            // After the simple group's commit above: its partition knows the producer's current epoch.
            out.put("older producer epoch", commit(c, txn(pid, (short) (epoch - 1), "txo-simple", -1, "", null, 0,
                    "m")));
            out.put("classic, no member (v0 style)", commit(c, txn(pid, epoch, "txo-classic", -1, "", null, 0,
                    "m")));
            out.put("classic member, its generation", commit(c, txn(pid, epoch, "txo-classic", generation, member,
                    null, 0, "m")));
            out.put("consumer group, unknown member", commit(c, txn(pid, epoch, "txo-consumer", cgEpoch,
                    Uuid.randomUuid().toString(), null, 0, "m")));
            out.put("consumer group member, older epoch", commit(c, txn(pid, epoch, "txo-consumer", cgEpoch - 1,
                    cgMember, null, 0, "m")));
            out.put("consumer group member, newer epoch", commit(c, txn(pid, epoch, "txo-consumer", cgEpoch + 1,
                    cgMember, null, 0, "m")));
            out.put("consumer group, no member", commit(c, txn(pid, epoch, "txo-consumer", -1, "", null, 0, "m")));
            out.put("consumer group member, its epoch", commit(c, txn(pid, epoch, "txo-consumer", cgEpoch,
                    cgMember, null, 0, "m")));
            TxnOffsetCommitRequestData unknownTopic = txn(pid, epoch, "txo-simple", -1, "", null, 0, "m");
            unknownTopic.topics().add(new TxnOffsetCommitRequestTopic().setName("txo-no-such-topic").setPartitions(
                    List.of(new TxnOffsetCommitRequestPartition().setPartitionIndex(0).setCommittedOffset(3))));
            out.put("unknown topic beside a known one", commit(c, unknownTopic));
            out.put("unknown partition", commit(c, txn(pid, epoch, "txo-simple", -1, "", null, 99, "m")));
            out.put("metadata over offset.metadata.max.bytes", commit(c, txn(pid, epoch, "txo-simple", -1, "", null,
                    1, "x".repeat(5000))));
            out.put("empty group id", commit(c, txn(pid, epoch, "", -1, "", null, 0, "m")));
            out.put("v0, simple group", commitAt(c, txn(pid, epoch, "txo-v0", -1, "", null, 0, "m"), (short) 0));
            out.put("fetch while open", fetch(c, "txo-simple", false));
            out.put("fetch while open, require_stable", fetch(c, "txo-simple", true));
            // Offsets pending in the open transaction, deleted: by OffsetDelete, and with their group.
            OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection topics =
                    new OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection();
            topics.add(new OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName(TOPIC).setPartitions(List.of(
                    new OffsetDeleteRequestData.OffsetDeleteRequestPartition().setPartitionIndex(0))));
            OffsetDeleteResponse deleted = c.send(new OffsetDeleteRequest.Builder(new OffsetDeleteRequestData()
                    .setGroupId("txo-v0").setTopics(topics)).build((short) 0));
            out.put("OffsetDelete of a pending offset", Errors.forCode(deleted.data().errorCode()).name() + " "
                    + Errors.forCode(deleted.data().topics().find(TOPIC).partitions().find(0).errorCode()).name());
            out.put("fetch after OffsetDelete, require_stable", fetch(c, "txo-v0", true));
            DeleteGroupsResponse gone = c.send(new DeleteGroupsRequest.Builder(new DeleteGroupsRequestData()
                    .setGroupsNames(List.of("txo-simple"))).build((short) 2));
            out.put("DeleteGroups of a group with pending offsets",
                    Errors.forCode(gone.data().results().find("txo-simple").errorCode()).name());
            out.put("fetch after DeleteGroups, require_stable", fetch(c, "txo-simple", true));
        }
        return out;
    }

    private static JoinGroupRequestData.JoinGroupRequestProtocolCollection rangeProtocol() {
        JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
                new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range").setMetadata(new byte[0]));
        return protocols;
    }

    private static JoinGroupResponse classicJoin(RawKafkaClient c, String group, String memberId) throws Exception {
        return c.send(new JoinGroupRequest.Builder(new JoinGroupRequestData().setGroupId(group).setMemberId(memberId)
                .setProtocolType("consumer").setProtocols(rangeProtocol()).setSessionTimeoutMs(30_000)
                .setRebalanceTimeoutMs(30_000)).build((short) 5));
    }

    private static TxnOffsetCommitRequestData txn(long pid, short epoch, String group, int generation, String member,
                                                  String instance, int partition, String metadata) {
        return new TxnOffsetCommitRequestData().setTransactionalId(TXN_ID).setGroupId(group).setProducerId(pid)
                .setProducerEpoch(epoch).setGenerationId(generation).setMemberId(member).setGroupInstanceId(instance)
                .setTopics(new java.util.ArrayList<>(List.of(new TxnOffsetCommitRequestTopic().setName(TOPIC)
                        .setPartitions(List.of(new TxnOffsetCommitRequestPartition().setPartitionIndex(partition)
                                .setCommittedOffset(5).setCommittedMetadata(metadata))))));
    }

    private static String commit(RawKafkaClient c, TxnOffsetCommitRequestData data) throws Exception {
        return commitAt(c, data, (short) 3);
    }

    /** The response's codes, topic by topic (sorted by name), as "topic-partition=ERROR". */
    private static String commitAt(RawKafkaClient c, TxnOffsetCommitRequestData data, short version)
            throws Exception {
        TxnOffsetCommitResponse r = c.send(new TxnOffsetCommitRequest.Builder(data).build(version));
        StringBuilder s = new StringBuilder();
        r.data().topics().stream().sorted((a, b) -> a.name().compareTo(b.name())).forEach(t -> t.partitions()
                .forEach(p -> s.append(s.isEmpty() ? "" : " ").append(t.name().equals(TOPIC) ? "" : t.name() + "-")
                        .append(p.partitionIndex() == 0 || p.partitionIndex() == 1 ? "" : p.partitionIndex() + "=")
                        .append(Errors.forCode(p.errorCode()).name())));
        return s.toString();
    }

    private static String fetch(RawKafkaClient c, String group, boolean requireStable) throws Exception {
        OffsetFetchResponse r = c.send(OffsetFetchRequest.Builder.forTopicNames(new OffsetFetchRequestData()
                .setRequireStable(requireStable).setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                        .setGroupId(group).setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopics()
                                .setName(TOPIC).setPartitionIndexes(List.of(0, 1)))))), true).build((short) 8));
        StringBuilder s = new StringBuilder(Errors.forCode(r.data().groups().get(0).errorCode()).name());
        r.data().groups().get(0).topics().forEach(t -> t.partitions().forEach(p -> s.append(" ")
                .append(p.partitionIndex()).append(":").append(p.committedOffset()).append("/")
                .append(Errors.forCode(p.errorCode()).name())));
        return s.toString();
    }

    @FunctionalInterface
    private interface Call<T> {
        T run() throws Exception;
    }

    /** Repeats {@code call} while its error is one a client retries (the coordinator still starting). */
    private static <T> T retry(Call<T> call, java.util.function.Function<T, Errors> error) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            T r = call.run();
            Errors e = error.apply(r);
            if (e != Errors.COORDINATOR_LOAD_IN_PROGRESS && e != Errors.NOT_COORDINATOR
                    && e != Errors.COORDINATOR_NOT_AVAILABLE && e != Errors.CONCURRENT_TRANSACTIONS) {
                return r;
            }
            assertTrue(System.nanoTime() < deadline, "still " + e);
            Thread.sleep(100);
        }
    }

    /** FindCoordinator until the coordinator of {@code key} is there. */
    private static void await(RawKafkaClient c, byte keyType, String key) throws Exception {
        retry(() -> c.send(new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData().setKeyType(keyType)
                        .setCoordinatorKeys(List.of(key))).build((short) 4)),
                (FindCoordinatorResponse r) -> Errors.forCode(r.data().coordinators().get(0).errorCode()));
    }
}
