package io.aloft.omb.compare;

import io.aloft.servers.AloftServer;
import io.aloft.servers.ApacheKafkaServer;
import io.aloft.servers.BenchServer;
import io.aloft.servers.ClientSecurity;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The real {@link ServerFactory}: every system a child process with the same heap, its data in a
 * fresh directory under one scratch directory. Immutable.
 */
final class ChildServerFactory implements ServerFactory {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    /**
     * Aloft's broker properties for every run: transactions on (the transactions step needs them;
     * Kafka always has them), whatever the broker's default for {@code aloft.transactions.enable}.
     */
    static final Map<String, String> ALOFT_PROPERTIES = Map.of("aloft.transactions.enable", "true");

    private final String heap;
    private final Path scratchDir;
    private final Path kafkaLibs;
    private final ClientSecurity security;

    /**
     * @param kafkaLibs Kafka's jars, or null to find them when a Kafka system is first made
     * @param security how the clients connect to every system (the same certificates for all)
     */
    ChildServerFactory(String heap, Path scratchDir, Path kafkaLibs, ClientSecurity security) {
        this.heap = heap;
        this.scratchDir = scratchDir;
        this.kafkaLibs = kafkaLibs;
        this.security = security;
    }

    @Override
    public BenchServer create(SystemKind kind) throws IOException {
        return switch (kind) {
            case KAFKA, KAFKA_FSYNC -> new ApacheKafkaServer(
                    kafkaLibs != null ? kafkaLibs : ApacheKafkaServer.findLibsDir(), heap,
                    kind == SystemKind.KAFKA_FSYNC, scratchDir, Map.of(), security, START_TIMEOUT);
            case ALOFT, ALOFT_S3 -> new AloftServer(heap, kind == SystemKind.ALOFT_S3, scratchDir, ALOFT_PROPERTIES,
                    security, START_TIMEOUT);
        };
    }
}
