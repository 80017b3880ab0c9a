package io.aloft.bench.compaction;

import io.aloft.broker.Broker;
import io.aloft.servers.ApacheKafkaServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * One broker under the compaction benchmark: Apache Kafka 4.3.1 in a child JVM (its own start
 * flags, G1, 3 GiB heap), or Aloft in this JVM (so its object-storage counters, cleaner counters and
 * heap can be read directly). Both get the same cleaner settings that matter here: one cleaner
 * thread, the default 128 MiB key map, and a 100 ms backoff so a cleaning starts at once.
 *
 * <p>Not thread-safe: the benchmark's main thread uses it.
 */
abstract class Target implements AutoCloseable {
    /** The settings both brokers get. */
    static final Map<String, String> CLEANER = Map.of("log.cleaner.backoff.ms", "100", "log.cleaner.threads", "1",
            "offsets.topic.num.partitions", "1", "num.partitions", "1");

    abstract String name();

    abstract String description();

    abstract String bootstrap();

    /** Aloft's broker, or null for Kafka. */
    Broker aloft() {
        return null;
    }

    static Target kafka(Path scratch) throws Exception {
        ApacheKafkaServer server = new ApacheKafkaServer(ApacheKafkaServer.findLibsDir(), "3g", false, scratch,
                CLEANER, Duration.ofSeconds(180));
        server.start();
        return new Target() {
            @Override
            String name() {
                return "Apache Kafka 4.3.1";
            }

            @Override
            String description() {
                return server.description();
            }

            @Override
            String bootstrap() {
                return server.bootstrap();
            }

            @Override
            public void close() {
                server.stop();
            }
        };
    }

    static Target aloft(Path dataDir) throws Exception {
        Map<String, String> props = new HashMap<>(CLEANER);
        props.put("node.id", "1");
        props.put("listeners", "PLAINTEXT://127.0.0.1:0");
        props.put("controller.quorum.voters", "1@127.0.0.1:" + freePort());
        props.put("aloft.data.dir", dataDir.toString());
        Broker broker = Broker.start(props);
        return new Target() {
            @Override
            String name() {
                return "Aloft";
            }

            @Override
            String description() {
                return "Aloft (in the benchmark JVM: 1 node, embedded controller, WAL file with Direct IO, objects on "
                        + "file://, every other setting at its default)";
            }

            @Override
            String bootstrap() {
                return "127.0.0.1:" + broker.port("PLAINTEXT");
            }

            @Override
            Broker aloft() {
                return broker;
            }

            @Override
            public void close() {
                broker.close();
            }
        };
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Override
    public abstract void close();
}
