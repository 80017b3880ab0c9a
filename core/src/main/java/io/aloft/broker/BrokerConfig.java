package io.aloft.broker;

import io.aloft.broker.network.KafkaServer;
import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigException;
import io.aloft.config.ConfigKey;
import io.aloft.config.ConfigType;
import io.aloft.config.ConfigValues;
import io.aloft.config.Validator;
import io.aloft.stream.storage.ObjectStorages;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The broker's own settings (the controller's, the WAL's, the stream store's, the group
 * coordinator's and the topic defaults are read by their own config classes from the same
 * properties; {@link ServerConfig} reads them all). Kafka's key names where Kafka has one, declared
 * once in {@link #DEFINITION}. Invalid values fail with a {@link ConfigException} whose message
 * starts with the key. Immutable.
 */
public final class BrokerConfig {

    /** A listener as configured: name, host (may be empty), port. */
    public record ListenerAddress(String name, String host, int port) {
        KafkaServer.Listener toServerListener() {
            return new KafkaServer.Listener(name, host, port);
        }

        /** {@code NAME://host:port}, an IPv6 host in brackets: the text that parses back to this. */
        @Override
        public String toString() {
            return name + "://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        }
    }

    public static final String LISTENERS_CONFIG = "listeners";
    public static final ConfigKey<List<ListenerAddress>> LISTENERS = ConfigKey.customKey(LISTENERS_CONFIG,
            ConfigType.LIST, text -> parseListeners(LISTENERS_CONFIG, text), ConfigKey::formatList)
            .defaultValue(List.of(new ListenerAddress("PLAINTEXT", "127.0.0.1", 9092)))
            .doc("Comma-separated listeners NAME://host:port the broker binds (host empty: all interfaces; "
                    + "port 0: any free port). Only PLAINTEXT so far.")
            .build();

    public static final String ADVERTISED_LISTENERS_CONFIG = "advertised.listeners";
    public static final ConfigKey<List<ListenerAddress>> ADVERTISED_LISTENERS = ConfigKey.customKey(
            ADVERTISED_LISTENERS_CONFIG, ConfigType.LIST,
            text -> text.isEmpty() ? List.<ListenerAddress>of() : parseListeners(ADVERTISED_LISTENERS_CONFIG, text),
            ConfigKey::formatList)
            .defaultText("(`listeners`)")
            .doc("Addresses given to clients in metadata, per listener name; unset or empty, those of listeners.")
            .build();

    public static final String NUM_PARTITIONS_CONFIG = "num.partitions";
    public static final ConfigKey<Integer> NUM_PARTITIONS = ConfigKey.intKey(NUM_PARTITIONS_CONFIG).defaultValue(1)
            .validator(Validator.between(1, 100_000))
            .doc("Partitions of a topic created without a count (auto-created, or -1 in CreateTopics).")
            .build();

    public static final String AUTO_CREATE_CONFIG = "auto.create.topics.enable";
    public static final ConfigKey<Boolean> AUTO_CREATE = ConfigKey.booleanKey(AUTO_CREATE_CONFIG).defaultValue(true)
            .doc("Create a topic when a client asks for its metadata and it does not exist.")
            .build();

    public static final String MAX_REQUEST_BYTES_CONFIG = "socket.request.max.bytes";
    public static final ConfigKey<Integer> MAX_REQUEST_BYTES = ConfigKey.intKey(MAX_REQUEST_BYTES_CONFIG)
            .defaultValue(104_857_600).validator(Validator.atLeast(1024))
            .doc("Largest request frame; a larger one closes its connection with a log line.")
            .build();

    public static final String NETWORK_THREADS_CONFIG = "num.network.threads";
    public static final ConfigKey<Integer> NETWORK_THREADS = ConfigKey.intKey(NETWORK_THREADS_CONFIG).defaultValue(3)
            .validator(Validator.between(1, 256))
            .doc("Threads serving client connections.")
            .build();

    public static final String DATA_DIR_CONFIG = "aloft.data.dir";
    public static final ConfigKey<Path> DATA_DIR = ConfigKey.pathKey(DATA_DIR_CONFIG).defaultValue(Path.of("data"))
            .doc("Directory for the WAL file, the metadata log and (with the default s3.url) the objects, unless "
                    + "their own keys say otherwise. Created if missing.")
            .build();

    public static final String OBJECT_STORAGE_URL_CONFIG = "s3.url";
    public static final ConfigKey<String> OBJECT_STORAGE_URL = ConfigKey.urlKey(OBJECT_STORAGE_URL_CONFIG)
            .defaultText("`file://<aloft.data.dir>/objects`")
            .validator(Validator.of("s3://BUCKET?endpoint=…&region=…&pathStyle=…&accessKey=…&secretKey=… or "
                    + "file:///DIR", BrokerConfig::objectStorageUrlProblem))
            .doc("Where objects go: S3 or an S3-compatible server (s3://bucket?endpoint=http://host:9000"
                    + "&region=us-east-1&pathStyle=true; without keys, the AWS SDK's default credentials), or a "
                    + "local directory (file:///dir). Checked for syntax at start; the bucket is first used once "
                    + "the broker runs.")
            .build();

    /** Every key the broker itself reads. */
    public static final ConfigDefinition DEFINITION = ConfigDefinition.of("broker", LISTENERS, ADVERTISED_LISTENERS,
            NUM_PARTITIONS, AUTO_CREATE, MAX_REQUEST_BYTES, NETWORK_THREADS, DATA_DIR, OBJECT_STORAGE_URL);

    private final List<ListenerAddress> listeners;
    private final List<ListenerAddress> advertisedListeners;
    private final int numPartitions;
    private final boolean autoCreateTopics;
    private final int maxRequestBytes;
    private final int networkThreads;
    private final Path dataDir;
    private final String objectStorageUrl;

    private BrokerConfig(ConfigValues v) {
        listeners = v.get(LISTENERS);
        List<ListenerAddress> advertised = v.get(ADVERTISED_LISTENERS);
        advertisedListeners = advertised == null || advertised.isEmpty() ? listeners : advertised;
        for (ListenerAddress a : advertisedListeners) {
            require(listeners.stream().anyMatch(l -> l.name().equals(a.name())), ADVERTISED_LISTENERS_CONFIG,
                    "listener " + a.name() + " is not in " + LISTENERS_CONFIG + "=" + ConfigKey.formatList(listeners));
        }
        numPartitions = v.get(NUM_PARTITIONS);
        autoCreateTopics = v.get(AUTO_CREATE);
        maxRequestBytes = v.get(MAX_REQUEST_BYTES);
        networkThreads = v.get(NETWORK_THREADS);
        dataDir = v.get(DATA_DIR);
        String url = v.get(OBJECT_STORAGE_URL);
        objectStorageUrl = url != null ? url : dataDir.resolve("objects").toAbsolutePath().toUri().toString();
    }

    /**
     * Reads the keys of {@link #DEFINITION} (other keys are ignored).
     *
     * @throws ConfigException naming the first bad key
     */
    public static BrokerConfig fromProperties(Map<?, ?> props) {
        return new BrokerConfig(DEFINITION.parse(props));
    }

    private static String objectStorageUrlProblem(String url) {
        try {
            ObjectStorages.validate(url);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
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
                throw new ConfigException(key, "'" + entry + "' has no valid port");
            }
            require(port >= 0 && port <= 65535, key, "port " + port + " of '" + entry + "' is out of range");
            require(names.add(name), key, "listener " + name + " appears twice");
            require(name.equals("PLAINTEXT"), key, "only PLAINTEXT listeners are supported so far, not " + name);
            out.add(new ListenerAddress(name, host, port));
        }
        return List.copyOf(out);
    }

    private static void require(boolean ok, String key, String message) {
        if (!ok) {
            throw new ConfigException(key, message);
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

    /** The object storage URL: {@code s3.url}, or a {@code file://} URL of {@code objects} under the data dir. */
    public String objectStorageUrl() {
        return objectStorageUrl;
    }
}
