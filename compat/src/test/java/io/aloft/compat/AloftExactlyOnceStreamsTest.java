package io.aloft.compat;

import io.aloft.servers.ChildBroker;
import java.nio.file.Path;
import java.util.Map;

/**
 * {@link ExactlyOnceStreamsTests} against Aloft: one node in a child JVM, objects in a
 * {@code file://} directory, SIGKILLed and restarted on the same WAL and data during processing.
 */
class AloftExactlyOnceStreamsTest extends ExactlyOnceStreamsTests {
    @Override
    ChildBroker newBroker(Path scratch) {
        return CompatBrokers.aloft(scratch, Map.of());
    }

    @Override
    String brokerName() {
        return "aloft";
    }
}
