package io.aloft.compat;

import io.aloft.servers.AloftServer;
import io.aloft.servers.ChildBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Every client's scenario against Aloft (one node in a child JVM from this module's class path, the
 * embedded defaults with objects in a {@code file://} directory). The same cases pass against Apache
 * Kafka 4.3.1 in {@link ApacheKafkaClientsTest}; a case disabled here names the broker bug it found
 * (re-enable it by deleting its override once the fix lands).
 */
class AloftClientsTest extends ClientCompatibilityTests {
    /** A small WAL and caches: a few hundred records per client need nothing bigger. */
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
    @Disabled("issue 11: ListOffsets v2 gets no response: encoding it throws UnsupportedVersionException "
            + "'Attempted to write a non-default leaderEpoch at version 2' on the connection's event loop, so "
            + "librdkafka 2.0.2's get_watermark_offsets waits until the client's own limit (stuck at step "
            + "'list start and end offsets (ListOffsets)')")
    @Override
    void librdkafka_2_0_confluentKafkaPython_passesScenario() throws Exception {
        super.librdkafka_2_0_confluentKafkaPython_passesScenario();
    }

    @Test
    @Disabled("issue 11: ListOffsets v2 gets no response: encoding it throws UnsupportedVersionException "
            + "'Attempted to write a non-default leaderEpoch at version 2' on the connection's event loop, so "
            + "Sarama with V0_11_0_0 waits in ClusterAdmin.ListOffsets until the client's own limit (stuck at step "
            + "'list start and end offsets (ListOffsets)')")
    @Override
    void sarama_v0_11_0_0_passesScenario() throws Exception {
        super.sarama_v0_11_0_0_passesScenario();
    }

    @Test
    @Disabled("issue 11: ListOffsets v2 gets no response: encoding it throws UnsupportedVersionException "
            + "'Attempted to write a non-default leaderEpoch at version 2' on the connection's event loop, so "
            + "kcat 1.7.1 (librdkafka 2.0.2) -Q fails with '% ERROR: offsets_for_times failed: Local: Timed out'")
    @Override
    void kcat_passesScenario() throws Exception {
        super.kcat_passesScenario();
    }
}
