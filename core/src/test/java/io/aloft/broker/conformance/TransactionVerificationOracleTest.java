package io.aloft.broker.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.TestBroker;
import java.nio.charset.StandardCharsets;
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
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceDataCollection;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-890 against Apache Kafka 4.3.1: the same raw requests to a transactions-enabled Aloft and to
 * Kafka, comparing the codes. A transactional batch for a partition never added to the transaction
 * (Produce v10, v11: verified, refused; v12: transaction version 2, added); a late write after the
 * transaction was aborted (the hanging transaction KIP-890 prevents), in version 1 and 2; a fenced
 * producer's batch; and ApiVersions' features (transaction.version as Kafka reports it, v3 and v4).
 */
class TransactionVerificationOracleTest {
    private static final String TOPIC = "verify";
    private static final Set<Errors> RETRIABLE = Set.of(Errors.NOT_ENOUGH_REPLICAS, Errors.COORDINATOR_NOT_AVAILABLE,
            Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.NOT_COORDINATOR, Errors.CONCURRENT_TRANSACTIONS,
            Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_LEADER_OR_FOLLOWER);

    @TempDir
    static Path dir;
    static TestBroker aloft;
    static String kafka;

    @BeforeAll
    static void start() throws Exception {
        // At Kafka 4.3.1's default transaction.version, 2, so ApiVersions' features compare.
        aloft = new TestBroker(dir, Map.of("aloft.transactions.enable", "true",
                "transaction.state.log.num.partitions", "2", "aloft.transaction.version", "2"));
        kafka = KafkaOracle.bootstrap();
        for (String b : List.of(aloft.bootstrap(), kafka)) {
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, b))) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
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

    /** One scenario's codes, by step name, on one broker. */
    interface Scenario {
        Map<String, Errors> run(Client c, String transactionalId) throws Exception;
    }

    private static void compare(String name, Scenario s) throws Exception {
        String id = name + "-" + UUID.randomUUID();
        Map<String, Errors> onKafka;
        Map<String, Errors> onAloft;
        try (Client c = new Client(kafka)) {
            onKafka = s.run(c, id);
        }
        try (Client c = new Client(aloft.bootstrap())) {
            onAloft = s.run(c, id);
        }
        assertEquals(onKafka, onAloft, name + ": Aloft's codes differ from " + KafkaOracle.description() + "'s");
    }

    @Test
    void batchForAPartitionNeverAdded_v10_v11_refused_v12_added() throws Exception {
        for (short v : new short[] {10, 11, 12}) {
            compare("unadded-v" + v, (c, id) -> {
                InitProducerIdResponseData p = c.init(id);
                Map<String, Errors> out = new LinkedHashMap<>();
                out.put("produce v" + v, c.produce(v, id, p.producerId(), p.producerEpoch(), 0));
                if (v >= 12) {
                    out.put("end v5 abort", c.endTxn((short) 5, id, p.producerId(), p.producerEpoch(), false));
                } else {
                    assertNotEquals(Errors.NONE, out.get("produce v" + v), "a batch the coordinator never saw");
                }
                return out;
            });
        }
    }

    @Test
    void lateWriteAfterAbort_version1_and_version2_refused() throws Exception {
        compare("late-v1", (c, id) -> {
            InitProducerIdResponseData p = c.init(id);
            Map<String, Errors> out = new LinkedHashMap<>();
            out.put("add v3", c.addPartition(id, p.producerId(), p.producerEpoch()));
            out.put("produce v11", c.produce((short) 11, id, p.producerId(), p.producerEpoch(), 0));
            out.put("end v4 abort", c.endTxn((short) 4, id, p.producerId(), p.producerEpoch(), false));
            out.put("late produce v11", c.produce((short) 11, id, p.producerId(), p.producerEpoch(), 1));
            assertNotEquals(Errors.NONE, out.get("late produce v11"), "a write after the abort reopens nothing");
            return out;
        });
        compare("late-v2", (c, id) -> {
            InitProducerIdResponseData p = c.init(id);
            Map<String, Errors> out = new LinkedHashMap<>();
            out.put("produce v12", c.produce((short) 12, id, p.producerId(), p.producerEpoch(), 0));
            out.put("end v5 abort", c.endTxn((short) 5, id, p.producerId(), p.producerEpoch(), false));
            out.put("late produce v12", c.produce((short) 12, id, p.producerId(), p.producerEpoch(), 1));
            assertNotEquals(Errors.NONE, out.get("late produce v12"), "a write after the abort reopens nothing");
            return out;
        });
    }

    @Test
    void fencedProducersBatch_refused() throws Exception {
        for (short v : new short[] {11, 12}) {
            compare("fenced-v" + v, (c, id) -> {
                InitProducerIdResponseData old = c.init(id);
                c.init(id); // a new session of the same transactional id: the old epoch is fenced
                Map<String, Errors> out = new LinkedHashMap<>();
                out.put("zombie produce v" + v, c.produce(v, id, old.producerId(), old.producerEpoch(), 0));
                return out;
            });
        }
    }

    @Test
    void addPartitionsToTxnBrokerForm_v4_v5_verifyOnlyAndAdd() throws Exception {
        compare("broker-form", (c, id) -> {
            InitProducerIdResponseData p = c.init(id);
            Map<String, Errors> out = new LinkedHashMap<>();
            out.put("verify v4", c.addOrVerify((short) 4, id, p.producerId(), p.producerEpoch(), true));
            out.put("verify v5", c.addOrVerify((short) 5, id, p.producerId(), p.producerEpoch(), true));
            out.put("verify v5 wrong epoch", c.addOrVerify((short) 5, id, p.producerId(),
                    (short) (p.producerEpoch() + 1), true));
            out.put("add v5", c.addOrVerify((short) 5, id, p.producerId(), p.producerEpoch(), false));
            out.put("verify v5 after add", c.addOrVerify((short) 5, id, p.producerId(), p.producerEpoch(), true));
            out.put("end v5 abort", c.endTxn((short) 5, id, p.producerId(), p.producerEpoch(), false));
            return out;
        });
    }

    @Test
    void apiVersionsFeatures_transactionVersion_asKafkaReportsIt() throws Exception {
        for (short v = 3; v <= 4; v++) {
            ApiVersionsResponseData a = apiVersions(aloft.bootstrap(), v);
            ApiVersionsResponseData k = apiVersions(kafka, v);
            for (String feature : List.of("transaction.version", "share.version")) {
                assertEquals(String.valueOf(k.supportedFeatures().find(feature)),
                        String.valueOf(a.supportedFeatures().find(feature)), feature + " supported, v" + v);
                assertEquals(String.valueOf(k.finalizedFeatures().find(feature)),
                        String.valueOf(a.finalizedFeatures().find(feature)), feature + " finalized, v" + v);
            }
            List<String> aloftFeatures = new ArrayList<>();
            a.supportedFeatures().forEach(f -> aloftFeatures.add(f.name()));
            a.finalizedFeatures().forEach(f -> aloftFeatures.add(f.name()));
            assertTrue(aloftFeatures.stream().allMatch(f -> f.equals("transaction.version") || f.equals("share.version")),
                    "only features Aloft honours: " + aloftFeatures);
            assertTrue(a.finalizedFeaturesEpoch() >= 0);
        }
    }

    private static ApiVersionsResponseData apiVersions(String bootstrap, short version) throws Exception {
        try (RawConnection c = RawConnection.open(bootstrap)) {
            return (ApiVersionsResponseData) c.send(ApiKeys.API_VERSIONS, version, new ApiVersionsRequestData()
                    .setClientSoftwareName("aloft-conformance").setClientSoftwareVersion("1")).body();
        }
    }

    /** Raw transactional requests to one single-node broker (its own transaction coordinator). */
    static final class Client implements AutoCloseable {
        private final RawConnection c;

        Client(String bootstrap) throws Exception {
            c = RawConnection.open(bootstrap);
        }

        /** Retries {@code step} while it answers a retriable code (coordinator loading, markers in flight). */
        private Errors retrying(Step step) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                Errors e = step.run();
                if (!RETRIABLE.contains(e) || System.nanoTime() > deadline) {
                    return e;
                }
                Thread.sleep(100);
            }
        }

        interface Step {
            Errors run() throws Exception;
        }

        InitProducerIdResponseData init(String id) throws Exception {
            Errors found = retrying(() -> Errors.forCode(((FindCoordinatorResponseData) c.send(
                    ApiKeys.FIND_COORDINATOR, (short) 4, new FindCoordinatorRequestData().setKeyType((byte) 1)
                            .setCoordinatorKeys(List.of(id))).body()).coordinators().get(0).errorCode()));
            assertEquals(Errors.NONE, found);
            InitProducerIdResponseData[] out = new InitProducerIdResponseData[1];
            Errors e = retrying(() -> {
                out[0] = (InitProducerIdResponseData) c.send(ApiKeys.INIT_PRODUCER_ID, (short) 5,
                        new InitProducerIdRequestData().setTransactionalId(id).setTransactionTimeoutMs(60_000)
                                .setProducerId(-1).setProducerEpoch((short) -1)).body();
                return Errors.forCode(out[0].errorCode());
            });
            assertEquals(Errors.NONE, e);
            return out[0];
        }

        Errors produce(short version, String id, long pid, short epoch, int seq) throws Exception {
            return retrying(() -> {
                MemoryRecords records = MemoryRecords.withTransactionalRecords(Compression.NONE, pid, epoch, seq,
                        new SimpleRecord(("v" + seq).getBytes(StandardCharsets.UTF_8)));
                TopicProduceDataCollection topics = new TopicProduceDataCollection();
                topics.add(new TopicProduceData().setName(TOPIC).setPartitionData(List.of(
                        new PartitionProduceData().setIndex(0).setRecords(records))));
                ProduceResponseData r = (ProduceResponseData) c.send(ApiKeys.PRODUCE, version, new ProduceRequestData()
                        .setTransactionalId(id).setAcks((short) -1).setTimeoutMs(30_000).setTopicData(topics)).body();
                return Errors.forCode(r.responses().iterator().next().partitionResponses().get(0).errorCode());
            });
        }

        Errors addPartition(String id, long pid, short epoch) throws Exception {
            return retrying(() -> {
                AddPartitionsToTxnTopicCollection topics = new AddPartitionsToTxnTopicCollection();
                topics.add(new AddPartitionsToTxnTopic().setName(TOPIC).setPartitions(List.of(0)));
                AddPartitionsToTxnResponseData r = (AddPartitionsToTxnResponseData) c.send(
                        ApiKeys.ADD_PARTITIONS_TO_TXN, (short) 3, new AddPartitionsToTxnRequestData()
                                .setV3AndBelowTransactionalId(id).setV3AndBelowProducerId(pid)
                                .setV3AndBelowProducerEpoch(epoch).setV3AndBelowTopics(topics)).body();
                return Errors.forCode(r.resultsByTopicV3AndBelow().iterator().next().resultsByPartition().iterator()
                        .next().partitionErrorCode());
            });
        }

        /** AddPartitionsToTxn v4+ (the broker-to-broker form) for TOPIC-0: the partition's code. */
        Errors addOrVerify(short version, String id, long pid, short epoch, boolean verifyOnly) throws Exception {
            return retrying(() -> {
                AddPartitionsToTxnTopicCollection topics = new AddPartitionsToTxnTopicCollection();
                topics.add(new AddPartitionsToTxnTopic().setName(TOPIC).setPartitions(List.of(0)));
                AddPartitionsToTxnTransactionCollection txns = new AddPartitionsToTxnTransactionCollection();
                txns.add(new AddPartitionsToTxnTransaction().setTransactionalId(id).setProducerId(pid)
                        .setProducerEpoch(epoch).setVerifyOnly(verifyOnly).setTopics(topics));
                AddPartitionsToTxnResponseData r = (AddPartitionsToTxnResponseData) c.send(
                        ApiKeys.ADD_PARTITIONS_TO_TXN, version, new AddPartitionsToTxnRequestData()
                                .setTransactions(txns)).body();
                assertEquals(Errors.NONE.code(), r.errorCode());
                return Errors.forCode(r.resultsByTransaction().find(id).topicResults().find(TOPIC)
                        .resultsByPartition().find(0).partitionErrorCode());
            });
        }

        Errors endTxn(short version, String id, long pid, short epoch, boolean commit) throws Exception {
            Errors e = retrying(() -> Errors.forCode(((EndTxnResponseData) c.send(ApiKeys.END_TXN, version,
                    new EndTxnRequestData().setTransactionalId(id).setProducerId(pid).setProducerEpoch(epoch)
                            .setCommitted(commit)).body()).errorCode()));
            // A write is "late" only once the markers are written (before, it joins the transaction being
            // ended, which the marker then ends too): wait for Complete*, which follows the markers.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            String state;
            while (!(state = ((DescribeTransactionsResponseData) c.send(ApiKeys.DESCRIBE_TRANSACTIONS, (short) 0,
                    new DescribeTransactionsRequestData().setTransactionalIds(List.of(id))).body())
                    .transactionStates().get(0).transactionState()).startsWith("Complete")) {
                assertTrue(System.nanoTime() < deadline, id + " still " + state);
                Thread.sleep(50);
            }
            return e;
        }

        @Override
        public void close() throws Exception {
            c.close();
        }
    }
}
