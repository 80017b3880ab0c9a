package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ListOffsets (all specs), DeleteRecords and DescribeLogDirs through the real Admin client. */
class LogAdminTest {
    @TempDir
    static Path dir;
    static TestBroker broker;
    static Admin admin;
    static final TopicPartition TP = new TopicPartition("logs", 0);
    static final TopicPartition TRIMMED = new TopicPartition("trimmed", 0);

    @BeforeAll
    static void start() throws Exception {
        broker = new TestBroker(dir);
        admin = Admin.create(broker.clientProps());
        admin.createTopics(List.of(new NewTopic("logs", 1, (short) 1), new NewTopic("trimmed", 1, (short) 1)))
                .all().get(30, TimeUnit.SECONDS);
        Properties p = broker.clientProps();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "200"); // several batches, so the time index has entries
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < 100; i++) {
                // Timestamps 1000, 2000, ... so lookups have exact answers.
                producer.send(new ProducerRecord<>("logs", 0, 1000L * (i + 1), "k" + i, "v" + i)).get();
                producer.send(new ProducerRecord<>("trimmed", 0, 1000L * (i + 1), "k" + i, "v" + i)).get();
            }
        }
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

    private static ListOffsetsResult.ListOffsetsResultInfo offset(OffsetSpec spec) throws Exception {
        return offset(TP, spec);
    }

    private static ListOffsetsResult.ListOffsetsResultInfo offset(TopicPartition tp, OffsetSpec spec) throws Exception {
        return admin.listOffsets(Map.of(tp, spec)).partitionResult(tp).get(30, TimeUnit.SECONDS);
    }

    @Test
    void listOffsetsEverySpec() throws Exception {
        assertEquals(0, offset(OffsetSpec.earliest()).offset());
        assertEquals(100, offset(OffsetSpec.latest()).offset());
        ListOffsetsResult.ListOffsetsResultInfo max = offset(OffsetSpec.maxTimestamp());
        assertEquals(99, max.offset());
        assertEquals(100_000, max.timestamp());
        assertEquals(41, offset(OffsetSpec.forTimestamp(41_500)).offset(), "first record at or after the time");
        assertEquals(-1, offset(OffsetSpec.forTimestamp(1_000_000)).offset(), "none that late");
    }

    @Test
    void deleteRecordsMovesTheLogStartAndDescribeLogDirsShowsSizes() throws Exception {
        Map<Integer, Map<String, LogDirDescription>> dirs = admin.describeLogDirs(List.of(broker.broker().nodeId()))
                .allDescriptions().get(30, TimeUnit.SECONDS);
        LogDirDescription d = dirs.get(broker.broker().nodeId()).values().iterator().next();
        long before = d.replicaInfos().get(TRIMMED).size();
        assertTrue(before > 0, "partition size " + before);

        long low = admin.deleteRecords(Map.of(TRIMMED, RecordsToDelete.beforeOffset(30))).lowWatermarks().get(TRIMMED)
                .get(30, TimeUnit.SECONDS).lowWatermark();
        assertEquals(30, low);
        assertEquals(30, offset(TRIMMED, OffsetSpec.earliest()).offset());
        ExecutionException tooFar = assertThrows(ExecutionException.class, () -> admin.deleteRecords(
                Map.of(TRIMMED, RecordsToDelete.beforeOffset(1000))).lowWatermarks().get(TRIMMED).get(30, TimeUnit.SECONDS));
        assertInstanceOf(OffsetOutOfRangeException.class, tooFar.getCause());
    }
}
