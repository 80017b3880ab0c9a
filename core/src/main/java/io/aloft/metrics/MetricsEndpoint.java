package io.aloft.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.util.List;
import java.util.OptionalInt;

/**
 * One process's meters, health and, when {@code metrics.listener} is set, the HTTP server that
 * serves them: what a broker or a controller voter makes first thing at start-up, so {@code /healthz}
 * answers and {@code /readyz} says what is still missing while the rest starts.
 *
 * <p>Thread-safe.
 */
public final class MetricsEndpoint implements AutoCloseable {

    private final ServerMetrics metrics;
    private final Health health;
    private final MetricsHttpServer server;

    private MetricsEndpoint(ServerMetrics metrics, Health health, MetricsHttpServer server) {
        this.metrics = metrics;
        this.health = health;
        this.server = server;
    }

    /**
     * Makes the registry and starts the endpoint if configured.
     *
     * @param readiness the conditions that must all hold before the process is ready, in order
     * @throws IOException if the endpoint's address cannot be bound (the message names the key)
     */
    public static MetricsEndpoint start(MetricsConfig config, List<String> readiness) throws IOException {
        ServerMetrics metrics = ServerMetrics.create();
        Health health = new Health(readiness);
        MetricsHttpServer server = null;
        if (config.listener().isPresent()) {
            try {
                server = MetricsHttpServer.start(config.listener().get(), metrics, health);
            } catch (IOException | RuntimeException e) {
                metrics.close();
                throw e;
            }
        }
        return new MetricsEndpoint(metrics, health, server);
    }

    public MeterRegistry registry() {
        return metrics.registry();
    }

    public ServerMetrics metrics() {
        return metrics;
    }

    public Health health() {
        return health;
    }

    /** The endpoint's port; empty when it is off. */
    public OptionalInt port() {
        return server == null ? OptionalInt.empty() : OptionalInt.of(server.port());
    }

    /** Stops the endpoint, then the registry. */
    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
        metrics.close();
    }
}
