package io.aloft.broker.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.TestBroker;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
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
 * Compacted topics answered as Apache Kafka 4.3.1 answers: the same raw requests go to Aloft and
 * to a real Kafka, and the codes must match: keyless records produced to a compacted topic
 * (partition error and the record errors of Produce v8+), DeleteRecords on a compact-only topic,
 * and CreateTopics with compaction settings Kafka refuses.
 */
class CompactedTopicConformanceTest {
    private static final String COMPACT = "conf-compacted";
    private static final String BOTH = "conf-compact-delete";

    @TempDir
    static Path dir;
    static TestBroker aloftBroker;
    static Map<String, String> targets = new LinkedHashMap<>();

    @BeforeAll
    static void start() throws Exception {
        aloftBroker = new TestBroker(dir);
        targets.put("Aloft", aloftBroker.bootstrap());
        targets.put("Kafka 4.3.1", KafkaOracle.bootstrap());
        for (String bootstrap : targets.values()) {
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                create(admin, new NewTopic(COMPACT, 1, (short) 1).configs(Map.of("cleanup.policy", "compact")));
                create(admin, new NewTopic(BOTH, 1, (short) 1).configs(Map.of("cleanup.policy", "compact,delete")));
            }
        }
    }

    private static void create(Admin admin, NewTopic topic) throws Exception {
        try {
            admin.createTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }

    @AfterAll
    static void stop() {
        if (aloftBroker != null) {
            aloftBroker.close();
        }
    }

    private static SimpleRecord keyed(String key) {
        return new SimpleRecord(System.currentTimeMillis(), key.getBytes(), "v".getBytes());
    }

    private static SimpleRecord keyless() {
        return new SimpleRecord(System.currentTimeMillis(), null, "v".getBytes());
    }

    /** Per target: the partition's error code and the indexes of its record errors. */
    private static Map<String, String> produce(String topic, short version, SimpleRecord... records) throws Exception {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> t : targets.entrySet()) {
            ProduceRequestData request = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(10_000);
            ProduceRequestData.TopicProduceData data = new ProduceRequestData.TopicProduceData().setName(topic);
            data.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0)
                    .setRecords(MemoryRecords.withRecords(Compression.NONE, records)));
            request.topicData().add(data);
            try (RawConnection c = RawConnection.open(t.getValue())) {
                ProduceResponseData r = (ProduceResponseData) c.send(ApiKeys.PRODUCE, version, request).body();
                ProduceResponseData.PartitionProduceResponse p = r.responses().iterator().next().partitionResponses()
                        .get(0);
                List<Integer> indexes = new ArrayList<>();
                p.recordErrors().forEach(e -> indexes.add(e.batchIndex()));
                out.put(t.getKey(), Errors.forCode(p.errorCode()) + " record errors " + indexes);
            }
        }
        return out;
    }

    private static void assertSame(Map<String, String> answers) {
        assertEquals(answers.get("Kafka 4.3.1"), answers.get("Aloft"), answers.toString());
    }

    @Test
    void keylessRecords_inACompactedTopic() throws Exception {
        for (short v : new short[] {3, 7, 8, 9, 12}) {
            Map<String, String> alone = produce(COMPACT, v, keyless());
            assertSame(alone);
            assertEquals(v >= 8 ? "INVALID_RECORD record errors [0]" : "INVALID_RECORD record errors []",
                    alone.get("Aloft"), "Produce v" + v);
            assertSame(produce(COMPACT, v, keyed("a"), keyless(), keyed("b")));
            assertSame(produce(BOTH, v, keyless()));
            assertSame(produce(COMPACT, v, keyed("a"), keyed("b")));
        }
    }

    @Test
    void deleteRecords_onACompactOnlyTopic() throws Exception {
        Map<String, String> answers = new LinkedHashMap<>();
        for (Map.Entry<String, String> t : targets.entrySet()) {
            DeleteRecordsRequestData request = new DeleteRecordsRequestData().setTimeoutMs(10_000);
            request.topics().add(new DeleteRecordsRequestData.DeleteRecordsTopic().setName(COMPACT)
                    .setPartitions(List.of(new DeleteRecordsRequestData.DeleteRecordsPartition().setPartitionIndex(0)
                            .setOffset(0))));
            try (RawConnection c = RawConnection.open(t.getValue())) {
                DeleteRecordsResponseData r = (DeleteRecordsResponseData) c.send(ApiKeys.DELETE_RECORDS, (short) 2,
                        request).body();
                answers.put(t.getKey(), Errors.forCode(r.topics().iterator().next().partitions().iterator().next()
                        .errorCode()).name());
            }
        }
        assertSame(answers);
        assertEquals("POLICY_VIOLATION", answers.get("Aloft"));
    }

    @Test
    void createTopics_withCompactionSettingsKafkaRefuses() throws Exception {
        List<Map<String, String>> cases = List.of(
                Map.of("cleanup.policy", "compact,shred"),
                Map.of("cleanup.policy", "compact,delete"),
                Map.of("segment.bytes", "1000"),
                Map.of("segment.ms", "0"),
                Map.of("min.cleanable.dirty.ratio", "1.5"),
                Map.of("min.compaction.lag.ms", "1000", "max.compaction.lag.ms", "10"),
                Map.of("delete.retention.ms", "-1"));
        for (Map<String, String> configs : cases) {
            Map<String, String> answers = new LinkedHashMap<>();
            for (Map.Entry<String, String> t : targets.entrySet()) {
                CreateTopicsRequestData.CreatableTopic topic = new CreateTopicsRequestData.CreatableTopic()
                        .setName("conf-bad-compaction").setNumPartitions(1).setReplicationFactor((short) 1);
                configs.forEach((k, v) -> topic.configs().add(new CreateTopicsRequestData.CreatableTopicConfig()
                        .setName(k).setValue(v)));
                CreateTopicsRequestData request = new CreateTopicsRequestData().setTimeoutMs(10_000)
                        .setValidateOnly(true);
                request.topics().add(topic);
                try (RawConnection c = RawConnection.open(t.getValue())) {
                    CreateTopicsResponseData r = (CreateTopicsResponseData) c.send(ApiKeys.CREATE_TOPICS, (short) 7,
                            request).body();
                    answers.put(t.getKey(), Errors.forCode(r.topics().iterator().next().errorCode()).name());
                }
            }
            assertEquals(answers.get("Kafka 4.3.1"), answers.get("Aloft"), configs + ": " + answers);
        }
    }
}
