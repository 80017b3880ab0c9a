package io.aloft.compat;

import io.aloft.servers.ChildBroker;
import java.nio.file.Path;
import java.util.Map;

/**
 * Kafka Connect and Kafka Streams against Aloft (one node in a child JVM from this module's class
 * path, the embedded defaults with objects in a {@code file://} directory): every case of
 * {@link ConnectStreamsTests}, which pass against Apache Kafka 4.3.1 in
 * {@link ApacheKafkaConnectStreamsTest}. Connect's internal topics and Streams' changelogs are
 * created compacted by Connect and Streams themselves.
 */
class AloftConnectStreamsTest extends ConnectStreamsTests {
    @Override
    ChildBroker newBroker(Path scratch) {
        return CompatBrokers.aloft(scratch, Map.of());
    }

    @Override
    String brokerName() {
        return "aloft";
    }
}
