package io.aloft.broker;

import io.aloft.broker.network.KafkaServer;
import io.aloft.broker.interbroker.InterBrokerSecurity;
import io.aloft.broker.security.sasl.SaslConfig;
import io.aloft.broker.security.sasl.SaslListenerSettings;
import io.aloft.broker.security.SslConfig;
import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigException;
import io.aloft.config.ConfigKey;
import io.aloft.config.ConfigType;
import io.aloft.config.ConfigValues;
import io.aloft.config.Validator;
import io.aloft.stream.storage.ObjectStorages;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.security.auth.SecurityProtocol;

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
        /** {@code NAME://host:port}, an IPv6 host in brackets: the text that parses back to this. */
        @Override
        public String toString() {
            return name + "://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        }
    }

    /** The security protocols a listener may have: all of Kafka's. */
    public static final Set<SecurityProtocol> SERVED_PROTOCOLS = java.util.Collections.unmodifiableSet(
            java.util.EnumSet.of(SecurityProtocol.PLAINTEXT, SecurityProtocol.SSL, SecurityProtocol.SASL_PLAINTEXT,
                    SecurityProtocol.SASL_SSL));

    /** Kafka's listener names: letters, digits, '_' and '-'. (Before the keys: their defaults are parsed.) */
    private static final java.util.regex.Pattern LISTENER_NAME = java.util.regex.Pattern.compile("[A-Za-z0-9_-]+");

    public static final String LISTENERS_CONFIG = "listeners";
    public static final ConfigKey<List<ListenerAddress>> LISTENERS = ConfigKey.customKey(LISTENERS_CONFIG,
            ConfigType.LIST, text -> parseListeners(LISTENERS_CONFIG, text), ConfigKey::formatList)
            .defaultValue(List.of(new ListenerAddress("PLAINTEXT", "127.0.0.1", 9092)))
            .doc("Comma-separated listeners NAME://host:port the broker binds (host empty: all interfaces; "
                    + "port 0: any free port). A name's security protocol comes from "
                    + "listener.security.protocol.map: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL (TLS, then SASL: "
                    + "see sasl.enabled.mechanisms).")
            .build();

    public static final String ADVERTISED_LISTENERS_CONFIG = "advertised.listeners";
    public static final ConfigKey<List<ListenerAddress>> ADVERTISED_LISTENERS = ConfigKey.customKey(
            ADVERTISED_LISTENERS_CONFIG, ConfigType.LIST,
            text -> text.isEmpty() ? List.<ListenerAddress>of() : parseListeners(ADVERTISED_LISTENERS_CONFIG, text),
            ConfigKey::formatList)
            .defaultText("(`listeners`)")
            .doc("Addresses given to clients in metadata, per listener name; unset or empty, those of listeners.")
            .build();

    public static final String SECURITY_PROTOCOL_MAP_CONFIG = "listener.security.protocol.map";
    public static final ConfigKey<Map<String, SecurityProtocol>> SECURITY_PROTOCOL_MAP = ConfigKey.customKey(
            SECURITY_PROTOCOL_MAP_CONFIG, ConfigType.LIST, BrokerConfig::parseProtocolMap,
            BrokerConfig::formatProtocolMap)
            .defaultValue(defaultProtocolMap())
            .doc("Each listener name's security protocol, as comma-separated NAME:PROTOCOL (e.g. "
                    + "INTERNAL:PLAINTEXT,EXTERNAL:SSL). Kafka's default maps PLAINTEXT, SSL, SASL_PLAINTEXT and "
                    + "SASL_SSL to themselves; a listener whose name is not mapped is refused at start.")
            .build();

    public static final String INTER_BROKER_LISTENER_NAME_CONFIG = "inter.broker.listener.name";
    public static final ConfigKey<String> INTER_BROKER_LISTENER_NAME = ConfigKey.stringKey(
            INTER_BROKER_LISTENER_NAME_CONFIG)
            .defaultText("(the first of `advertised.listeners`)")
            .doc("The listener brokers reach each other on (transaction markers, group lag): one of "
                    + "advertised.listeners. Over an SSL listener the broker connects with that listener's ssl.* "
                    + "settings as a client (its trust store must trust the other brokers' certificates, and "
                    + "its key store is presented when they require client certificates); over a SASL_PLAINTEXT "
                    + "one it authenticates with sasl.mechanism.inter.broker.protocol and the username and "
                    + "password of the listener's JAAS key.")
            .build();

    public static final String BROKER_RACK_CONFIG = "broker.rack";
    public static final ConfigKey<String> BROKER_RACK = ConfigKey.stringKey(BROKER_RACK_CONFIG)
            .defaultText("(none)")
            .doc("The broker's rack or zone, as in Kafka: given to clients in metadata, and the controller "
                    + "spreads each topic's partitions evenly over the racks (from cluster feature level 3; a "
                    + "broker without one counts as a rack of its own).")
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

    public static final String TRANSACTIONS_ENABLE_CONFIG = "aloft.transactions.enable";
    public static final ConfigKey<Boolean> TRANSACTIONS_ENABLE = ConfigKey.booleanKey(TRANSACTIONS_ENABLE_CONFIG)
            .defaultValue(true)
            .doc("Serve Kafka transactions (transactional producers, and the markers read_committed consumers "
                    + "depend on): the transaction coordinator on __transaction_state, its APIs, and "
                    + "WriteTxnMarkers, by which coordinators on other brokers end transactions in the partitions "
                    + "this broker leads. Transaction version 2 (KIP-890) unless aloft.transaction.version=1. Off: "
                    + "transactional producers are refused at once, with a reason. Set it alike on every broker "
                    + "of a cluster.")
            .build();

    public static final String MAX_REQUEST_BYTES_CONFIG = "socket.request.max.bytes";
    public static final ConfigKey<Integer> MAX_REQUEST_BYTES = ConfigKey.intKey(MAX_REQUEST_BYTES_CONFIG)
            .defaultValue(104_857_600).validator(Validator.atLeast(1024))
            .doc("Largest request, compared with the frame's 4-byte size field (which does not count itself), as "
                    + "in Kafka: a frame whose size field equals this is read, a larger one closes its connection "
                    + "on its size prefix, before its body is buffered, with a (rate-limited) log line.")
            .build();

    private static final Validator<Long> UNLIMITED_OR_POSITIVE = Validator.check("-1 (no limit) or at least 1",
            v -> v == -1 || v >= 1, v -> v + " is neither -1 (no limit) nor positive");

    public static final String QUEUED_MAX_REQUEST_BYTES_CONFIG = "queued.max.request.bytes";
    public static final ConfigKey<Long> QUEUED_MAX_REQUEST_BYTES = ConfigKey.longKey(QUEUED_MAX_REQUEST_BYTES_CONFIG)
            .defaultText("a quarter of the JVM's maximum heap (768 MiB with the default `-Xmx3g`)")
            .validator(UNLIMITED_OR_POSITIVE)
            .doc("Request bytes the broker holds in memory at once, over all connections: each request frame's "
                    + "size is reserved once its size prefix is read, before its body is, and freed when its "
                    + "handler completes. When none is left, connections that need more stop reading until some is "
                    + "freed (first come, first served), so a flood of large requests slows clients down instead "
                    + "of exhausting memory. A frame larger than the whole budget is admitted alone, once nothing "
                    + "else is held. Frames are read into heap memory, hence the default; Kafka's default, -1, "
                    + "means no limit.")
            .build();

    public static final String CONNECTION_QUEUED_MAX_REQUEST_BYTES_CONFIG =
            "aloft.connection.queued.max.request.bytes";
    public static final ConfigKey<Long> CONNECTION_QUEUED_MAX_REQUEST_BYTES = ConfigKey.longKey(
            CONNECTION_QUEUED_MAX_REQUEST_BYTES_CONFIG)
            .defaultText("a quarter of `queued.max.request.bytes` (no limit when that is -1)")
            .validator(UNLIMITED_OR_POSITIVE)
            .doc("One connection's share of queued.max.request.bytes: request bytes of one connection being read "
                    + "or waiting for their handlers. Past it the connection stops reading until its own requests "
                    + "complete, so one client cannot take the whole budget. A request larger than the share is "
                    + "still read when the connection holds nothing else. -1: no limit.")
            .build();

    public static final String CONNECTIONS_MAX_IDLE_MS_CONFIG = "connections.max.idle.ms";
    public static final ConfigKey<Long> CONNECTIONS_MAX_IDLE_MS = ConfigKey.longKey(CONNECTIONS_MAX_IDLE_MS_CONFIG)
            .defaultValue(600_000L).validator(Validator.check("-1 (never) or at least 1", v -> v == -1 || v >= 1,
                    v -> v + " is neither -1 (never) nor positive"))
            .doc("Close a connection that has had no request activity for this long: no whole request read and "
                    + "no response written, with no request in flight. A connection stalled in the middle of a "
                    + "request, or sending one byte by byte, counts as idle. -1: never.")
            .build();

    public static final String MAX_CONNECTIONS_CONFIG = "max.connections";
    public static final ConfigKey<Integer> MAX_CONNECTIONS = ConfigKey.intKey(MAX_CONNECTIONS_CONFIG)
            .defaultValue(Integer.MAX_VALUE).validator(Validator.atLeast(0))
            .doc("Most client connections the broker has open at once, over all listeners. At the limit it stops "
                    + "accepting (clients wait in the listen backlog) until a connection closes, as Kafka blocks "
                    + "new connections. Read at start only (dynamic in Kafka).")
            .build();

    public static final String MAX_CONNECTIONS_PER_IP_CONFIG = "max.connections.per.ip";
    public static final ConfigKey<Integer> MAX_CONNECTIONS_PER_IP = ConfigKey.intKey(MAX_CONNECTIONS_PER_IP_CONFIG)
            .defaultValue(Integer.MAX_VALUE).validator(Validator.atLeast(0))
            .doc("Most connections from one IP address. A new connection from an address at its limit is accepted "
                    + "and closed at once, with a (rate-limited) log line. 0 is allowed only with "
                    + "max.connections.per.ip.overrides. Read at start only (dynamic in Kafka).")
            .build();

    public static final String MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG = "max.connections.per.ip.overrides";
    public static final ConfigKey<Map<String, Integer>> MAX_CONNECTIONS_PER_IP_OVERRIDES = ConfigKey.customKey(
            MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG, ConfigType.LIST, BrokerConfig::parseOverrides,
            BrokerConfig::formatOverrides)
            .defaultValue(Map.of())
            .doc("Per-address exceptions to max.connections.per.ip: comma-separated host:count, an IP address or a "
                    + "host name (resolved at start), for example 127.0.0.1:200,broker-admin.example.com:10. Read "
                    + "at start only (dynamic in Kafka).")
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

    // Kafka's replication throttles. Nothing is replicated here (each partition has one replica on
    // shared storage), but kafka-reassign-partitions.sh sets them with --throttle and clears them on
    // every --verify, on every broker: accepted and stored so Kafka's tools work, with no effect.
    public static final String LEADER_REPLICATION_THROTTLED_RATE_CONFIG = "leader.replication.throttled.rate";
    public static final ConfigKey<Long> LEADER_REPLICATION_THROTTLED_RATE = throttle(
            LEADER_REPLICATION_THROTTLED_RATE_CONFIG);
    public static final String FOLLOWER_REPLICATION_THROTTLED_RATE_CONFIG = "follower.replication.throttled.rate";
    public static final ConfigKey<Long> FOLLOWER_REPLICATION_THROTTLED_RATE = throttle(
            FOLLOWER_REPLICATION_THROTTLED_RATE_CONFIG);
    public static final String REPLICA_ALTER_LOG_DIRS_RATE_CONFIG = "replica.alter.log.dirs.io.max.bytes.per.second";
    public static final ConfigKey<Long> REPLICA_ALTER_LOG_DIRS_RATE = throttle(REPLICA_ALTER_LOG_DIRS_RATE_CONFIG);

    private static ConfigKey<Long> throttle(String name) {
        return ConfigKey.longKey(name).defaultValue(Long.MAX_VALUE).validator(Validator.atLeast(0L)).dynamic()
                .doc("Kafka's replication throttle (bytes/s), accepted so that `kafka-reassign-partitions.sh "
                        + "--throttle` and `--verify` work; no effect: a partition has one replica on shared storage "
                        + "and a move copies no data.")
                .build();
    }

    /** Every key the broker itself reads. */
    public static final ConfigDefinition DEFINITION = ConfigDefinition.of("broker", LISTENERS, ADVERTISED_LISTENERS,
            SECURITY_PROTOCOL_MAP, INTER_BROKER_LISTENER_NAME, BROKER_RACK, NUM_PARTITIONS, AUTO_CREATE, TRANSACTIONS_ENABLE, MAX_REQUEST_BYTES, QUEUED_MAX_REQUEST_BYTES,
            CONNECTION_QUEUED_MAX_REQUEST_BYTES, CONNECTIONS_MAX_IDLE_MS, MAX_CONNECTIONS, MAX_CONNECTIONS_PER_IP,
            MAX_CONNECTIONS_PER_IP_OVERRIDES, NETWORK_THREADS, DATA_DIR, OBJECT_STORAGE_URL,
            LEADER_REPLICATION_THROTTLED_RATE, FOLLOWER_REPLICATION_THROTTLED_RATE, REPLICA_ALTER_LOG_DIRS_RATE);

    private final List<ListenerAddress> listeners;
    private final List<ListenerAddress> advertisedListeners;
    private final Map<String, SecurityProtocol> protocols;
    private final Map<String, SslConfig> sslConfigs;
    private final String interBrokerListener;
    private final String rack;
    private final int numPartitions;
    private final boolean autoCreateTopics;
    private final boolean transactionsEnabled;
    private final int maxRequestBytes;
    private final KafkaServer.Settings networkSettings;
    private final int networkThreads;
    private final Path dataDir;
    private final String objectStorageUrl;
    /** The SASL settings of each SASL listener, by name. */
    private final Map<String, SaslListenerSettings> saslListeners;
    private final InterBrokerSecurity interBrokerSecurity;

    private BrokerConfig(ConfigValues v, Map<?, ?> props) {
        listeners = v.get(LISTENERS);
        List<ListenerAddress> advertised = v.get(ADVERTISED_LISTENERS);
        advertisedListeners = advertised == null || advertised.isEmpty() ? listeners : advertised;
        for (ListenerAddress a : advertisedListeners) {
            require(listeners.stream().anyMatch(l -> l.name().equals(a.name())), ADVERTISED_LISTENERS_CONFIG,
                    "listener " + a.name() + " is not in " + LISTENERS_CONFIG + "=" + ConfigKey.formatList(listeners));
        }
        Map<String, SecurityProtocol> map = v.get(SECURITY_PROTOCOL_MAP);
        Map<String, SecurityProtocol> byListener = new LinkedHashMap<>();
        Map<String, SslConfig> ssl = new LinkedHashMap<>();
        for (ListenerAddress l : listeners) {
            SecurityProtocol protocol = map.get(l.name());
            require(protocol != null, SECURITY_PROTOCOL_MAP_CONFIG, "listener " + l.name() + " has no security "
                    + "protocol in " + SECURITY_PROTOCOL_MAP_CONFIG + "=" + formatProtocolMap(map));
            require(SERVED_PROTOCOLS.contains(protocol), LISTENERS_CONFIG, "listener " + l.name() + " is "
                    + protocol + ", which is not served yet (served: " + SERVED_PROTOCOLS + ")");
            byListener.put(l.name(), protocol);
            if (protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL) {
                ssl.put(l.name(), SslConfig.forListener(l.name(), props, protocol == SecurityProtocol.SASL_SSL));
            }
        }
        protocols = java.util.Collections.unmodifiableMap(byListener);
        sslConfigs = java.util.Collections.unmodifiableMap(ssl);
        String interBroker = v.get(INTER_BROKER_LISTENER_NAME);
        if (interBroker == null || interBroker.isBlank()) {
            interBrokerListener = advertisedListeners.get(0).name();
        } else {
            interBrokerListener = interBroker.trim();
            require(advertisedListeners.stream().anyMatch(a -> a.name().equals(interBrokerListener)),
                    INTER_BROKER_LISTENER_NAME_CONFIG, "listener " + interBrokerListener + " is not advertised ("
                    + ADVERTISED_LISTENERS_CONFIG + "=" + ConfigKey.formatList(advertisedListeners) + ")");
        }
        String r = v.get(BROKER_RACK);
        rack = r == null || r.isBlank() ? null : r.trim();
        numPartitions = v.get(NUM_PARTITIONS);
        autoCreateTopics = v.get(AUTO_CREATE);
        transactionsEnabled = v.get(TRANSACTIONS_ENABLE);
        maxRequestBytes = v.get(MAX_REQUEST_BYTES);
        networkSettings = networkSettings(v, maxRequestBytes);
        networkThreads = v.get(NETWORK_THREADS);
        dataDir = v.get(DATA_DIR);
        String url = v.get(OBJECT_STORAGE_URL);
        objectStorageUrl = url != null ? url : dataDir.resolve("objects").toAbsolutePath().toUri().toString();
        Map<String, SaslListenerSettings> sasl = new LinkedHashMap<>();
        for (ListenerAddress l : listeners) {
            if (byListener.get(l.name()) == SecurityProtocol.SASL_PLAINTEXT
                    || byListener.get(l.name()) == SecurityProtocol.SASL_SSL) {
                sasl.put(l.name(), SaslConfig.forListener(props, l.name()));
            }
        }
        saslListeners = java.util.Collections.unmodifiableMap(sasl);
        // After the listener's own SASL settings, so their errors come first, as the server side reads them.
        interBrokerSecurity = InterBrokerSecurity.forListener(interBrokerListener, byListener.get(interBrokerListener),
                ssl.get(interBrokerListener), sasl.get(interBrokerListener), props);
    }

    /**
     * Reads the keys of {@link #DEFINITION} (other keys are ignored).
     *
     * @throws ConfigException naming the first bad key
     */
    public static BrokerConfig fromProperties(Map<?, ?> props) {
        return new BrokerConfig(DEFINITION.parse(props), props);
    }

    private static KafkaServer.Settings networkSettings(ConfigValues v, int maxRequestBytes) {
        Long queued = v.get(QUEUED_MAX_REQUEST_BYTES);
        long pool = queued != null ? queued : Math.max(1, Runtime.getRuntime().maxMemory() / 4);
        Long perConnection = v.get(CONNECTION_QUEUED_MAX_REQUEST_BYTES);
        long share = perConnection != null ? perConnection : pool == -1 ? -1 : Math.max(1, pool / 4);
        int perIp = v.get(MAX_CONNECTIONS_PER_IP);
        Map<String, Integer> overrides = v.get(MAX_CONNECTIONS_PER_IP_OVERRIDES);
        require(perIp > 0 || !overrides.isEmpty(), MAX_CONNECTIONS_PER_IP_CONFIG,
                "0 is allowed only with " + MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG);
        Map<InetAddress, Integer> resolved = new LinkedHashMap<>();
        overrides.forEach((host, count) -> {
            try {
                resolved.put(InetAddress.getByName(host), count);
            } catch (UnknownHostException e) {
                throw new ConfigException(MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG, "host '" + host
                        + "' does not resolve");
            }
        });
        return new KafkaServer.Settings(maxRequestBytes, pool, share == -1 ? Long.MAX_VALUE : share,
                v.get(CONNECTIONS_MAX_IDLE_MS), v.get(MAX_CONNECTIONS), perIp, resolved, Duration.ofMinutes(1));
    }

    /** {@code host:count,...} in order; a host twice, a bad count or an empty host is refused. */
    static Map<String, Integer> parseOverrides(String text) {
        Map<String, Integer> out = new LinkedHashMap<>();
        if (text.isBlank()) {
            return Map.of();
        }
        for (String part : text.split(",")) {
            String entry = part.trim();
            int colon = entry.lastIndexOf(':');
            require(colon > 0, MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG, "'" + entry + "' is not host:count");
            String host = entry.substring(0, colon).trim();
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int count;
            try {
                count = Integer.parseInt(entry.substring(colon + 1).trim());
            } catch (NumberFormatException e) {
                throw new ConfigException(MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG, "'" + entry
                        + "' has no valid count");
            }
            require(count >= 0, MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG, "count " + count + " of '" + entry
                    + "' is negative");
            require(out.put(host, count) == null, MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG, "host " + host
                    + " appears twice");
        }
        return java.util.Collections.unmodifiableMap(out);
    }

    static String formatOverrides(Map<String, Integer> overrides) {
        List<String> parts = new ArrayList<>();
        overrides.forEach((host, count) -> parts.add((host.contains(":") ? "[" + host + "]" : host) + ":" + count));
        return String.join(",", parts);
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
            require(LISTENER_NAME.matcher(name).matches(), key, "listener name '" + name + "' is not letters, "
                    + "digits, '_' and '-'");
            out.add(new ListenerAddress(name, host, port));
        }
        return List.copyOf(out);
    }

    /** Kafka's default listener.security.protocol.map: each protocol's name maps to itself. */
    private static Map<String, SecurityProtocol> defaultProtocolMap() {
        Map<String, SecurityProtocol> out = new LinkedHashMap<>();
        for (SecurityProtocol p : List.of(SecurityProtocol.PLAINTEXT, SecurityProtocol.SSL,
                SecurityProtocol.SASL_PLAINTEXT, SecurityProtocol.SASL_SSL)) {
            out.put(p.name, p);
        }
        return java.util.Collections.unmodifiableMap(out);
    }

    static Map<String, SecurityProtocol> parseProtocolMap(String text) {
        Map<String, SecurityProtocol> out = new LinkedHashMap<>();
        for (String part : text.split(",")) {
            String entry = part.trim();
            if (entry.isEmpty()) {
                continue;
            }
            int colon = entry.indexOf(':');
            require(colon > 0, SECURITY_PROTOCOL_MAP_CONFIG, "'" + entry + "' is not NAME:PROTOCOL");
            String name = entry.substring(0, colon).trim();
            String protocol = entry.substring(colon + 1).trim();
            require(SecurityProtocol.names().contains(protocol.toUpperCase(java.util.Locale.ROOT)),
                    SECURITY_PROTOCOL_MAP_CONFIG, "'" + protocol + "' of '" + entry + "' is not one of "
                    + SecurityProtocol.names());
            require(out.put(name, SecurityProtocol.forName(protocol.toUpperCase(java.util.Locale.ROOT))) == null,
                    SECURITY_PROTOCOL_MAP_CONFIG, "listener " + name + " appears twice");
        }
        return java.util.Collections.unmodifiableMap(out);
    }

    static String formatProtocolMap(Map<String, SecurityProtocol> map) {
        List<String> parts = new ArrayList<>();
        map.forEach((name, protocol) -> parts.add(name + ":" + protocol.name));
        return String.join(",", parts);
    }

    private static void require(boolean ok, String key, String message) {
        if (!ok) {
            throw new ConfigException(key, message);
        }
    }

    public List<ListenerAddress> listeners() {
        return listeners;
    }

    /** The SASL settings of listener {@code name}, or null if it is not a SASL listener. */
    public SaslListenerSettings saslSettings(String name) {
        return saslListeners.get(name);
    }

    public List<ListenerAddress> advertisedListeners() {
        return advertisedListeners;
    }

    /** The security protocol of listener {@code name} (one of {@link #listeners()}). */
    public SecurityProtocol securityProtocol(String name) {
        SecurityProtocol p = protocols.get(name);
        if (p == null) {
            throw new IllegalArgumentException("no listener " + name);
        }
        return p;
    }

    /** The TLS settings of each SSL listener, by name. */
    public Map<String, SslConfig> sslConfigs() {
        return sslConfigs;
    }

    /** How the inter-broker client secures its connections (the inter-broker listener's protocol and keys). */
    public InterBrokerSecurity interBrokerSecurity() {
        return interBrokerSecurity;
    }

    /** {@code inter.broker.listener.name}, or the first advertised listener's name. */
    public String interBrokerListener() {
        return interBrokerListener;
    }

    public int numPartitions() {
        return numPartitions;
    }

    public boolean autoCreateTopics() {
        return autoCreateTopics;
    }

    /** Whether the transaction coordinator and its APIs run ({@link #TRANSACTIONS_ENABLE_CONFIG}). */
    public boolean transactionsEnabled() {
        return transactionsEnabled;
    }

    public int maxRequestBytes() {
        return maxRequestBytes;
    }

    /** What the network layer enforces: frame size, request memory, idle time, connection limits. */
    public KafkaServer.Settings networkSettings() {
        return networkSettings;
    }

    public int networkThreads() {
        return networkThreads;
    }

    public Path dataDir() {
        return dataDir;
    }

    /** The object storage URL: {@code s3.url}, or a {@code file://} URL of {@code objects} under the data dir. */
    /** {@code broker.rack}, or null. */
    public String rack() {
        return rack;
    }

    public String objectStorageUrl() {
        return objectStorageUrl;
    }
}
