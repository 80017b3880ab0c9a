package io.aloft.broker.share;

import io.aloft.servers.ApacheKafkaServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The share group scenarios against Apache Kafka 4.3.1 (share.version=1 is its default): the proof
 * that each scenario asserts what Kafka does. A Kafka of its own (not the shared {@code KafkaOracle}),
 * started with {@link ShareGroupScenarios#BROKER_SETTINGS}.
 */
class ShareGroupKafkaOracleTest extends ShareGroupScenarios {
    private static ApacheKafkaServer kafka;
    private static ShareTarget target;

    @BeforeAll
    static void start() throws Exception {
        Path scratch = Files.createDirectories(Path.of(System.getProperty("aloft.test.logdir",
                System.getProperty("java.io.tmpdir")), "kafka-share"));
        Map<String, String> settings = new HashMap<>(BROKER_SETTINGS);
        settings.put("offsets.topic.num.partitions", "4"); // as the Aloft test broker: 50 are slow to create
        kafka = new ApacheKafkaServer(ApacheKafkaServer.findLibsDir(), "512m", false, scratch, settings,
                Duration.ofSeconds(120));
        kafka.start();
        target = new ShareTarget("Kafka 4.3.1", kafka.bootstrap());
    }

    @AfterAll
    static void stop() {
        if (target != null) {
            target.close();
        }
        if (kafka != null) {
            kafka.stop();
        }
    }

    @Override
    ShareTarget target() {
        return target;
    }

    @Override
    void restartBroker() throws Exception {
        kafka.restart(); // same address: the target's clients reconnect
    }
}
