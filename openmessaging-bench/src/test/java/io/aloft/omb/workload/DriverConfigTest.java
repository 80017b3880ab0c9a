package io.aloft.omb.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
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
}
