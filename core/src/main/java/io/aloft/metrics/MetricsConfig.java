package io.aloft.metrics;

import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigException;
import io.aloft.config.ConfigKey;
import io.aloft.config.ConfigType;
import io.aloft.config.ConfigValues;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Map;
import java.util.Optional;

/**
 * Settings of the metrics and health endpoint, read by brokers and dedicated controller voters
 * alike. Kafka has no such endpoint (its metrics are JMX MBeans), so the keys are Aloft's own.
 * Immutable.
 */
public final class MetricsConfig {

    /** Where the HTTP endpoint listens. */
    public record HttpAddress(String host, int port) {
        @Override
        public String toString() {
            return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        }
    }

    public static final String LISTENER_CONFIG = "metrics.listener";
    public static final ConfigKey<Optional<HttpAddress>> LISTENER = ConfigKey.customKey(LISTENER_CONFIG,
            ConfigType.STRING, MetricsConfig::parseListener, v -> v.map(HttpAddress::toString).orElse(""))
            .defaultValue(Optional.empty())
            .defaultText("(none: no endpoint)")
            .doc("http://host:port where the process serves /metrics (Prometheus text, or OpenMetrics when the "
                    + "scraper asks for it), /healthz (200 while the process is alive and has not failed) and "
                    + "/readyz (200 once a broker has recovered its WAL, registered with the controller and serves "
                    + "clients; 503 while starting, draining or after a critical failure, naming what is missing). "
                    + "Empty: no endpoint. Port 0: any free port. config/server.properties sets "
                    + "http://127.0.0.1:9464.")
            .build();

    public static final ConfigDefinition DEFINITION = ConfigDefinition.of("metrics", LISTENER);

    private final Optional<HttpAddress> listener;

    private MetricsConfig(ConfigValues v) {
        listener = v.get(LISTENER);
    }

    /**
     * Parses the keys of {@link #DEFINITION} from {@code props}; missing keys default, others are ignored.
     *
     * @throws ConfigException naming the first bad key
     */
    public static MetricsConfig fromProperties(Map<?, ?> props) {
        return new MetricsConfig(DEFINITION.parse(props));
    }

    /** The endpoint's address; empty when the endpoint is off. */
    public Optional<HttpAddress> listener() {
        return listener;
    }

    private static Optional<HttpAddress> parseListener(String text) {
        if (text.isBlank()) {
            return Optional.empty();
        }
        URI uri;
        try {
            uri = new URI(text.trim());
        } catch (URISyntaxException e) {
            throw new ConfigException(LISTENER_CONFIG, text + " is not a URL: " + e.getMessage());
        }
        if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0
                || (uri.getPath() != null && !uri.getPath().isEmpty() && !uri.getPath().equals("/"))
                || uri.getQuery() != null) {
            throw new ConfigException(LISTENER_CONFIG, text + " is not of the form http://host:port");
        }
        if (uri.getPort() > 65_535) {
            throw new ConfigException(LISTENER_CONFIG, text + ": port " + uri.getPort() + " is out of range");
        }
        String host = uri.getHost();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return Optional.of(new HttpAddress(host, uri.getPort()));
    }
}
