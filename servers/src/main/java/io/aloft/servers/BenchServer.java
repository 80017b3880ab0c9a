package io.aloft.servers;

import java.io.IOException;
import java.util.Map;

/**
 * A broker the benchmark starts as a child process, runs one workload against, and stops: Apache
 * Kafka or Aloft. Each instance is used once (start, then stop); a fresh instance gets a fresh data
 * directory, so consecutive runs cannot influence each other.
 *
 * <p>Not thread-safe: one thread starts, uses and stops it. {@link #stop()} may also be called by a
 * JVM shutdown hook, which is why implementations make it idempotent.
 */
public interface BenchServer extends AutoCloseable {

    /**
     * Starts the broker and returns once a Kafka Admin client's {@code describeCluster} succeeds.
     * On failure nothing is left running and the exception's message ends with the tail of the
     * child's log.
     */
    void start() throws IOException, InterruptedException;

    /** {@code host:port} for Kafka clients; valid after {@link #start()}. */
    String bootstrap();

    /**
     * What a Kafka client needs besides {@code bootstrap.servers} to connect to {@link #bootstrap()}:
     * its security settings ({@code security.protocol}, trust store, SASL). Empty for PLAINTEXT.
     */
    default Map<String, String> clientProperties() {
        return Map.of();
    }

    /** One line naming the system and how it runs, e.g. "Apache Kafka 4.3.1 (KRaft, 1 node)". */
    String description();

    /**
     * Stops the child (SIGTERM, up to 30 s to exit, then SIGKILL) and deletes its data directory.
     * Idempotent; never throws.
     */
    void stop();

    @Override
    default void close() {
        stop();
    }
}
