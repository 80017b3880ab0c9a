package io.aloft.broker.config;

import io.aloft.broker.log.LogConfig;
import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigException;
import io.aloft.config.ConfigKey;
import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.command.DeleteKv;
import io.aloft.controller.command.PutKv;
import io.aloft.controller.query.Queries;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Broker configs changed at run time (Kafka's dynamic broker configs), kept in the controller's
 * key-value space so every broker sees them and they survive restarts: one entry per key, under
 * {@code config/broker/default/<key>} for the cluster-wide default and {@code config/broker/<id>/<key>}
 * for one broker. As in Kafka, a broker's own value beats the cluster default, which beats
 * server.properties, which beats the built-in default.
 *
 * <p>Which keys can change this way, and what values they take, comes from their declarations: the
 * keys marked dynamic in the server's definition ({@link #dynamicKeys()} — so far the broker-wide
 * defaults of topic configs, {@code log.retention.ms}, {@code message.max.bytes}, ...), each value
 * checked by its key's validator; the rest of server.properties is read at start only. A broker
 * applies its own changes at once and picks up other brokers' changes within
 * {@value #REFRESH_INTERVAL_MS} ms.
 *
 * <p>Thread-safe: the current view is one immutable value swapped on refresh.
 */
public final class DynamicBrokerConfigs {
    private static final Logger log = LoggerFactory.getLogger(DynamicBrokerConfigs.class);

    /** The resource name of the cluster-wide default (Kafka's "--entity-default"). */
    public static final String CLUSTER_DEFAULT = "";
    static final String KV_PREFIX = "config/broker/";
    private static final String DEFAULT_SCOPE = "default";
    /** How often other brokers' changes are picked up (a broker's own apply at once). */
    static final long REFRESH_INTERVAL_MS = 5_000;

    /** What is set where, and the topic defaults that follow. */
    private record View(Map<String, String> clusterDefault, Map<String, String> perBroker, LogConfig logDefaults) {
    }

    private final int brokerId;
    private final ControllerClient controller;
    private final Map<String, String> staticProps;
    private final ConfigDefinition keys;
    private final Set<String> dynamicKeys;
    private final List<Consumer<LogConfig>> listeners = new CopyOnWriteArrayList<>();
    private volatile View view;
    /** Refreshes are numbered as they start, so a slow older read never replaces a newer one. */
    private final AtomicLong refreshes = new AtomicLong();
    private long appliedRefresh;

    /**
     * @param keys every key the broker's properties may set; those marked dynamic can be altered
     *     here, and only the topic defaults ({@link LogConfig#BROKER_DEFINITION}) take effect while
     *     running
     */
    public DynamicBrokerConfigs(int brokerId, ControllerClient controller, Map<String, String> staticProps,
            ConfigDefinition keys) {
        this.brokerId = brokerId;
        this.controller = controller;
        this.staticProps = Map.copyOf(staticProps);
        this.keys = keys;
        Set<String> dynamic = new TreeSet<>();
        keys.dynamicKeys().forEach(k -> dynamic.add(k.name()));
        this.dynamicKeys = Collections.unmodifiableSet(dynamic);
        this.view = new View(Map.of(), Map.of(), LogConfig.fromBrokerProperties(staticProps));
    }

    /** Loads what is stored now, then keeps following changes on {@code scheduler}. */
    public void start(ScheduledExecutorService scheduler, long timeoutMs) throws Exception {
        refresh().get(timeoutMs, TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(() -> refresh().exceptionally(e -> {
            log.warn("Could not read dynamic broker configs; keeping the ones known", e);
            return null;
        }), REFRESH_INTERVAL_MS, REFRESH_INTERVAL_MS, TimeUnit.MILLISECONDS);
    }

    /** Called with the new topic defaults whenever they change. */
    public void onLogDefaultsChanged(Consumer<LogConfig> listener) {
        listeners.add(listener);
    }

    /** The broker-wide topic defaults in force now. */
    public LogConfig logDefaults() {
        return view.logDefaults();
    }

    /** The cluster-wide dynamic values. */
    public Map<String, String> clusterDefault() {
        return view.clusterDefault();
    }

    /** This broker's own dynamic values. */
    public Map<String, String> perBroker() {
        return view.perBroker();
    }

    /** The properties the broker started with. */
    public Map<String, String> staticProps() {
        return staticProps;
    }

    public int brokerId() {
        return brokerId;
    }

    /** The keys that can change at run time, by name. */
    public Set<String> dynamicKeys() {
        return dynamicKeys;
    }

    /** The declaration of a broker key, or {@code null} for a key no module reads. */
    public ConfigKey<?> key(String name) {
        return keys.key(name);
    }

    /** The values set at a scope: {@link #CLUSTER_DEFAULT} or this broker's id. */
    public Map<String, String> at(String resourceName) {
        return isClusterDefault(resourceName) ? clusterDefault() : perBroker();
    }

    private static boolean isClusterDefault(String resourceName) {
        return CLUSTER_DEFAULT.equals(resourceName);
    }

    /** Re-reads both scopes from the controller and tells listeners if the topic defaults changed. */
    public CompletableFuture<Void> refresh() {
        long number = refreshes.incrementAndGet();
        String brokerPrefix = KV_PREFIX + brokerId + "/";
        String defaultPrefix = KV_PREFIX + DEFAULT_SCOPE + "/";
        CompletableFuture<Map<String, String>> defaults = read(defaultPrefix);
        CompletableFuture<Map<String, String>> own = read(brokerPrefix);
        return defaults.thenCombine(own, (d, b) -> {
            update(number, d, b);
            return null;
        });
    }

    @SuppressWarnings("unchecked")
    private CompletableFuture<Map<String, String>> read(String prefix) {
        return controller.query(new Queries.GetKvPrefix(prefix), Map.class).thenApply(raw -> {
            Map<String, String> out = new TreeMap<>();
            ((Map<String, byte[]>) raw).forEach((k, v) -> out.put(k.substring(prefix.length()),
                    new String(v, StandardCharsets.UTF_8)));
            return out;
        });
    }

    private void update(long number, Map<String, String> clusterDefault, Map<String, String> perBroker) {
        LogConfig logDefaults;
        try {
            logDefaults = LogConfig.fromBrokerProperties(effective(clusterDefault, perBroker));
        } catch (ConfigException e) {
            // Validated before it was stored, so only a value written by another version lands here.
            log.warn("Ignoring dynamic broker configs that do not parse ({}); keeping the previous ones", e.getMessage());
            return;
        }
        View previous;
        synchronized (this) {
            if (number < appliedRefresh) {
                return;
            }
            appliedRefresh = number;
            previous = view;
            view = new View(Map.copyOf(clusterDefault), Map.copyOf(perBroker), logDefaults);
        }
        if (!previous.clusterDefault().equals(clusterDefault) || !previous.perBroker().equals(perBroker)) {
            log.info("Dynamic broker configs now: cluster default {}, broker {} {}", clusterDefault, brokerId,
                    perBroker);
        }
        if (!previous.logDefaults().toMap().equals(logDefaults.toMap())) {
            listeners.forEach(l -> l.accept(logDefaults));
        }
    }

    /**
     * Static properties with the cluster default and then this broker's values laid over them. A
     * retention synonym set at a higher level hides all three synonyms below it, so
     * {@code log.retention.hours} set dynamically wins over {@code log.retention.ms} in the file.
     */
    private Map<String, String> effective(Map<String, String> clusterDefault, Map<String, String> perBroker) {
        Map<String, String> merged = new HashMap<>(staticProps);
        for (Map<String, String> level : List.of(clusterDefault, perBroker)) {
            Collection<String> retention = LogConfig.brokerSynonyms(LogConfig.RETENTION_MS_CONFIG);
            if (level.keySet().stream().anyMatch(retention::contains)) {
                retention.forEach(merged::remove);
            }
            merged.putAll(level);
        }
        return merged;
    }

    /**
     * Sets and deletes values at one scope ({@link #CLUSTER_DEFAULT} or this broker's id), after
     * checking every key is dynamic and the result parses. With {@code validateOnly} nothing is stored.
     */
    public CompletableFuture<Void> alter(String resourceName, Map<String, String> set, Collection<String> delete,
            boolean validateOnly) {
        try {
            Set<String> notDynamic = new TreeSet<>();
            set.keySet().stream().filter(k -> !dynamicKeys.contains(k)).forEach(notDynamic::add);
            delete.stream().filter(k -> !dynamicKeys.contains(k)).forEach(notDynamic::add);
            if (!notDynamic.isEmpty()) {
                throw new InvalidRequestException("Cannot update these configs dynamically: " + notDynamic
                        + " (set them in server.properties and restart). Dynamic broker configs are " + dynamicKeys);
            }
            View current = view;
            Map<String, String> clusterDefault = new TreeMap<>(current.clusterDefault());
            Map<String, String> perBroker = new TreeMap<>(current.perBroker());
            Map<String, String> target = isClusterDefault(resourceName) ? clusterDefault : perBroker;
            delete.forEach(target::remove);
            set.forEach((k, v) -> target.put(k, v == null ? "" : v.trim()));
            try {
                // Each value by its own key's rules, then the topic defaults they make together.
                set.keySet().forEach(k -> keys.key(k).parse(target.get(k)));
                LogConfig.fromBrokerProperties(effective(clusterDefault, perBroker));
            } catch (ConfigException e) {
                throw new InvalidConfigurationException(e.getMessage());
            }
            if (validateOnly) {
                return CompletableFuture.completedFuture(null);
            }
            String scope = KV_PREFIX + (isClusterDefault(resourceName) ? DEFAULT_SCOPE : Integer.toString(brokerId))
                    + "/";
            // This broker's own scope is written only through this broker, so its view is current there:
            // deleting an absent key or setting the same value needs no controller write (each
            // kafka-reassign-partitions --verify clears the throttles of every broker, usually unset).
            // The cluster default can change through any broker, so it is always written.
            Map<String, String> before = isClusterDefault(resourceName) ? null : current.perBroker();
            List<CompletableFuture<Object>> writes = new ArrayList<>();
            delete.stream().filter(k -> !set.containsKey(k)).filter(k -> before == null || before.containsKey(k))
                    .forEach(k -> writes.add(controller.submit(new DeleteKv(scope + k))));
            set.keySet().stream().filter(k -> before == null || !target.get(k).equals(before.get(k)))
                    .forEach(k -> writes.add(controller.submit(new PutKv(scope + k,
                            target.get(k).getBytes(StandardCharsets.UTF_8)))));
            if (writes.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).thenCompose(v -> refresh());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
