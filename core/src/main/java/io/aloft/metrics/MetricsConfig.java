package io.aloft.metrics;

import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigException;
import io.aloft.config.ConfigKey;
import io.aloft.config.ConfigType;
import io.aloft.config.ConfigValues;
import io.aloft.config.Validator;
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

    public static final String TOPIC_SERIES_MAX_CONFIG = "aloft.metrics.topic.series.max";
    public static final ConfigKey<Integer> TOPIC_SERIES_MAX = ConfigKey.intKey(TOPIC_SERIES_MAX_CONFIG)
            .defaultValue(1000).validator(Validator.between(0, 1_000_000))
            .doc("Brokers: most topics a broker keeps per-topic series of (kafka_server_brokertopicmetrics_*{topic}); "
                    + "the all-topics series (topic=\"\") count every topic. Topics beyond it count only in "
                    + "the total, with one WARN line when the limit is first reached. A deleted topic's series "
                    + "are removed and free their place. 0: totals only.")
            .build();

    public static final String PARTITION_SERIES_ENABLE_CONFIG = "aloft.metrics.partition.series.enable";
    public static final ConfigKey<Boolean> PARTITION_SERIES_ENABLE = ConfigKey.booleanKey(
            PARTITION_SERIES_ENABLE_CONFIG).defaultValue(false)
            .doc("Brokers: serve per-partition series of the partitions this broker leads (kafka_log_log_logendoffset, "
                    + "_logstartoffset and _size {topic,partition}), computed at scrape time. Off by default: "
                    + "one series per partition per meter.")
            .build();

    public static final String GROUP_LAG_SERIES_MAX_CONFIG = "aloft.metrics.group.lag.series.max";
    public static final ConfigKey<Integer> GROUP_LAG_SERIES_MAX = ConfigKey.intKey(GROUP_LAG_SERIES_MAX_CONFIG)
            .defaultValue(1000).validator(Validator.between(0, 1_000_000))
            .doc("Brokers: most series of aloft_group_lag_records{group,topic,partition} one scrape serves "
                    + "(committed offsets of the groups this broker coordinates, in any partition; only those served "
                    + "are refreshed); the rest are left out, with one WARN line when the limit is first reached. "
                    + "0: no lag series (and no refreshes).")
            .build();

    public static final ConfigDefinition DEFINITION = ConfigDefinition.of("metrics", LISTENER, TOPIC_SERIES_MAX,
            PARTITION_SERIES_ENABLE, GROUP_LAG_SERIES_MAX);

    private final Optional<HttpAddress> listener;
    private final int topicSeriesMax;
    private final boolean partitionSeries;
    private final int groupLagSeriesMax;

    private MetricsConfig(ConfigValues v) {
        listener = v.get(LISTENER);
        topicSeriesMax = v.get(TOPIC_SERIES_MAX);
        partitionSeries = v.get(PARTITION_SERIES_ENABLE);
        groupLagSeriesMax = v.get(GROUP_LAG_SERIES_MAX);
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

    /** {@value #TOPIC_SERIES_MAX_CONFIG}. */
    public int topicSeriesMax() {
        return topicSeriesMax;
    }

    /** {@value #PARTITION_SERIES_ENABLE_CONFIG}. */
    public boolean partitionSeries() {
        return partitionSeries;
    }

    /** {@value #GROUP_LAG_SERIES_MAX_CONFIG}. */
    public int groupLagSeriesMax() {
        return groupLagSeriesMax;
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
