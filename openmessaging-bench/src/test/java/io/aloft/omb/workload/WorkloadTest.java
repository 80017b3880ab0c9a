package io.aloft.omb.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkloadTest {
    private static final String MINIMAL = """
            name: t
            topics: 2
            partitionsPerTopic: 4
            messageSize: 100
            subscriptionsPerTopic: 1
            consumerPerSubscription: 1
            producersPerTopic: 1
            testDurationMinutes: 1
            """;

    @Test
    void load_everyShippedWorkload_parses() throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(Path.of("workloads"))) {
            files = s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        assertTrue(files.size() >= 8, "shipped workloads: " + files);
        for (Path f : files) {
            Workload w = Workload.load(f);
            assertTrue(w.warmupDurationMinutes() + w.testDurationMinutes() <= 5, f + " runs at most 5 minutes");
        }
    }

    @Test
    void load_shippedSpecialWorkloads_haveTheirShape() {
        Workload hot = Workload.load(Path.of("workloads/hot-partition.yaml"));
        assertEquals(0.9, hot.hotPartitionShare());
        assertEquals(16, hot.partitionsPerTopic());
        Workload backlog = Workload.load(Path.of("workloads/catch-up-read.yaml"));
        assertTrue(backlog.backlogMode());
        assertEquals(2L << 30, backlog.backlogBytes());
        assertEquals(1000, Workload.load(Path.of("workloads/topic-scaling-1000.yaml")).topics());
        assertEquals(0, Workload.load(Path.of("workloads/max-throughput.yaml")).producerRate());
    }

    @Test
    void parse_absentOptionalFields_takeOmbDefaults() {
        Workload w = Workload.parse(MINIMAL);
        assertEquals(0, w.producerRate());
        assertEquals("NO_KEY", w.keyDistributor());
        assertEquals(KeyDistributorType.NO_KEY, w.keyDistributorType());
        assertEquals(0.0, w.consumerBacklogSizeGB());
        assertEquals(1.0, w.backlogDrainRatio());
        assertEquals(1.0, w.warmupDurationMinutes());
        assertEquals(0.0, w.hotPartitionShare());
        assertNull(w.payloadFile());
    }

    @Test
    void parse_missingRequiredField_namesIt() {
        ConfigFileException e = assertThrows(ConfigFileException.class,
                () -> Workload.parse(MINIMAL.replace("topics: 2\n", "")));
        assertTrue(e.getMessage().contains("'topics' is missing"), e.getMessage());
    }

    @Test
    void parse_badValues_nameTheField() {
        assertField("topics", MINIMAL.replace("topics: 2", "topics: two"));
        assertField("topics", MINIMAL.replace("topics: 2", "topics: 1.5"));
        assertField("partitionsPerTopic", MINIMAL.replace("partitionsPerTopic: 4", "partitionsPerTopic: 0"));
        assertField("testDurationMinutes", MINIMAL.replace("testDurationMinutes: 1", "testDurationMinutes: 0"));
        assertField("producerRate", MINIMAL + "producerRate: -5\n");
        assertField("backlogDrainRatio", MINIMAL + "backlogDrainRatio: 1.5\n");
        assertField("keyDistributor", MINIMAL + "keyDistributor: SOMETIMES\n");
        assertField("hotPartitionShare", MINIMAL + "hotPartitionShare: 2\n");
        assertField("hotPartitionShare", MINIMAL.replace("partitionsPerTopic: 4", "partitionsPerTopic: 1")
                + "hotPartitionShare: 0.5\n");
        assertField("consumerBacklogSizeGB", MINIMAL.replace("subscriptionsPerTopic: 1", "subscriptionsPerTopic: 0")
                + "consumerBacklogSizeGB: 1\n");
        assertField("name", MINIMAL.replace("name: t", "name: [a, b]"));
    }

    @Test
    void parse_unknownField_isRejectedByName() {
        assertField("partitionPerTopic", MINIMAL + "partitionPerTopic: 3\n");
    }

    @Test
    void parse_notYaml_saysSo() {
        ConfigFileException e = assertThrows(ConfigFileException.class, () -> Workload.parse("a: [1, 2"));
        assertTrue(e.getMessage().contains("not valid YAML"), e.getMessage());
    }

    @Test
    void parse_fractionalBacklogAndDurations_areKept() {
        Workload w = Workload.parse(MINIMAL.replace("testDurationMinutes: 1", "testDurationMinutes: 0.1")
                + "consumerBacklogSizeGB: 0.5\nwarmupDurationMinutes: 0\n");
        assertEquals(0.1, w.testDurationMinutes());
        assertEquals(0.0, w.warmupDurationMinutes());
        assertEquals(1L << 29, w.backlogBytes());
    }

    @Test
    void load_relativePayloadFile_resolvesAgainstTheWorkloadFile(@TempDir Path dir) throws IOException {
        Path sub = Files.createDirectories(dir.resolve("w"));
        Path file = sub.resolve("a.yaml");
        Files.writeString(file, MINIMAL + "payloadFile: ../payload/p.data\n");
        Workload w = Workload.load(file);
        assertEquals(dir.resolve("payload/p.data").toAbsolutePath().normalize().toString(), w.payloadFile());
    }

    @Test
    void load_errors_nameTheFile(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, MINIMAL.replace("messageSize: 100", "messageSize: -1"));
        ConfigFileException e = assertThrows(ConfigFileException.class, () -> Workload.load(file));
        assertTrue(e.getMessage().contains("bad.yaml") && e.getMessage().contains("'messageSize'"), e.getMessage());
    }

    @Test
    void withProducerRate_keepsTheRest() {
        Workload w = Workload.parse(MINIMAL + "hotPartitionShare: 0.5\n");
        Workload faster = w.withProducerRate(1234);
        assertEquals(1234, faster.producerRate());
        assertEquals(w.withProducerRate(0), w);
        assertEquals(0.5, faster.hotPartitionShare());
        assertEquals(2.0, w.withDurations(2, 0.5).testDurationMinutes());
    }

    private static void assertField(String field, String yaml) {
        ConfigFileException e = assertThrows(ConfigFileException.class, () -> Workload.parse(yaml));
        assertTrue(e.getMessage().contains("'" + field + "'"), "message names " + field + ": " + e.getMessage());
    }
}
