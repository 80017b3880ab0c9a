package io.aloft.compat;

import io.aloft.servers.AloftServer;
import io.aloft.servers.ApacheKafkaServer;
import io.aloft.servers.ChildBroker;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The one-node brokers the compatibility scenarios run against, alike in every scenario: Apache
 * Kafka 4.3.1 (KRaft, from {@code kafka-dist/target/kafka-libs}), the oracle, and Aloft (a child
 * JVM from this module's class path, the embedded defaults with objects in a {@code file://}
 * directory, a small WAL and caches). Stateless.
 */
final class CompatBrokers {
    private static final String HEAP = "768m";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    /** A small WAL and caches: the scenarios' few thousand records need nothing bigger. */
    private static final Map<String, String> SMALL = Map.of(
            "wal.capacity.bytes", String.valueOf(128L << 20),
            "s3.log.cache.size.bytes", String.valueOf(64L << 20),
            "s3.wal.upload.threshold.bytes", String.valueOf(16L << 20),
            "s3.block.cache.size.bytes", String.valueOf(16L << 20));

    private CompatBrokers() {
    }

    /** Apache Kafka 4.3.1, not yet started, with its data under {@code scratch}. */
    static ChildBroker apacheKafka(Path scratch) throws IOException {
        return new ApacheKafkaServer(ApacheKafkaServer.findLibsDir(), HEAP, false, scratch, Map.of(), START_TIMEOUT);
    }

    /** Aloft, not yet started, with its data under {@code scratch} and {@code extra} properties on top. */
    static ChildBroker aloft(Path scratch, Map<String, String> extra) {
        Map<String, String> properties = new HashMap<>(SMALL);
        properties.putAll(extra);
        return new AloftServer(HEAP, false, scratch, properties, START_TIMEOUT);
    }
}
