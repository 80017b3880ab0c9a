package io.aloft.compat;

import io.aloft.servers.ChildBroker;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Kafka Connect and Kafka Streams against Apache Kafka 4.3.1 (KRaft, one node, from
 * {@code kafka-dist/target/kafka-libs}): the proof that the scenarios and their checks are right, so
 * that a failure of the same case in {@link AloftConnectStreamsTest} is Aloft's.
 */
class ApacheKafkaConnectStreamsTest extends ConnectStreamsTests {

    @Override
    ChildBroker newBroker(Path scratch) throws IOException {
        return CompatBrokers.apacheKafka(scratch);
    }

    @Override
    String brokerName() {
        return "kafka";
    }
}
