package io.aloft.broker.conformance;

import io.aloft.servers.ApacheKafkaServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Apache Kafka 4.3.1 (a KRaft single node, child process) as the oracle the protocol tests compare
 * Aloft with: started once per test JVM on first use, so every test class that needs it shares one,
 * and stopped (its data deleted) when the JVM exits.
 *
 * <p>Thread-safe.
 */
public final class KafkaOracle {
    private static ApacheKafkaServer kafka;

    private KafkaOracle() {
    }

    /** {@code host:port} of the running Kafka, starting it first if needed. */
    public static synchronized String bootstrap() throws Exception {
        if (kafka == null) {
            Path scratch = Files.createDirectories(Path.of(System.getProperty("aloft.test.logdir",
                    System.getProperty("java.io.tmpdir")), "kafka-oracle"));
            ApacheKafkaServer server = new ApacheKafkaServer(ApacheKafkaServer.findLibsDir(), "512m", false, scratch,
                    Map.of(), Duration.ofSeconds(120));
            server.start();
            Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "kafka-oracle-stop"));
            kafka = server;
        }
        return kafka.bootstrap();
    }

    /** One line naming the Kafka this is (version, mode), for messages. */
    public static synchronized String description() {
        return kafka == null ? "Apache Kafka (not started)" : kafka.description();
    }
}
