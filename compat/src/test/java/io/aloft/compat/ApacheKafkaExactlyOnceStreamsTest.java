package io.aloft.compat;

import io.aloft.servers.ChildBroker;
import java.io.IOException;
import java.nio.file.Path;

/**
 * {@link ExactlyOnceStreamsTests} against Apache Kafka 4.3.1 (KRaft, one node): the proof that the
 * scenario and its exactly-once check are right, so that a failure of {@link AloftExactlyOnceStreamsTest}
 * is Aloft's.
 */
class ApacheKafkaExactlyOnceStreamsTest extends ExactlyOnceStreamsTests {

    @Override
    ChildBroker newBroker(Path scratch) throws IOException {
        return CompatBrokers.apacheKafka(scratch);
    }

    @Override
    String brokerName() {
        return "kafka";
    }
}
