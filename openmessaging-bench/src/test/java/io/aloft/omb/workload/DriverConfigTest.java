package io.aloft.omb.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class DriverConfigTest {
    @Test
    void load_shippedDrivers_parse() {
        DriverConfig t = DriverConfig.load(Path.of("drivers/kafka-throughput.yaml"));
        assertEquals("Kafka-throughput", t.name());
        assertEquals(1, t.replicationFactor());
        assertEquals("all", t.producerConfig().getProperty("acks"));
        assertEquals("131072", t.producerConfig().getProperty("batch.size"));
        assertEquals("earliest", t.consumerConfig().getProperty("auto.offset.reset"));
        assertEquals("false", t.consumerConfig().getProperty("enable.auto.commit"));
        assertTrue(t.topicConfig().isEmpty());

        DriverConfig l = DriverConfig.load(Path.of("drivers/kafka-latency.yaml"));
        assertEquals("all", l.producerConfig().getProperty("acks"));
        assertEquals("1", l.producerConfig().getProperty("linger.ms"));
    }

    @Test
    void producerProperties_mergeCommonProducerAndBootstrap() {
        DriverConfig d = DriverConfig.parse("""
                name: k
                driverClass: io.openmessaging.benchmark.driver.kafka.KafkaBenchmarkDriver
                replicationFactor: 3
                commonConfig: |
                  bootstrap.servers=elsewhere:9092
                  request.timeout.ms = 1000
                  # a comment
                producerConfig: |
                  acks=all
                  request.timeout.ms=2000
                consumerConfig: |
                  auto.offset.reset=earliest
                topicConfig: |
                  min.insync.replicas=2
                """);
        assertEquals(3, d.replicationFactor());
        Properties p = d.producerProperties("127.0.0.1:1234");
        assertEquals("127.0.0.1:1234", p.getProperty("bootstrap.servers"));
        assertEquals("2000", p.getProperty("request.timeout.ms"), "producerConfig overrides commonConfig");
        Properties c = d.consumerProperties("127.0.0.1:1234");
        assertEquals("1000", c.getProperty("request.timeout.ms"));
        assertEquals("earliest", c.getProperty("auto.offset.reset"));
        assertEquals("2", d.topicConfig().getProperty("min.insync.replicas"));
        assertEquals(2, d.adminProperties("h:1").size());
    }

    /** The broker's security settings reach every client kind, over the file's values; the original is unchanged. */
    @Test
    void withCommonConfig_addsToEveryClientOverTheFile() {
        DriverConfig file = DriverConfig.load(Path.of("drivers/kafka-throughput.yaml"));
        DriverConfig secured = file.withCommonConfig(java.util.Map.of("security.protocol", "SASL_SSL",
                "request.timeout.ms", "5000"));
        for (Properties p : new Properties[] {secured.producerProperties("b:1"), secured.consumerProperties("b:1"),
            secured.adminProperties("b:1")}) {
            assertEquals("SASL_SSL", p.getProperty("security.protocol"), p.toString());
            assertEquals("5000", p.getProperty("request.timeout.ms"), p.toString());
        }
        assertEquals("131072", secured.producerProperties("b:1").getProperty("batch.size"));
        assertNull(file.producerProperties("b:1").getProperty("security.protocol"));
        assertEquals("30000", file.adminProperties("b:1").getProperty("request.timeout.ms"));
        assertTrue(file == file.withCommonConfig(java.util.Map.of()));
    }

    @Test
    void parse_lineWithoutEquals_namesFieldAndLine() {
        ConfigFileException e = assertThrows(ConfigFileException.class, () -> DriverConfig.parse("""
                name: k
                producerConfig: |
                  acks=all
                  linger.ms 5
                """));
        assertTrue(e.getMessage().contains("'producerConfig'") && e.getMessage().contains("line 2"), e.getMessage());
    }

    @Test
    void parse_badFields_nameThem() {
        assertField("name", "replicationFactor: 1\n");
        assertField("replicationFactor", "name: k\nreplicationFactor: 0\n");
        assertField("replicationFactor", "name: k\nreplicationFactor: many\n");
        assertField("consumerConfigs", "name: k\nconsumerConfigs: |\n  a=b\n");
    }

    private static void assertField(String field, String yaml) {
        ConfigFileException e = assertThrows(ConfigFileException.class, () -> DriverConfig.parse(yaml));
        assertTrue(e.getMessage().contains("'" + field + "'"), "message names " + field + ": " + e.getMessage());
    }

    @Test
    void load_transactionsDriver_transactionalWithReadCommittedConsumers() {
        DriverConfig d = DriverConfig.load(Path.of("drivers/kafka-transactions.yaml"));
        assertTrue(d.transactions().enabled());
        assertEquals(100, d.transactions().messagesPerTransaction());
        assertEquals("read_committed", d.consumerProperties("h:1").getProperty("isolation.level"));
        assertEquals("all", d.producerConfig().getProperty("acks"));
    }

    @Test
    void parse_noTransactionFields_plainProducers() {
        DriverConfig d = DriverConfig.parse("name: k\n");
        assertEquals(DriverConfig.Transactions.NONE, d.transactions());
        assertFalse(d.transactions().enabled());
        assertNull(d.producerProperties("h:1", "run", 0).getProperty("transactional.id"));
        assertNull(d.consumerProperties("h:1").getProperty("isolation.level"), "client default stays");
    }

    @Test
    void parse_useTransactions_eachProducerGetsItsOwnIdFromTheRunPrefix() {
        DriverConfig d = DriverConfig.parse("""
                name: k
                useTransactions: true
                messagesPerTransaction: 7
                """);
        assertEquals(new DriverConfig.Transactions(true, 7), d.transactions());
        assertEquals("omb-run-x-0", d.producerProperties("h:1", "omb-run-x", 0).getProperty("transactional.id"));
        assertEquals("omb-run-x-3", d.producerProperties("h:1", "omb-run-x", 3).getProperty("transactional.id"));
        assertEquals("read_committed", d.consumerProperties("h:1").getProperty("isolation.level"));
    }

    @Test
    void parse_transactionalIdInProducerConfig_isThePrefix() {
        DriverConfig d = DriverConfig.parse("""
                name: k
                useTransactions: "true"
                producerConfig: |
                  transactional.id=bench
                consumerConfig: |
                  isolation.level=read_uncommitted
                """);
        assertEquals(DriverConfig.Transactions.MESSAGES_PER_TRANSACTION_DEFAULT,
                d.transactions().messagesPerTransaction());
        assertEquals("bench-2", d.producerProperties("h:1", "omb-run-x", 2).getProperty("transactional.id"));
        assertEquals("read_uncommitted", d.consumerProperties("h:1").getProperty("isolation.level"),
                "an explicit isolation level is kept");
    }

    @Test
    void parse_badTransactionFields_nameThem() {
        assertField("useTransactions", "name: k\nuseTransactions: yes please\n");
        assertField("messagesPerTransaction", "name: k\nuseTransactions: true\nmessagesPerTransaction: 0\n");
        assertField("messagesPerTransaction", "name: k\nuseTransactions: true\nmessagesPerTransaction: 2.5\n");
        assertField("messagesPerTransaction", "name: k\nmessagesPerTransaction: 10\n");
        ConfigFileException e = assertThrows(ConfigFileException.class, () -> DriverConfig.parse(
                "name: k\nproducerConfig: |\n  transactional.id=t\n"));
        assertTrue(e.getMessage().contains("useTransactions"), e.getMessage());
    }

    @Test
    void load_shareDriver_explicitShareConsumersReleasingOnePercent() {
        DriverConfig d = DriverConfig.load(Path.of("drivers/kafka-share.yaml"));
        assertTrue(d.shareGroups().enabled());
        assertFalse(d.transactions().enabled());
        assertEquals(0.01, d.shareGroups().releaseFraction());
        assertEquals("earliest", d.shareGroups().effectiveGroupConfig().getProperty("share.auto.offset.reset"));
        Properties c = d.shareConsumerProperties("b:9092");
        assertEquals("explicit", c.getProperty("share.acknowledgement.mode"));
        assertEquals("b:9092", c.getProperty("bootstrap.servers"));
        assertNull(c.getProperty("auto.offset.reset"), "no classic consumer setting a share consumer refuses");
    }

    @Test
    void parse_noShareFields_classicConsumers() {
        DriverConfig d = DriverConfig.parse("name: k\n");
        assertFalse(d.shareGroups().enabled());
        assertFalse(d.withCommonConfig(java.util.Map.of("a", "b")).shareGroups().enabled());
    }

    @Test
    void parse_shareGroupConfig_keptAndResetDefaultsToEarliest() {
        DriverConfig d = DriverConfig.parse("""
                name: k
                useShareGroups: true
                shareGroupConfig: |
                  share.record.lock.duration.ms=15000
                """);
        assertEquals(0.0, d.shareGroups().releaseFraction(), "no release unless asked");
        Properties g = d.shareGroups().effectiveGroupConfig();
        assertEquals("15000", g.getProperty("share.record.lock.duration.ms"));
        assertEquals("earliest", g.getProperty("share.auto.offset.reset"));
        assertTrue(d.withCommonConfig(java.util.Map.of("security.protocol", "SSL")).shareGroups().enabled(),
                "security settings keep the share mode");
        DriverConfig latest = DriverConfig.parse(
                "name: k\nuseShareGroups: true\nshareGroupConfig: |\n  share.auto.offset.reset=latest\n");
        assertEquals("latest", latest.shareGroups().effectiveGroupConfig().getProperty("share.auto.offset.reset"));
    }

    @Test
    void parse_badShareFields_nameThem() {
        assertField("releaseFraction", "name: k\nreleaseFraction: 0.1\n");
        assertField("shareGroupConfig", "name: k\nshareGroupConfig: |\n  a=b\n");
        assertField("releaseFraction", "name: k\nuseShareGroups: true\nreleaseFraction: 1.5\n");
        assertField("releaseFraction", "name: k\nuseShareGroups: true\nreleaseFraction: -0.1\n");
        assertField("shareGroupConfig", "name: k\nuseShareGroups: true\nshareGroupConfig: |\n  nonsense\n");
        ConfigFileException both = assertThrows(ConfigFileException.class, () -> DriverConfig.parse(
                "name: k\nuseShareGroups: true\nuseTransactions: true\n"));
        assertTrue(both.getMessage().contains("cannot be combined"), both.getMessage());
        ConfigFileException implicit = assertThrows(ConfigFileException.class, () -> DriverConfig.parse(
                "name: k\nuseShareGroups: true\nconsumerConfig: |\n  share.acknowledgement.mode=implicit\n"));
        assertTrue(implicit.getMessage().contains("share.acknowledgement.mode=implicit"), implicit.getMessage());
    }

    /** The chosen offsets: exactly the fraction of any long run, the same offsets every time. */
    @Test
    void releases_picksTheFractionOfOffsetsByOffset() {
        assertEquals(100, released(0.01, 10_000));
        assertEquals(List.of(99L, 199L, 299L), firstReleased(0.01, 3));
        assertEquals(2_500, released(0.25, 10_000));
        assertEquals(10_000, released(1.0, 10_000), "1.0 releases every first delivery");
        assertEquals(0, released(0.0, 10_000));
        assertEquals(333, released(1.0 / 3, 1_000), "a third: 333 of any 1,000 (or 334)");
    }

    private static DriverConfig.ShareGroups share(double fraction) {
        return new DriverConfig.ShareGroups(true, fraction, new Properties());
    }

    private static long released(double fraction, int offsets) {
        DriverConfig.ShareGroups s = share(fraction);
        return java.util.stream.LongStream.range(0, offsets).filter(s::releases).count();
    }

    private static List<Long> firstReleased(double fraction, int n) {
        DriverConfig.ShareGroups s = share(fraction);
        return java.util.stream.LongStream.range(0, 100_000).filter(s::releases).limit(n).boxed().toList();
    }
}
