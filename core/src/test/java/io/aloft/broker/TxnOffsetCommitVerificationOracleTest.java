package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.conformance.KafkaOracle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.AddOffsetsToTxnResponse;
import org.apache.kafka.common.requests.DescribeTransactionsRequest;
import org.apache.kafka.common.requests.DescribeTransactionsResponse;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.EndTxnResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
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
 * TxnOffsetCommit's transaction checks (KIP-890) against Apache Kafka 4.3.1, verification on (both
 * brokers' default): the same raw requests go to both, each scenario in a transaction of its own,
 * and the codes must match. v3 and v4 offsets of a transaction that never sent AddOffsetsToTxn (the
 * group coordinator verifies with the transaction coordinator), v5 without it (the partition is
 * added); a wrong producer epoch, an unknown producer id, an unknown transactional id; a classic
 * group's member errors and static-member fencing, with and without the offsets partition in the
 * transaction (which check comes first); and offsets sent after the transaction committed.
 */
class TxnOffsetCommitVerificationOracleTest {
    private static final String TOPIC = "txv-topic";
    private static final Set<Errors> RETRIABLE = Set.of(Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.NOT_COORDINATOR,
            Errors.COORDINATOR_NOT_AVAILABLE, Errors.CONCURRENT_TRANSACTIONS);

    @TempDir
    static Path dir;
    static TestBroker aloft;
    static String kafka;

    @BeforeAll
    static void start() throws Exception {
        aloft = new TestBroker(dir, Map.of("aloft.transactions.enable", "true",
                "transaction.state.log.num.partitions", "2", "group.initial.rebalance.delay.ms", "0"));
        kafka = KafkaOracle.bootstrap();
        for (String b : List.of(aloft.bootstrap(), kafka)) {
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, b))) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
        }
    }

    @AfterAll
    static void stop() {
        if (aloft != null) {
            aloft.close();
        }
    }

    /** One scenario's codes, by step name, on one broker; {@code id} names its transaction and groups. */
    interface Scenario {
        Map<String, String> run(Client c, String id) throws Exception;
    }

    /** Runs {@code s} on Kafka then on Aloft and compares; returns Kafka's codes. */
    private static Map<String, String> compare(String name, Scenario s) throws Exception {
        String id = "txv-" + name + "-" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, String> onKafka;
        Map<String, String> onAloft;
        try (Client c = new Client(kafka)) {
            onKafka = s.run(c, id);
        }
        try (Client c = new Client(aloft.bootstrap())) {
            onAloft = s.run(c, id);
        }
        StringBuilder table = new StringBuilder(name).append(":\n");
        onKafka.forEach((step, k) -> table.append(String.format("  %-50s kafka=%-28s aloft=%s%n", step, k,
                onAloft.get(step))));
        System.out.print(table);
        assertEquals(onKafka, onAloft, table + "Aloft's codes differ from " + KafkaOracle.description() + "'s");
        return onKafka;
    }

    @Test
    void offsetsOfATransactionWithoutAddOffsets_v3_v4_refused_v5_added() throws Exception {
        Map<String, String> k = compare("unadded", (c, id) -> {
            Map<String, String> out = new LinkedHashMap<>();
            InitProducerIdResponse p = c.init(id);
            long pid = p.data().producerId();
            short epoch = p.data().producerEpoch();
            out.put("v3, no AddOffsetsToTxn", c.commit((short) 3, c.simple(id, pid, epoch, id + "-g")));
            out.put("v4, no AddOffsetsToTxn", c.commit((short) 4, c.simple(id, pid, epoch, id + "-g")));
            out.put("v4, other group, no AddOffsetsToTxn", c.commit((short) 4, c.simple(id, pid, epoch,
                    id + "-other")));
            out.put("fetch after the refusals", c.fetch(id + "-g"));
            return out;
        });
        assertTrue(!k.get("v4, no AddOffsetsToTxn").equals("NONE"), "Kafka verifies v4: " + k);
        compare("v5", (c, id) -> {
            Map<String, String> out = new LinkedHashMap<>();
            InitProducerIdResponse p = c.init(id);
            long pid = p.data().producerId();
            short epoch = p.data().producerEpoch();
            out.put("v5, no AddOffsetsToTxn", c.commit((short) 5, c.simple(id, pid, epoch, id + "-g")));
            out.put("v3 after v5 added the partition", c.commit((short) 3, c.simple(id, pid, epoch, id + "-g")));
            out.put("end v5 commit", c.endTxn((short) 5, id, pid, epoch, true));
            out.put("fetch after commit", c.fetch(id + "-g"));
            return out;
        });
    }

    @Test
    void producerErrors_wrongEpoch_unknownProducerId_unknownTransactionalId() throws Exception {
        compare("producer", (c, id) -> {
            Map<String, String> out = new LinkedHashMap<>();
            InitProducerIdResponse p = c.init(id);
            long pid = p.data().producerId();
            short epoch = p.data().producerEpoch();
            String g = id + "-g";
            out.put("AddOffsetsToTxn", c.addOffsets(id, pid, epoch, g));
            for (short v = 3; v <= 5; v++) {
                out.put("v" + v + ", higher epoch", c.commit(v, c.simple(id, pid, (short) (epoch + 1), g)));
                out.put("v" + v + ", unknown producer id", c.commit(v, c.simple(id, pid + 1_000_000, epoch, g)));
                out.put("v" + v + ", unknown transactional id", c.commit(v, c.simple(id + "-unknown", pid, epoch,
                        g)));
            }
            out.put("v4, its own", c.commit((short) 4, c.simple(id, pid, epoch, g)));
            out.put("end v4 abort", c.endTxn((short) 4, id, pid, epoch, false));
            return out;
        });
    }

    @Test
    void memberErrors_afterTheTransactionCheck_withAndWithoutAddOffsets() throws Exception {
        compare("members", (c, id) -> {
            Map<String, String> out = new LinkedHashMap<>();
            String dynamic = id + "-dynamic";
            String fixed = id + "-static";
            JoinGroupResponse member = c.join(dynamic, null);
            JoinGroupResponse stat = c.join(fixed, "instance-1");
            int gen = member.data().generationId();
            String m = member.data().memberId();
            int statGen = stat.data().generationId();
            for (short v = 3; v <= 5; v++) {
                // A transaction of its own, its offsets partitions not added (v5 adds them).
                InitProducerIdResponse p = c.init(id + "-v" + v);
                long pid = p.data().producerId();
                short e = p.data().producerEpoch();
                String t = id + "-v" + v;
                out.put("v" + v + " unadded: wrong generation", c.commit(v, c.member(t, pid, e, dynamic, gen + 1, m,
                        null)));
                out.put("v" + v + " unadded: unknown member", c.commit(v, c.member(t, pid, e, dynamic, gen,
                        "nobody", null)));
                out.put("v" + v + " unadded: fenced instance", c.commit(v, c.member(t, pid, e, fixed, statGen,
                        "someone-else", "instance-1")));
                out.put("v" + v + " AddOffsetsToTxn", c.addOffsets(t, pid, e, dynamic) + " "
                        + c.addOffsets(t, pid, e, fixed));
                out.put("v" + v + " added: wrong generation", c.commit(v, c.member(t, pid, e, dynamic, gen + 1, m,
                        null)));
                out.put("v" + v + " added: unknown member", c.commit(v, c.member(t, pid, e, dynamic, gen, "nobody",
                        null)));
                out.put("v" + v + " added: fenced instance", c.commit(v, c.member(t, pid, e, fixed, statGen,
                        "someone-else", "instance-1")));
                out.put("v" + v + " added: its generation", c.commit(v, c.member(t, pid, e, dynamic, gen, m, null)));
                out.put("v" + v + " end abort", c.endTxn(v == 5 ? (short) 5 : (short) 4, t, pid, e, false));
            }
            return out;
        });
    }

    @Test
    void offsetsAfterTheTransactionCommitted_version1_and_version2() throws Exception {
        Map<String, String> k = compare("after-commit-v1", (c, id) -> {
            Map<String, String> out = new LinkedHashMap<>();
            InitProducerIdResponse p = c.init(id);
            long pid = p.data().producerId();
            short epoch = p.data().producerEpoch();
            String g = id + "-g";
            out.put("AddOffsetsToTxn", c.addOffsets(id, pid, epoch, g));
            out.put("v4 in the transaction", c.commit((short) 4, c.simple(id, pid, epoch, g)));
            out.put("end v4 commit", c.endTxn((short) 4, id, pid, epoch, true));
            out.put("v4 after the commit", c.commit((short) 4, c.simple(id, pid, epoch, g)));
            out.put("v3 after the commit", c.commit((short) 3, c.simple(id, pid, epoch, g)));
            out.put("fetch", c.fetch(g));
            return out;
        });
        // What Kafka answered, so that two equally broken answers cannot pass: the late offsets are
        // refused and leave no open transaction behind (the committed offset is stable).
        assertTrue(!k.get("v4 after the commit").equals("NONE") && k.get("fetch").equals("5/NONE"), k.toString());
        compare("after-commit-v2", (c, id) -> {
            Map<String, String> out = new LinkedHashMap<>();
            InitProducerIdResponse p = c.init(id);
            long pid = p.data().producerId();
            short epoch = p.data().producerEpoch();
            String g = id + "-g";
            out.put("v5 in the transaction", c.commit((short) 5, c.simple(id, pid, epoch, g)));
            out.put("end v5 commit", c.endTxn((short) 5, id, pid, epoch, true));
            out.put("v5 after the commit, the old epoch", c.commit((short) 5, c.simple(id, pid, epoch, g)));
            out.put("v4 after the commit, the old epoch", c.commit((short) 4, c.simple(id, pid, epoch, g)));
            out.put("fetch", c.fetch(g));
            return out;
        });
    }

    /** Raw requests to one broker; groups and topics as the scenarios name them. Not thread-safe. */
    static final class Client implements AutoCloseable {
        private final RawKafkaClient c;

        Client(String bootstrap) throws Exception {
            c = new RawKafkaClient(bootstrap);
        }

        @FunctionalInterface
        interface Call<T> {
            T run() throws Exception;
        }

        /** Repeats {@code call} while it answers a code a client retries (a coordinator loading). */
        static <T> T retrying(Call<T> call, java.util.function.Function<T, Errors> error) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                T r = call.run();
                if (!RETRIABLE.contains(error.apply(r)) || System.nanoTime() > deadline) {
                    return r;
                }
                Thread.sleep(100);
            }
        }

        private void findCoordinator(byte keyType, String key) throws Exception {
            FindCoordinatorResponse r = retrying(() -> c.send(new FindCoordinatorRequest.Builder(
                    new FindCoordinatorRequestData().setKeyType(keyType).setCoordinatorKeys(List.of(key)))
                    .build((short) 4)), f -> Errors.forCode(f.data().coordinators().get(0).errorCode()));
            assertEquals(Errors.NONE.code(), r.data().coordinators().get(0).errorCode(), key);
        }

        InitProducerIdResponse init(String id) throws Exception {
            findCoordinator((byte) 1, id);
            InitProducerIdResponse r = retrying(() -> c.send(new InitProducerIdRequest.Builder(
                    new InitProducerIdRequestData().setTransactionalId(id).setTransactionTimeoutMs(60_000)
                            .setProducerId(-1).setProducerEpoch((short) -1)).build((short) 5)),
                    InitProducerIdResponse::error);
            assertEquals(Errors.NONE, r.error(), id);
            return r;
        }

        String addOffsets(String id, long pid, short epoch, String group) throws Exception {
            findCoordinator((byte) 0, group);
            AddOffsetsToTxnResponse r = retrying(() -> c.send(new AddOffsetsToTxnRequest.Builder(
                    new AddOffsetsToTxnRequestData().setTransactionalId(id).setProducerId(pid)
                            .setProducerEpoch(epoch).setGroupId(group)).build((short) 3)),
                    a -> Errors.forCode(a.data().errorCode()));
            return Errors.forCode(r.data().errorCode()).name();
        }

        /** A classic group with one member (static if {@code instance}), Stable: joined and synced. */
        JoinGroupResponse join(String group, String instance) throws Exception {
            findCoordinator((byte) 0, group);
            JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
                    new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
            protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range")
                    .setMetadata(new byte[0]));
            JoinGroupRequestData req = new JoinGroupRequestData().setGroupId(group).setMemberId("")
                    .setGroupInstanceId(instance).setProtocolType("consumer").setProtocols(protocols)
                    .setSessionTimeoutMs(30_000).setRebalanceTimeoutMs(30_000);
            JoinGroupResponse r = c.send(new JoinGroupRequest.Builder(req).build((short) 5));
            if (r.error() == Errors.MEMBER_ID_REQUIRED) {
                r = c.send(new JoinGroupRequest.Builder(req.setMemberId(r.data().memberId())).build((short) 5));
            }
            assertEquals(Errors.NONE, r.error(), group);
            c.send(new SyncGroupRequest.Builder(new SyncGroupRequestData().setGroupId(group)
                    .setMemberId(r.data().memberId()).setGroupInstanceId(instance)
                    .setGenerationId(r.data().generationId()).setProtocolType("consumer").setProtocolName("range")
                    .setAssignments(List.of())).build((short) 5));
            return r;
        }

        /** Offsets of {@code group}, a group without members (generation -1). */
        TxnOffsetCommitRequestData simple(String id, long pid, short epoch, String group) {
            return member(id, pid, epoch, group, -1, "", null);
        }

        TxnOffsetCommitRequestData member(String id, long pid, short epoch, String group, int generation,
                String memberId, String instance) {
            return new TxnOffsetCommitRequestData().setTransactionalId(id).setGroupId(group).setProducerId(pid)
                    .setProducerEpoch(epoch).setGenerationId(generation).setMemberId(memberId)
                    .setGroupInstanceId(instance).setTopics(new ArrayList<>(List.of(new TxnOffsetCommitRequestTopic()
                            .setName(TOPIC).setPartitions(List.of(new TxnOffsetCommitRequestPartition()
                                    .setPartitionIndex(0).setCommittedOffset(5).setCommittedMetadata("m"))))));
        }

        /** The partition's code (one partition per request). */
        String commit(short version, TxnOffsetCommitRequestData data) throws Exception {
            findCoordinator((byte) 0, data.groupId());
            TxnOffsetCommitResponse r = retrying(() -> c.send(new TxnOffsetCommitRequest(data, version)), t -> Errors.forCode(t.data().topics().get(0).partitions().get(0).errorCode()));
            return Errors.forCode(r.data().topics().get(0).partitions().get(0).errorCode()).name();
        }

        /** EndTxn's code, once the transaction is Complete* (its markers written). */
        String endTxn(short version, String id, long pid, short epoch, boolean commit) throws Exception {
            EndTxnResponse r = retrying(() -> c.send(new EndTxnRequest.Builder(new EndTxnRequestData()
                    .setTransactionalId(id).setProducerId(pid).setProducerEpoch(epoch).setCommitted(commit),
                    version >= 5).build(version)), EndTxnResponse::error);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            String state;
            do {
                DescribeTransactionsResponse d = c.send(new DescribeTransactionsRequest.Builder(
                        new DescribeTransactionsRequestData().setTransactionalIds(List.of(id))).build((short) 0));
                state = d.data().transactionStates().get(0).transactionState();
                assertTrue(System.nanoTime() < deadline, id + " still " + state);
            } while (r.error() == Errors.NONE && !state.startsWith("Complete") && sleep());
            return r.error().name();
        }

        private static boolean sleep() throws InterruptedException {
            Thread.sleep(50);
            return true;
        }

        /** The group's stable offset of TOPIC-0 (require_stable), or its code. */
        String fetch(String group) throws Exception {
            findCoordinator((byte) 0, group);
            OffsetFetchResponse r = retrying(() -> c.send(OffsetFetchRequest.Builder.forTopicNames(
                    new OffsetFetchRequestData().setRequireStable(true).setGroups(List.of(
                            new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(group).setTopics(List.of(
                                    new OffsetFetchRequestData.OffsetFetchRequestTopics().setName(TOPIC)
                                            .setPartitionIndexes(List.of(0)))))), true).build((short) 8)),
                    f -> Errors.forCode(f.data().groups().get(0).errorCode()) != Errors.NONE
                            ? Errors.forCode(f.data().groups().get(0).errorCode())
                            : Errors.forCode(f.data().groups().get(0).topics().get(0).partitions().get(0)
                                    .errorCode()));
            OffsetFetchResponseData.OffsetFetchResponsePartitions p =
                    r.data().groups().get(0).topics().get(0).partitions().get(0);
            return p.committedOffset() + "/" + Errors.forCode(p.errorCode()).name();
        }

        @Override
        public void close() throws Exception {
            c.close();
        }
    }
}
