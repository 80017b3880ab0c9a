package io.aloft.autoscaler.collect;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where each broker serves its metrics: broker id to the base URL of its {@code metrics.listener}
 * ({@code /metrics} and {@code /readyz} are resolved against it).
 *
 * <p>Two ways, both public interfaces: {@link #fromBrokerConfigs} asks every broker for its own
 * {@code metrics.listener} (Admin {@code describeConfigs} on {@code ConfigResource(BROKER, id)}; an
 * Aloft broker lists its static properties there, as Kafka does) and falls back to a template for a
 * broker that has none, sets port 0 (a port only the broker knows) or does not answer; {@link
 * #fromTemplate} only fills a template, for deployments where every broker listens on the same port
 * of its own host (Kubernetes pods). A listener on a wildcard host ({@code 0.0.0.0}, {@code ::}) is
 * reached on the broker's advertised host.
 *
 * <p>Answers are cached per broker id, host and port: a broker's properties do not change while it
 * runs, and a restarted broker on a new address is asked again.
 *
 * <p>Not thread-safe: owned by the thread of the {@link SnapshotCollector} that uses it.
 */
public final class MetricsLocator {
    private static final Logger log = LoggerFactory.getLogger(MetricsLocator.class);

    /** Where an Aloft broker serves its metrics endpoint (Aloft's own key; Kafka has none). */
    public static final String METRICS_LISTENER_CONFIG = "metrics.listener";
    /** What config/server.properties ships: port 9464 on the broker's host. */
    public static final String DEFAULT_TEMPLATE = "http://{host}:9464";
    private static final long ADMIN_TIMEOUT_MS = 10_000;

    private final Admin admin;
    private final String template;
    private final Map<String, URI> cache = new HashMap<>();

    private MetricsLocator(Admin admin, String template) {
        this.admin = admin;
        this.template = Objects.requireNonNull(template, "template");
        // Fail at construction, not at the first sample, on a template that cannot make a URL.
        fill(template, new Node(0, "localhost", 9092));
    }

    /**
     * Reads each broker's {@code metrics.listener} through {@code admin} (which the caller owns and
     * closes); {@code fallbackTemplate} for brokers without a usable one.
     *
     * @param fallbackTemplate e.g. {@code http://{host}:9464}; {@code {host}} is the broker's host as
     *     describeCluster names it, {@code {id}} its id
     */
    public static MetricsLocator fromBrokerConfigs(Admin admin, String fallbackTemplate) {
        return new MetricsLocator(Objects.requireNonNull(admin, "admin"), fallbackTemplate);
    }

    /** Fills {@code template} ({@code {host}}, {@code {id}}) for every broker; asks brokers nothing. */
    public static MetricsLocator fromTemplate(String template) {
        return new MetricsLocator(null, template);
    }

    /**
     * The metrics base URL of each of {@code brokers}, by id.
     *
     * @throws InterruptedException if interrupted while asking the brokers
     */
    public Map<Integer, URI> locate(Collection<Node> brokers) throws InterruptedException {
        Map<Integer, URI> out = new TreeMap<>();
        List<Node> unknown = new ArrayList<>();
        for (Node n : brokers) {
            URI known = cache.get(key(n));
            if (known != null) {
                out.put(n.id(), known);
            } else {
                unknown.add(n);
            }
        }
        if (!unknown.isEmpty()) {
            Map<Integer, String> listeners = admin == null ? Map.of() : describeListeners(unknown);
            for (Node n : unknown) {
                URI uri = resolve(n, listeners.get(n.id()));
                cache.put(key(n), uri);
                out.put(n.id(), uri);
            }
        }
        return out;
    }

    /** Each broker's {@code metrics.listener} value, absent where it has none or did not answer. */
    private Map<Integer, String> describeListeners(List<Node> brokers) throws InterruptedException {
        Map<Integer, ConfigResource> resources = new TreeMap<>();
        for (Node n : brokers) {
            resources.put(n.id(), new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(n.id())));
        }
        Map<ConfigResource, KafkaFuture<Config>> futures = admin.describeConfigs(resources.values(),
                new DescribeConfigsOptions().timeoutMs((int) ADMIN_TIMEOUT_MS)).values();
        Map<Integer, String> out = new HashMap<>();
        for (Map.Entry<Integer, ConfigResource> e : resources.entrySet()) {
            try {
                ConfigEntry entry = futures.get(e.getValue()).get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                        .get(METRICS_LISTENER_CONFIG);
                if (entry != null && entry.value() != null && !entry.value().isBlank()) {
                    out.put(e.getKey(), entry.value().strip());
                }
            } catch (ExecutionException | TimeoutException ex) {
                Throwable cause = ex instanceof ExecutionException ? ex.getCause() : ex;
                log.warn("Broker {} did not describe its configs ({}); its metrics URL comes from the template {}",
                        e.getKey(), cause.toString(), template);
            }
        }
        return out;
    }

    /** {@code listener} made reachable from here, or the template when it is absent or unusable. */
    private URI resolve(Node broker, String listener) {
        if (listener != null) {
            URI out = fromListener(broker, listener);
            if (out != null) {
                log.info("Broker {} serves metrics at {} (its {})", broker.id(), out, METRICS_LISTENER_CONFIG);
                return out;
            }
            log.warn("Broker {} has {}={}, which gives no http URL with a host and a port to reach; using the "
                    + "template {}", broker.id(), METRICS_LISTENER_CONFIG, listener, template);
        }
        URI out = fill(template, broker);
        log.info("Broker {} serves metrics at {} (template {})", broker.id(), out, template);
        return out;
    }

    /**
     * The base URL a {@code metrics.listener} value gives, with a wildcard host replaced by the
     * broker's own; null when it is not an http URL with a host and a fixed port (port 0 means a
     * port only the broker knows).
     */
    static URI fromListener(Node broker, String listener) {
        try {
            URI uri = new URI(listener.strip());
            String host = uri.getHost();
            if (uri.getPort() <= 0 || host == null || !"http".equalsIgnoreCase(uri.getScheme())) {
                return null;
            }
            if (host.equals("0.0.0.0") || host.equals("[::]") || host.equals("::")) {
                host = broker.host();
            }
            return URI.create("http://" + bracket(host) + ":" + uri.getPort());
        } catch (URISyntaxException | IllegalArgumentException e) {
            return null;
        }
    }

    static URI fill(String template, Node broker) {
        String url = template.replace("{host}", bracket(broker.host())).replace("{id}", Integer.toString(broker.id()));
        try {
            URI uri = URI.create(url);
            if (uri.getHost() == null || !"http".equalsIgnoreCase(uri.getScheme())) {
                throw new IllegalArgumentException("not an http URL with a host");
            }
            return uri;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("metrics URL template '" + template + "' gives '" + url + "': "
                    + e.getMessage(), e);
        }
    }

    private static String bracket(String host) {
        return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    private static String key(Node n) {
        return n.id() + "@" + n.host() + ":" + n.port();
    }

    /** For messages: how this locator finds URLs. */
    @Override
    public String toString() {
        return admin == null ? "template " + template : METRICS_LISTENER_CONFIG + " from describeConfigs, else " + template;
    }

}
