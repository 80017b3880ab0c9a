package io.aloft.compat;

import io.aloft.servers.AloftServer;
import io.aloft.servers.ChildBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Kafka Connect and Kafka Streams against Aloft (one node in a child JVM from this module's class
 * path, the embedded defaults with objects in a {@code file://} directory). The same cases pass
 * against Apache Kafka 4.3.1 in {@link ApacheKafkaConnectStreamsTest}; a case disabled here names
 * what Aloft lacks (re-enable it by deleting its override once that lands).
 */
class AloftConnectStreamsTest extends ConnectStreamsTests {
    /** A small WAL and caches: a few hundred records per scenario need nothing bigger. */
    private static final Map<String, String> SMALL = Map.of(
            "wal.capacity.bytes", String.valueOf(128L << 20),
            "s3.log.cache.size.bytes", String.valueOf(64L << 20),
            "s3.wal.upload.threshold.bytes", String.valueOf(16L << 20),
            "s3.block.cache.size.bytes", String.valueOf(16L << 20));

    @Override
    ChildBroker newBroker(Path scratch) {
        return new AloftServer("768m", false, scratch, SMALL, Duration.ofSeconds(90));
    }

    @Override
    String brokerName() {
        return "aloft";
    }

    @Test
    @Disabled("issue 12: compaction not landed: Connect creates its offset, status and config topics with "
            + "cleanup.policy=compact, and CreateTopics refuses them (INVALID_CONFIG 'cleanup.policy=compact is not "
            + "supported yet (log compaction is not implemented); use delete'), so the worker's herder dies with "
            + "'Unable to create topic(s) compat-connect-aloft-offsets' before any connector can be created")
    @Override
    void connect_fileSourceToFileSink_resumesAfterWorkerAndBrokerRestartWithNothingLostOrRepeated() throws Exception {
        super.connect_fileSourceToFileSink_resumesAfterWorkerAndBrokerRestartWithNothingLostOrRepeated();
    }

    @Test
    @Disabled("issue 12: compaction not landed: Streams creates the store's changelog topic "
            + "(compat-streams-aloft-counts-changelog) with cleanup.policy=compact, CreateTopics refuses it "
            + "(INVALID_CONFIG 'cleanup.policy=compact is not supported yet'), and the application goes to ERROR at "
            + "its first rebalance ('Could not create topic compat-streams-aloft-counts-changelog')")
    @Override
    void streams_countByKey_restoresFromChangelogAfterLocalStateIsDeleted() throws Exception {
        super.streams_countByKey_restoresFromChangelogAfterLocalStateIsDeleted();
    }
}
