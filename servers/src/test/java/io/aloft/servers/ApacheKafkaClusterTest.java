package io.aloft.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;

/** The reassignment benchmark's Kafka cluster: brokers and a controller as separate processes. */
class ApacheKafkaClusterTest {

    @Test
    void start_twoBrokers_bothServeAndAStoppedOneComesBackOnItsData() throws Exception {
        ApacheKafkaCluster cluster = new ApacheKafkaCluster(ApacheKafkaServer.findLibsDir(), 2, "512m",
                RoundTrip.scratch(), Map.of(), Duration.ofSeconds(120));
        Path dir;
        try {
            cluster.start();
            dir = cluster.directory();
            assertEquals(List.of(1, 2), cluster.brokerIds());
            assertEquals(2, cluster.bootstrap().split(",").length, cluster.bootstrap());
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap(1)))) {
                assertEquals(2, admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size());
            }
            RoundTrip.produceAndConsume(cluster.bootstrap(), 50);

            long before = cluster.pid(2);
            Process exited = cluster.terminate(2).get(60, TimeUnit.SECONDS);
            assertFalse(exited.isAlive());
            assertEquals(143, exited.exitValue(), "a SIGTERM ends Kafka through its shutdown hook");
            cluster.relaunch(2);
            assertNotEquals(before, cluster.pid(2));
            RoundTrip.assertReadsBack(cluster.bootstrap(), 50);
            cluster.saveLogs(dir.resolveSibling(dir.getFileName() + "-logs"));
            // Kafka logs WARN and above only, so the log may be empty: the copy must match, not be non-empty.
            Path saved = dir.resolveSibling(dir.getFileName() + "-logs").resolve("kafka-node-2.log");
            assertTrue(Files.exists(saved), saved.toString());
            String copied = Files.readString(saved);
            assertTrue(Files.readString(cluster.logFile(2)).startsWith(copied), "the copy is the node's log so far");
        } finally {
            cluster.close();
        }
        assertFalse(Files.exists(dir), "close deletes the cluster's directory");
    }
}
