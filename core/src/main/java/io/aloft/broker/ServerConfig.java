package io.aloft.broker;

import io.aloft.broker.fetch.FetchSessionConfig;
import io.aloft.broker.group.GroupCoordinatorConfig;
import io.aloft.broker.share.ShareGroupConfig;
import io.aloft.broker.txn.TransactionCoordinatorConfig;
import io.aloft.broker.log.LogConfig;
import io.aloft.broker.log.cleaner.CleanerConfig;
import io.aloft.broker.interbroker.InterBrokerSecurity;
import io.aloft.broker.quota.QuotaConfig;
import io.aloft.broker.security.SslConfig;
import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigException;
import io.aloft.config.PathChecks;
import io.aloft.broker.security.sasl.SaslConfig;
import io.aloft.broker.security.acl.AuthorizerConfig;
import io.aloft.config.UnknownKeys;
import io.aloft.controller.ControllerConfig;
import io.aloft.metrics.CostConfig;
import io.aloft.metrics.MetricsConfig;
import io.aloft.stream.storage.ObjectStorages;
import io.aloft.stream.store.StreamStoreConfig;
import io.aloft.stream.wal.ObjectWalConfig;
import io.aloft.wal.WalConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Every setting of a broker process, parsed and checked before anything starts: the broker's
 * own keys, the controller's, the WAL's, the stream store's, the group coordinator's and the topic
 * defaults, each module reading its keys through its own definition, then the checks that span
 * modules, then — without writing anything — the paths the settings name. So a bad setting stops
 * the broker with one message naming the key before a WAL file is preallocated or a controller
 * log written.
 *
 * <p>Immutable.
 */
public final class ServerConfig {

    /** The keys a broker's properties may set, one definition per module, in README order. */
    public static final List<ConfigDefinition> DEFINITIONS = List.of(BrokerConfig.DEFINITION,
            SslConfig.DEFINITION, FetchSessionConfig.DEFINITION, ControllerConfig.DEFINITION, WalConfig.DEFINITION,
            ObjectWalConfig.DEFINITION, StreamStoreConfig.DEFINITION, GroupCoordinatorConfig.DEFINITION,
            TransactionCoordinatorConfig.DEFINITION, ShareGroupConfig.DEFINITION, LogConfig.BROKER_DEFINITION,
            CleanerConfig.DEFINITION, MetricsConfig.DEFINITION, CostConfig.DEFINITION, SaslConfig.DEFINITION,
            InterBrokerSecurity.DEFINITION, QuotaConfig.DEFINITION, AuthorizerConfig.DEFINITION);

    /** All of {@link #DEFINITIONS} in one: what a properties file may set, and which keys are dynamic. */
    public static final ConfigDefinition ALL = ConfigDefinition.combine("server", DEFINITIONS);

    /** Every table the README documents: the server's keys, then the topic configs. */
    public static final List<ConfigDefinition> DOCUMENTED;

    static {
        List<ConfigDefinition> documented = new ArrayList<>(DEFINITIONS);
        documented.add(LogConfig.TOPIC_DEFINITION);
        DOCUMENTED = List.copyOf(documented);
    }

    private final Map<String, String> properties;
    private final BrokerConfig broker;
    private final ControllerConfig controller;
    private final WalConfig wal;
    private final ObjectWalConfig objectWal;
    private final StreamStoreConfig store;
    private final GroupCoordinatorConfig groups;
    private final TransactionCoordinatorConfig transactions;
    private final ShareGroupConfig shares;
    private final LogConfig logDefaults;
    private final CleanerConfig cleaner;
    private final FetchSessionConfig fetchSessions;
    private final MetricsConfig metrics;
    private final CostConfig cost;
    private final AuthorizerConfig authorizer;
    private final QuotaConfig quotas;

    private ServerConfig(Map<String, String> given) {
        broker = BrokerConfig.fromProperties(given);
        // Defaults that follow the data dir, filled in so every module (and DescribeConfigs) sees them.
        Map<String, String> props = new HashMap<>(given);
        props.putIfAbsent(ControllerConfig.DATA_DIR_CONFIG, broker.dataDir().resolve("metadata").toString());
        props.putIfAbsent(WalConfig.PATH_CONFIG, broker.dataDir().resolve("wal").toString());
        properties = Map.copyOf(props);
        controller = ControllerConfig.fromProperties(props);
        wal = WalConfig.fromProperties(props);
        objectWal = ObjectWalConfig.fromProperties(props);
        store = StreamStoreConfig.fromProperties(controller.nodeId(), props);
        groups = GroupCoordinatorConfig.fromProperties(props);
        transactions = TransactionCoordinatorConfig.fromProperties(props);
        shares = ShareGroupConfig.fromProperties(props);
        logDefaults = LogConfig.fromBrokerProperties(props);
        cleaner = CleanerConfig.fromProperties(props);
        fetchSessions = FetchSessionConfig.fromProperties(props);
        metrics = MetricsConfig.fromProperties(props);
        cost = CostConfig.fromProperties(props);
        authorizer = AuthorizerConfig.fromProperties(props);
        quotas = QuotaConfig.fromProperties(props);
        if (objectWal.url() == null && store.logCacheSizeBytes() >= wal.capacityBytes()) {
            throw new ConfigException(StreamStoreConfig.LOG_CACHE_SIZE_CONFIG, store.logCacheSizeBytes()
                    + " is not below " + WalConfig.CAPACITY_CONFIG + "=" + wal.capacityBytes()
                    + ": data not yet uploaded is held in both");
        }
    }

    /**
     * Parses every module's keys from a broker's properties and checks the values against each
     * other. Touches no file.
     *
     * @throws ConfigException naming the first bad key (both keys for a clash)
     */
    public static ServerConfig fromProperties(Map<String, String> properties) {
        return new ServerConfig(properties);
    }

    /**
     * One warning per key no module reads (a typo leaves a setting at its default without one),
     * with the closest known key as a hint. Worth logging before {@link #fromProperties}: the
     * typo may be why a value fails.
     */
    public static List<String> unknownKeyWarnings(Map<String, String> properties) {
        // listener.name.<name>.<key>: known when <key> is (the per-listener form of a listener setting).
        List<String> out = new ArrayList<>();
        for (String key : new TreeSet<>(properties.keySet())) {
            if (SaslConfig.isListenerKey(key)) {
                continue; // read by SaslConfig (the mechanism-prefixed JAAS key has no unprefixed form here)
            }
            String plain = perListenerKey(key);
            for (String warning : UnknownKeys.warnings(List.of(plain), ALL.names())) {
                out.add(plain.equals(key) ? warning : warning.replace("'" + plain + "'", "'" + key + "'"));
            }
        }
        return out;
    }

    /** {@code key} without a {@code listener.name.<name>.} prefix; {@code key} itself if it has none. */
    private static String perListenerKey(String key) {
        if (!key.startsWith(SslConfig.LISTENER_PREFIX)) {
            return key;
        }
        int dot = key.indexOf('.', SslConfig.LISTENER_PREFIX.length());
        return dot < 0 ? key : key.substring(dot + 1);
    }

    /**
     * Checks, reading the file system only, that the broker can use the paths its settings name:
     * the data dir (exists or can be created, is a writable directory), this voter's metadata dir
     * likewise, the WAL file (exists and is writable, or its directory does — the data dir counts,
     * as the broker creates it) and a {@code file://} object store's directory.
     *
     * @throws ConfigException naming the key and the path
     */
    public void checkPaths() {
        Path dataDir = broker.dataDir();
        PathChecks.requireUsableDirectory(BrokerConfig.DATA_DIR_CONFIG, dataDir);
        if (controller.self() != null) {
            PathChecks.requireUsableDirectory(ControllerConfig.DATA_DIR_CONFIG, controller.dataDir());
        }
        Path walDir = wal.path().toAbsolutePath().normalize().getParent();
        boolean walDirIsDataDir = walDir != null && walDir.equals(dataDir.toAbsolutePath().normalize());
        PathChecks.requireWritableFile(WalConfig.PATH_CONFIG, wal.path(), walDirIsDataDir);
        ObjectStorages.localDirectory(broker.objectStorageUrl()).ifPresent(
                dir -> PathChecks.requireUsableDirectory(BrokerConfig.OBJECT_STORAGE_URL_CONFIG, dir));
    }

    /** The properties as given, plus the defaults that follow the data dir (metadata.log.dir, wal.path). */
    public Map<String, String> properties() {
        return properties;
    }

    public BrokerConfig broker() {
        return broker;
    }

    public ControllerConfig controller() {
        return controller;
    }

    public WalConfig wal() {
        return wal;
    }

    /** The WAL in object storage; its {@code url()} is null when the block WAL is used. */
    public ObjectWalConfig objectWal() {
        return objectWal;
    }

    public StreamStoreConfig store() {
        return store;
    }

    public TransactionCoordinatorConfig transactions() {
        return transactions;
    }

    /** Share groups' broker settings (KIP-932). */
    public ShareGroupConfig shares() {
        return shares;
    }

    public GroupCoordinatorConfig groups() {
        return groups;
    }

    public CleanerConfig cleaner() {
        return cleaner;
    }

    /** Object storage prices for the estimated cost meters. */
    public AuthorizerConfig authorizer() {
        return authorizer;
    }

    public CostConfig cost() {
        return cost;
    }

    public MetricsConfig metrics() {
        return metrics;
    }

    /** How client quotas measure rates. */
    public QuotaConfig quotas() {
        return quotas;
    }

    public FetchSessionConfig fetchSessions() {
        return fetchSessions;
    }

    /** The broker-wide topic defaults the properties set (dynamic values come on top at run time). */
    public LogConfig logDefaults() {
        return logDefaults;
    }
}
