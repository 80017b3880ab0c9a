package io.aloft.compat;

import io.aloft.servers.ChildBroker;
import java.nio.file.Path;
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
    @Override
    ChildBroker newBroker(Path scratch) {
        // Few __transaction_state partitions for the transactions scenarios: each is a log to open and load.
        return CompatBrokers.aloft(scratch, Map.of("transaction.state.log.num.partitions", "4"));
    }

    @Override
    String brokerName() {
        return "aloft";
    }
}
