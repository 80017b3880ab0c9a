package io.aloft.autoscaler;

import io.aloft.servers.AloftCluster;
import io.aloft.servers.FreePorts;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * Real Aloft clusters for the autoscaler's tests: N broker processes (io.aloft.servers.AloftCluster)
 * with small caches, each with its own {@code metrics.listener} port and {@code broker.rack}
 * ("rack-" + id). Test code; not thread-safe.
 */
public final class TestClusters {
    private static final Map<String, String> SMALL = Map.of(
            "wal.capacity.bytes", String.valueOf(64L << 20),
            "s3.log.cache.size.bytes", String.valueOf(32L << 20),
            "s3.block.cache.size.bytes", String.valueOf(16L << 20),
            "s3.wal.upload.threshold.bytes", String.valueOf(8L << 20));

    private TestClusters() {
    }

    /** A started cluster and the metrics port each broker listens on. */
    public record Started(AloftCluster cluster, Map<Integer, Integer> metricsPorts) implements AutoCloseable {
        @Override
        public void close() {
            cluster.close();
        }
    }

    public static Started start(int brokers, Map<String, String> extra) throws IOException, InterruptedException {
        Map<Integer, Integer> ports = new ConcurrentHashMap<>();
        Map<String, String> props = new HashMap<>(SMALL);
        props.putAll(extra);
        AloftCluster cluster = new AloftCluster(brokers, "384m", false, Path.of("target", "scratch"), props,
                Duration.ofSeconds(60)).perBroker(id -> {
                    int port = ports.computeIfAbsent(id, i -> FreePorts.next());
                    return Map.of("metrics.listener", "http://127.0.0.1:" + port, "broker.rack", "rack-" + id);
                });
        cluster.start();
        return new Started(cluster, Map.copyOf(ports));
    }

    public static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        return Admin.create(p);
    }
}
