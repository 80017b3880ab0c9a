package io.aloft.broker;

import io.aloft.broker.network.KafkaServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The broker's own settings (the controller's, the WAL's and the stream store's keys are read by
 * their own config classes from the same properties). Kafka's key names where Kafka has one.
 * Invalid values fail with an {@link IllegalArgumentException} whose message starts with the key.
 */
public final class BrokerConfig {

    /** A key with its default and documentation, for the README and config listings. */
    public record Key(String name, String defaultValue, String doc) {
    }

    public static final String LISTENERS_CONFIG = "listeners";
    public static final String ADVERTISED_LISTENERS_CONFIG = "advertised.listeners";
    public static final String NUM_PARTITIONS_CONFIG = "num.partitions";
    public static final String AUTO_CREATE_CONFIG = "auto.create.topics.enable";
    public static final String MAX_REQUEST_BYTES_CONFIG = "socket.request.max.bytes";
    public static final String NETWORK_THREADS_CONFIG = "num.network.threads";
    public static final String DATA_DIR_CONFIG = "aloft.data.dir";
    public static final String OBJECT_STORAGE_URL_CONFIG = "s3.url";

    public static final List<Key> KEYS = List.of(
            new Key(LISTENERS_CONFIG, "PLAINTEXT://127.0.0.1:9092",
                    "Comma-separated listeners NAME://host:port the broker binds (host empty: all interfaces)."),
            new Key(ADVERTISED_LISTENERS_CONFIG, "(listeners)",
                    "Addresses given to clients in metadata, per listener name; defaults to `listeners`."),
            new Key(NUM_PARTITIONS_CONFIG, "1", "Partitions of a topic created without a count (auto-created or -1)."),
            new Key(AUTO_CREATE_CONFIG, "true", "Create a topic when a client asks for its metadata and it does not exist."),
            new Key(MAX_REQUEST_BYTES_CONFIG, "104857600",
                    "Largest request frame; a larger one closes its connection with a log line."),
            new Key(NETWORK_THREADS_CONFIG, "3", "Threads serving client connections."),
            new Key(DATA_DIR_CONFIG, "data", "Directory for the WAL file, the metadata log and (with the default "
                    + "`s3.url`) the objects, unless their own keys say otherwise."),
            new Key(OBJECT_STORAGE_URL_CONFIG, "file://<aloft.data.dir>/objects",
                    "Where objects go: `s3://bucket?endpoint=...&region=...&pathStyle=true` or `file:///dir`."));

    /** A listener as configured: name, host (may be empty), port. */
    public record ListenerAddress(String name, String host, int port) {
        KafkaServer.Listener toServerListener() {
            return new KafkaServer.Listener(name, host, port);
        }
    }

    private final List<ListenerAddress> listeners;
    private final List<ListenerAddress> advertisedListeners;
    private final int numPartitions;
    private final boolean autoCreateTopics;
    private final int maxRequestBytes;
    private final int networkThreads;
    private final Path dataDir;
    private final String objectStorageUrl;

    private BrokerConfig(Map<?, ?> props) {
        listeners = parseListeners(LISTENERS_CONFIG, string(props, LISTENERS_CONFIG, "PLAINTEXT://127.0.0.1:9092"));
        String advertised = string(props, ADVERTISED_LISTENERS_CONFIG, null);
        advertisedListeners = advertised == null ? listeners : parseListeners(ADVERTISED_LISTENERS_CONFIG, advertised);
        for (ListenerAddress a : advertisedListeners) {
            require(listeners.stream().anyMatch(l -> l.name().equals(a.name())), ADVERTISED_LISTENERS_CONFIG,
                    "listener " + a.name() + " is not in " + LISTENERS_CONFIG);
        }
        numPartitions = (int) number(props, NUM_PARTITIONS_CONFIG, 1, 1, 100_000);
        autoCreateTopics = bool(props, AUTO_CREATE_CONFIG, true);
        maxRequestBytes = (int) number(props, MAX_REQUEST_BYTES_CONFIG, 104_857_600, 1024, Integer.MAX_VALUE);
        networkThreads = (int) number(props, NETWORK_THREADS_CONFIG, 3, 1, 256);
        dataDir = Path.of(string(props, DATA_DIR_CONFIG, "data"));
        objectStorageUrl = string(props, OBJECT_STORAGE_URL_CONFIG,
                dataDir.resolve("objects").toAbsolutePath().toUri().toString());
    }

    public static BrokerConfig fromProperties(Map<?, ?> props) {
        return new BrokerConfig(props);
    }

    static List<ListenerAddress> parseListeners(String key, String spec) {
        List<ListenerAddress> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (String part : spec.split(",")) {
            String entry = part.trim();
            int sep = entry.indexOf("://");
            int colon = entry.lastIndexOf(':');
            require(sep > 0 && colon > sep + 2, key, "'" + entry + "' is not NAME://host:port");
            String name = entry.substring(0, sep);
            String host = entry.substring(sep + 3, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int port;
            try {
                port = Integer.parseInt(entry.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key + ": '" + entry + "' has no valid port");
            }
            require(port >= 0 && port <= 65535, key, "port " + port + " out of range");
            require(names.add(name), key, "listener " + name + " appears twice");
            require(name.equals("PLAINTEXT"), key, "only PLAINTEXT listeners are supported so far, not " + name);
            out.add(new ListenerAddress(name, host, port));
        }
        return List.copyOf(out);
    }

    private static String string(Map<?, ?> props, String key, String defaultValue) {
        Object v = props.get(key);
        return v == null || v.toString().isBlank() ? defaultValue : v.toString().trim();
    }

    private static long number(Map<?, ?> props, String key, long defaultValue, long min, long max) {
        String v = string(props, key, null);
        if (v == null) {
            return defaultValue;
        }
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + ": '" + v + "' is not a number");
        }
        require(n >= min && n <= max, key, n + " is outside [" + min + ", " + max + "]");
        return n;
    }

    private static boolean bool(Map<?, ?> props, String key, boolean defaultValue) {
        String v = string(props, key, null);
        if (v == null) {
            return defaultValue;
        }
        require(v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false"), key, "'" + v + "' is not true or false");
        return Boolean.parseBoolean(v);
    }

    private static void require(boolean ok, String key, String message) {
        if (!ok) {
            throw new IllegalArgumentException(key + ": " + message);
        }
    }

    public List<ListenerAddress> listeners() {
        return listeners;
    }

    public List<ListenerAddress> advertisedListeners() {
        return advertisedListeners;
    }

    public int numPartitions() {
        return numPartitions;
    }

    public boolean autoCreateTopics() {
        return autoCreateTopics;
    }

    public int maxRequestBytes() {
        return maxRequestBytes;
    }

    public int networkThreads() {
        return networkThreads;
    }

    public Path dataDir() {
        return dataDir;
    }

    public String objectStorageUrl() {
        return objectStorageUrl;
    }
}
