package io.aloft.compat;

import io.aloft.servers.AloftServer;
import io.aloft.servers.ChildBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Kafka Connect and Kafka Streams against Aloft (one node in a child JVM from this module's class
 * path, the embedded defaults with objects in a {@code file://} directory): every case of
 * {@link ConnectStreamsTests}, which pass against Apache Kafka 4.3.1 in
 * {@link ApacheKafkaConnectStreamsTest}. Connect's internal topics and Streams' changelogs are
 * created compacted by Connect and Streams themselves.
 */
class AloftConnectStreamsTest extends ConnectStreamsTests {
    /**
     * A small WAL and caches: a few hundred records per scenario need nothing bigger. Transactions on
     * (Streams' exactly_once_v2), whatever the default of {@code aloft.transactions.enable}.
     */
    private static final Map<String, String> SMALL = Map.of(
            "wal.capacity.bytes", String.valueOf(128L << 20),
            "s3.log.cache.size.bytes", String.valueOf(64L << 20),
            "s3.wal.upload.threshold.bytes", String.valueOf(16L << 20),
            "s3.block.cache.size.bytes", String.valueOf(16L << 20),
            "aloft.transactions.enable", "true");

    @Override
    ChildBroker newBroker(Path scratch) {
        return new AloftServer("768m", false, scratch, SMALL, Duration.ofSeconds(90));
    }

    @Override
    String brokerName() {
        return "aloft";
    }
}
