package io.aloft.broker;

import io.aloft.broker.config.ConfigResources;
import io.aloft.broker.coordinator.CoordinatorThreads;
import io.aloft.broker.coordinator.CoordinatorTopic;
import io.aloft.broker.coordinator.SystemCoordinatorTimer;
import io.aloft.broker.config.BrokerLoggers;
import io.aloft.broker.config.DynamicBrokerConfigs;
import io.aloft.broker.security.ListenerSecurity;
import io.aloft.broker.config.GroupConfigs;
import io.aloft.broker.security.SecurityMetadata;
import io.aloft.broker.security.ReloadableSslContext;
import io.aloft.broker.security.scram.ScramCredentials;
import io.aloft.broker.failover.WalFailover;
import io.aloft.broker.fetch.FetchSessionCache;
import io.aloft.broker.fetch.FetchSessionConfig;
import io.aloft.broker.fetch.FetchSessionStats;
import io.aloft.broker.group.GroupCoordinator;
import io.aloft.broker.group.GroupCoordinatorConfig;
import io.aloft.broker.group.MetadataTopicIds;
import io.aloft.broker.group.OffsetsTopic;
import io.aloft.broker.group.PartitionGroupLog;
import io.aloft.broker.lifecycle.CriticalScheduler;
import io.aloft.broker.interbroker.BrokerAddresses;
import io.aloft.broker.interbroker.InterBrokerClient;
import io.aloft.broker.interbroker.NetworkInterBrokerClient;
import io.aloft.broker.lifecycle.FatalFailureHandler;
import io.aloft.broker.lifecycle.NamedThreadFactory;
import io.aloft.broker.lifecycle.ProcessExit;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.log.cleaner.LogCleaner;
import io.aloft.broker.metrics.StorageMeters;
import io.aloft.broker.metrics.StorageWarnings;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.metrics.BrokerMetrics;
import io.aloft.broker.network.KafkaServer;
import io.aloft.broker.network.RequestDispatcher;
import io.aloft.broker.quota.ClientQuotaThrottle;
import io.aloft.broker.partition.PartitionManager;
import io.aloft.broker.producer.ProducerIdManager;
import io.aloft.broker.topic.TopicManager;
import io.aloft.config.ConfigException;
import io.aloft.controller.ControllerConfig;
import io.aloft.controller.client.BrokerLifecycle;
import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.client.ControllerStreamMetadata;
import io.aloft.controller.client.MetadataWatcher;
import io.aloft.controller.command.PutKv;
import io.aloft.controller.command.UnregisterBroker;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.WalMarkers;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.Endpoint;
import io.aloft.controller.model.FeatureLevel;
import io.aloft.controller.query.Queries;
import io.aloft.controller.server.ControllerServer;
import io.aloft.metrics.MetricsEndpoint;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorageOptions;
import io.aloft.stream.storage.ObjectStorages;
import io.aloft.stream.store.StreamStore;
import io.aloft.wal.WriteAheadLog;
import io.aloft.wal.device.WalDevice;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Aloft broker: the embedded controller voter (when this node is one), the stream store on
 * the WAL and object storage, the metadata cache fed by the controller's change feed, and the
 * Kafka protocol server. {@link #start} brings them up in dependency order; {@link #close} takes
 * them down in reverse, uploading the WAL tail before the controller goes.
 *
 * <p>A critical failure (the WAL failed, the stream store gave up, a broker thread died) goes to
 * the broker's {@link FatalFailureHandler}: heartbeats stop, listeners close, what writes no data
 * is closed, and the {@link ProcessExit} is called with {@link FatalFailureHandler#EXIT_STATUS}.
 * Every thread the broker creates carries that handler. After such a failure {@link #close} neither
 * drains nor uploads.
 *
 * <p>Thread-safe: started on one thread, closed on any.
 */
public final class Broker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Broker.class);

    /** What {@code /readyz} waits for, in order (see {@link io.aloft.metrics.Health}). */
    static final String WAL_RECOVERED = "wal recovered";
    static final String REGISTERED = "registered with the controller";
    static final String SERVING = "serving (not starting or draining)";

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final int nodeId;
    private final FatalFailureHandler failures;
    /** {@link FetchSessionConfig#MIN_EVICTION_MS}, shorter in tests that make sessions evict each other. */
    private final long fetchSessionEvictionMs;
    private FetchSessionCache fetchSessions;
    private KafkaServer server;
    private ObjectStorage storage;
    private ScheduledExecutorService scheduler;
    private LogCleaner logCleaner;
    /** Share-partition state (share groups part S); null with share groups off. */
    private BrokerShareState shareState;
    private PartitionManager partitions;
    private SecurityMetadata security;
    private GroupConfigs groupConfigs;
    private String clusterId;
    /** Set once the controller registered this broker: only then does a close leave the cluster. */
    private volatile boolean registered;
    /** Set once this broker left the cluster's metadata (UnregisterBroker) during a graceful close. */
    private volatile boolean unregistered;
    /** Meters, health and the HTTP endpoint: made first, closed last. */
    private MetricsEndpoint endpoint;
    /** Set when a close begins: the broker is no longer ready. */
    private volatile boolean closing;

    private Broker(int nodeId, ProcessExit exit, long fetchSessionEvictionMs) {
        this.nodeId = nodeId;
        this.failures = new FatalFailureHandler(nodeId, exit);
        this.fetchSessionEvictionMs = fetchSessionEvictionMs;
    }

    /**
     * Starts a broker from properties (Kafka-style keys; see the README). Every key of every module
     * is parsed and checked, and the paths they name checked, before anything is created or
     * started. After a critical failure the broker stops but the process keeps running
     * ({@link ProcessExit#keepRunning()}): for brokers embedded in another process, such as tests.
     *
     * @throws ConfigException naming the key for a bad setting
     */
    public static Broker start(Map<String, String> properties) throws Exception {
        return start(properties, ProcessExit.keepRunning());
    }

    /** As {@link #start(Map)}, ending the process through {@code exit} after a critical failure. */
    public static Broker start(Map<String, String> properties, ProcessExit exit) throws Exception {
        return start(properties, exit, FileChannel::open);
    }

    /** As {@link #start(Map, ProcessExit)}, opening the WAL's device through {@code walChannels} (a seam for tests). */
    static Broker start(Map<String, String> properties, ProcessExit exit, WalDevice.ChannelOpener walChannels)
            throws Exception {
        return start(properties, exit, walChannels, FetchSessionConfig.MIN_EVICTION_MS);
    }

    /**
     * As {@link #start(Map, ProcessExit, WalDevice.ChannelOpener)}, with fetch sessions evictable
     * after {@code fetchSessionEvictionMs} rather than Kafka's 2 minutes (a seam for tests).
     */
    static Broker start(Map<String, String> properties, ProcessExit exit, WalDevice.ChannelOpener walChannels,
            long fetchSessionEvictionMs) throws Exception {
        ServerConfig.unknownKeyWarnings(properties).forEach(log::warn);
        ServerConfig settings = ServerConfig.fromProperties(properties);
        if (settings.controller().controllerOnly()) {
            throw new ConfigException(ControllerConfig.PROCESS_ROLES_CONFIG,
                    "controller: this process runs no broker (BrokerMain runs it as a controller voter)");
        }
        settings.checkPaths();

        Broker broker = new Broker(settings.controller().nodeId(), exit, fetchSessionEvictionMs);
        try {
            broker.startComponents(settings, walChannels);
            return broker;
        } catch (Exception | Error e) {
            broker.close();
            throw e;
        }
    }

    /**
     * Starts the components in dependency order. Each goes into {@link #resources} (the graceful
     * close, in reverse) and, if closing it writes no data, into the failure handler's list too.
     */
    /**
     * The listeners to bind, an SSL one with its TLS context built (key and trust stores loaded).
     *
     * @throws io.aloft.config.ConfigException naming the ssl.* key that cannot be used
     */
    private static List<KafkaServer.Listener> serverListeners(BrokerConfig config) {
        List<KafkaServer.Listener> out = new ArrayList<>();
        for (BrokerConfig.ListenerAddress a : config.listeners()) {
            out.add(new KafkaServer.Listener(a.name(), a.host(), a.port(),
                    ListenerSecurity.of(config.securityProtocol(a.name()), config.sslConfigs().get(a.name())),
                    config.saslSettings(a.name())));
        }
        return out;
    }

    private void startComponents(ServerConfig settings, WalDevice.ChannelOpener walChannels) throws Exception {
        BrokerConfig config = settings.broker();
        ControllerConfig controllerConfig = settings.controller();
        Map<String, String> props = settings.properties();
        // TLS contexts first: a missing key store or a wrong password stops the start before anything runs.
        List<KafkaServer.Listener> listeners = serverListeners(config);
        MetricsEndpoint endpoint = MetricsEndpoint.start(settings.metrics(),
                List.of(WAL_RECOVERED, REGISTERED, SERVING));
        this.endpoint = endpoint;
        resources.add(endpoint);
        endpoint.health().livenessFrom(() -> !failures.failed());
        Files.createDirectories(config.dataDir());
        if (controllerConfig.self() != null) {
            ControllerServer voter = ControllerServer.start(controllerConfig);
            resources.add(voter);
            voter.bindMeters(endpoint.registry());
            failures.closeOnFailure("controller voter", voter);
            // A voter whose build cannot follow the cluster's finalized feature level stops itself; a
            // broker left without its embedded voter must not linger half alive either.
            voter.failure().thenAccept(cause -> failures.fail("controller voter", cause));
        }
        ControllerClient controller = ControllerClient.create(controllerConfig, failures);
        resources.add(controller);
        failures.closeOnFailure("controller client", controller);
        // Closed after everything that writes through the controller (the store's last upload included).
        resources.add(() -> leaveCluster(controller, controllerConfig));
        clusterId = ClusterIdElection.clusterId(controller, nodeId);

        String walUrl = settings.objectWal().url();
        ObjectStorage walStorage = walUrl == null ? null : BrokerWal.openStorage(walUrl, failures, resources);
        WriteAheadLog wal = BrokerWal.open(settings, nodeId, walStorage, walChannels, failures);
        resources.add(wal);
        failures.closeOnFailure("WAL", wal);
        // Where this run's WAL lives, before it registers: whoever recovers it after a failure looks here.
        String walLocation = walUrl != null ? WalFailover.objectLocation(walUrl)
                : WalFailover.blockLocation(settings.wal().path());
        controller.submit(new PutKv(WalMarkers.key(WalMarkers.LOCATION_PREFIX, nodeId),
                walLocation.getBytes(StandardCharsets.UTF_8))).get(controllerConfig.requestTimeoutMs(),
                TimeUnit.MILLISECONDS);
        ObjectStorage storage = ObjectStorages.open(config.objectStorageUrl(),
                ObjectStorageOptions.builder().uncaughtExceptionHandler(failures).build());
        this.storage = storage;
        resources.add(storage);
        failures.closeOnFailure("object storage", storage);
        StreamStore store = StreamStore.builder(settings.store(), wal, storage, new ControllerStreamMetadata(controller))
                .failureListener(cause -> failures.fail("stream store", cause))
                .uncaughtExceptionHandler(failures).open();
        resources.add(store::close);
        failures.closeOnFailure("stream store (aborted, nothing uploaded)", store::abort);
        endpoint.health().done(WAL_RECOVERED); // the store replays the WAL as it opens

        MetadataCache cache = new MetadataCache();
        SecurityMetadata security = new SecurityMetadata(controller);
        this.security = security;
        ScramCredentials scram = new ScramCredentials(security);
        MetadataWatcher watcher = MetadataWatcher.start(controller, MetadataWatcher.Listener.all(cache, security),
                failures);
        resources.add(watcher);
        failures.closeOnFailure("metadata watcher", watcher);

        TopicManager topics = new TopicManager(controller, cache, config.numPartitions(),
                PartitionLog.STREAMS_PER_PARTITION);
        // Every task on it is critical: partition maintenance, dynamic-config refresh, fetch timers.
        ScheduledExecutorService scheduler = new CriticalScheduler("broker-scheduler", 2, failures);
        this.scheduler = scheduler;
        resources.add(scheduler::shutdownNow);
        failures.closeOnFailure("broker scheduler", scheduler::shutdownNow);
        for (KafkaServer.Listener l : listeners) {
            ReloadableSslContext tls = l.security().tlsContext();
            if (tls != null && tls.checkIntervalMs() > 0) {
                // reloadIfChanged never throws, so a bad renewed file cannot fail this critical scheduler.
                scheduler.scheduleWithFixedDelay(tls::reloadIfChanged, tls.checkIntervalMs(), tls.checkIntervalMs(),
                        TimeUnit.MILLISECONDS);
            }
        }
        DynamicBrokerConfigs brokerConfigs = new DynamicBrokerConfigs(nodeId, controller, props, ServerConfig.ALL);
        brokerConfigs.start(scheduler, controllerConfig.requestTimeoutMs());
        // A fenced broker's WAL is recovered by a live one, and its partitions' new owners wait for that.
        WalFailover failover = new WalFailover(nodeId, cache, controller, walStorage, walUrl, store, failures).start();
        resources.add(failover);
        failures.closeOnFailure("WAL failover", failover);
        PartitionManager partitions = new PartitionManager(nodeId, cache, store, new ControllerStreamMetadata(controller),
                failover::recovered, brokerConfigs::logDefaults, System::currentTimeMillis, scheduler, 30_000);
        resources.add(partitions);
        this.partitions = partitions;
        brokerConfigs.onLogDefaultsChanged(c -> partitions.brokerDefaultsChanged());
        // Group configs (GROUP config resources), kept in the watched security metadata; also the
        // share groups' settings source (session O of share groups).
        GroupConfigs groupConfigs = new GroupConfigs(security, settings.shares());
        this.groupConfigs = groupConfigs;
        ConfigResources configs = new ConfigResources(cache, topics, brokerConfigs, new BrokerLoggers(nodeId),
                groupConfigs, partitions::configsChanged);
        GroupCoordinatorConfig groupConfig = settings.groups();
        SystemCoordinatorTimer coordinatorTimer = new SystemCoordinatorTimer(
                new NamedThreadFactory("aloft-coordinator-timer", true, failures));
        resources.add(coordinatorTimer);
        failures.closeOnFailure("coordinator timer", coordinatorTimer);
        CoordinatorThreads groupThreads = CoordinatorThreads.fixed(groupConfig.coordinatorThreads(),
                new NamedThreadFactory("aloft-group-coordinator", true, failures));
        resources.add(groupThreads);
        failures.closeOnFailure("group coordinator threads", groupThreads);
        MetadataTopicIds topicIds = new MetadataTopicIds(cache);
        GroupCoordinator groups = new GroupCoordinator(groupConfig,
                new PartitionGroupLog(partitions, System::currentTimeMillis), coordinatorTimer, topicIds, topicIds,
                groupThreads);
        resources.add(groups);
        ProducerIdManager producerIds = new ProducerIdManager(controller, nodeId);
        // Requests to other brokers (transaction markers to partition leaders). Made before what uses
        // it, so it closes after them (resources close in reverse).
        String interBrokerListener = config.interBrokerListener();
        InterBrokerClient interBroker = new NetworkInterBrokerClient(nodeId,
                BrokerAddresses.fromCache(cache, interBrokerListener), interBrokerListener,
                config.interBrokerSecurity(), new NamedThreadFactory("aloft-inter-broker-sender", true, failures));
        resources.add(interBroker);
        failures.closeOnFailure("inter-broker client", interBroker);
        BrokerTransactions transactions = config.transactionsEnabled() ? BrokerTransactions.create(
                settings.transactions(), controller, cache, nodeId, partitions, producerIds, coordinatorTimer,
                interBroker, groups::completeTransaction, failures, resources) : null;
        // Share groups (KIP-932), durable share-partition state: the share coordinator on
        // __share_group_state, its APIs and the persister the other share parts use.
        BrokerShareState shareState = settings.shares().enabled() ? BrokerShareState.create(settings.shares(),
                controller, cache, nodeId, partitions, coordinatorTimer, interBroker, failures, resources) : null;
        this.shareState = shareState;
        BrokerApis.ShareFetchComponents shareFetch = shareState == null ? null
                : shareState.serveShareGroups(settings.shares(), partitions, cache, groupConfigs, groups,
                        coordinatorTimer, resources);
        fetchSessions = new FetchSessionCache(settings.fetchSessions().cacheSlots(), fetchSessionEvictionMs,
                System::currentTimeMillis, () -> ThreadLocalRandom.current().nextInt(), new FetchSessionStats());
        CoordinatorTopic offsetsTopic = OffsetsTopic.follower(controller, cache, nodeId, groups,
                groupConfig.offsetsTopicPartitions(), new NamedThreadFactory("aloft-group-loader", true, failures));
        // Request, connection, topic, partition and group-lag meters (see README "Broker meters").
        // The group lag asks partition leaders for their high watermarks over the inter-broker client
        // (made before, so closed after it).
        BrokerMetrics brokerMetrics = BrokerMetrics.bind(endpoint.metrics(), settings.metrics(), nodeId, cache,
                partitions, groups, fetchSessions, interBroker,
                new NamedThreadFactory("aloft-group-lag", true, failures));
        resources.add(brokerMetrics);
        // Client quotas, kept by the controller in the security metadata (see README "Quotas").
        ClientQuotaThrottle quotas = new ClientQuotaThrottle(settings.quotas(), System::currentTimeMillis,
                endpoint.registry()).follow(security);
        RequestDispatcher dispatcher = BrokerApis.dispatcher(new BrokerApis.Components(nodeId, settings, clusterId,
                controller, cache, topics, scheduler, partitions, brokerMetrics, fetchSessions, producerIds, configs,
                scram, security, groups, offsetsTopic, transactions, shareState, quotas, shareFetch));
        // SASL listeners check SCRAM exchanges against the cluster's credentials.
        listeners = listeners.stream().map(l -> l.sasl() == null ? l : new KafkaServer.Listener(l.name(), l.host(),
                l.port(), l.security(), l.sasl().withScram(scram))).toList();
        server = KafkaServer.start(listeners, config.networkSettings(), config.networkThreads(), dispatcher, failures,
                endpoint.registry());
        resources.add(server); // closed again, earlier, by the controlled shutdown below (closing twice is harmless)
        failures.closeListenersWith(server);

        List<Endpoint> endpoints = new ArrayList<>();
        for (BrokerConfig.ListenerAddress a : config.advertisedListeners()) {
            int port = a.port() == 0 ? server.port(a.name()) : a.port();
            String host = a.host().isEmpty() ? "127.0.0.1" : a.host();
            endpoints.add(new Endpoint(a.name(), host, port, config.securityProtocol(a.name()).name));
        }
        BrokerLifecycle lifecycle = BrokerLifecycle.start(controller, nodeId, endpoints, config.rack(), failures)
                .get(controllerConfig.requestTimeoutMs(), TimeUnit.MILLISECONDS);
        registered = true;
        endpoint.health().readyWhen(REGISTERED, lifecycle::leaseValid);
        partitions.acknowledgeOnlyWhile(lifecycle::leaseValid);
        failures.stopHeartbeatsWith(lifecycle);
        resources.add(lifecycle);
        // The listeners close only once this broker has handed its partitions over: until then clients
        // get NOT_LEADER_OR_FOLLOWER naming each partition's new leader, as from Kafka's controlled
        // shutdown, rather than a refused connection and a metadata round trip.
        resources.add(server);
        resources.add(() -> handOver(partitions, lifecycle, controller, controllerConfig));
        // Closed before the partition logs (resources close in reverse): no cleaning outlives its log.
        LogCleaner cleaner = new LogCleaner(settings.cleaner(), () -> partitions.openLogs().values(),
                () -> controller.featureLevel() >= FeatureLevel.KEY_COMPACTION, System::currentTimeMillis,
                new CriticalScheduler("aloft-log-cleaner", settings.cleaner().threads(), failures));
        this.logCleaner = cleaner;
        resources.add(cleaner);
        failures.closeOnFailure("log cleaner", cleaner);
        cleaner.start();
        StorageMeters.bind(endpoint.registry(), settings.cost(), wal, walStorage, storage, store, failover, partitions,
                cleaner);
        new StorageWarnings(wal.stats(), store.stats(), storage.stats(), walStorage == null ? null : walStorage.stats())
                .start(scheduler);
        // After registration, and only now that this broker serves: the coordinator loads the
        // partitions it leads (the topic itself is made on the first FindCoordinator).
        resources.add(offsetsTopic);
        failures.closeOnFailure("group loader", offsetsTopic);
        offsetsTopic.start();
        if (transactions != null) {
            transactions.start(failures, resources);
        }
        if (shareState != null) {
            shareState.start(failures, resources);
        }
        // Controlled shutdown, the first step of a graceful close: the controller marks this broker
        // DRAINING and moves its partitions to active brokers, which open them only once this broker
        // has closed them (their data up in object storage; see handOver and PartitionHandoffs).
        // Marking it first, not after the upload, lets the other brokers of a cluster stopped as a
        // whole see it is stopping and keep their voters up for it (leaveCluster).
        resources.add(() -> {
            try {
                lifecycle.drain().get(controllerConfig.requestTimeoutMs(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                log.warn("Broker {} could not drain; its partitions move once its session times out", nodeId, e);
            }
        });
        if (failures.failed()) {
            throw new IllegalStateException("broker " + nodeId + " failed while starting; see the critical failure "
                    + "logged above");
        }
        endpoint.health().readyWhen(SERVING, () -> !closing);
        log.info("Broker {} of cluster {} started, epoch {}", nodeId, clusterId, lifecycle.brokerEpoch());
    }

    /**
     * The step of a graceful close after the drain: closes every partition log at once (each close
     * makes what only this broker's WAL holds durable in object storage and closes the streams; the
     * stream store puts the closing logs' data into as few objects as it can), then leaves the
     * cluster's metadata right away. The brokers that now serve those partitions wait for this one
     * to let go of them (PartitionHandoffs), and its leaving reaches them all at once through the
     * change feed, where each partition's stream would otherwise be asked after one by one.
     * Heartbeats stop first: one after UnregisterBroker would register this broker again. If a log
     * did not close cleanly, this broker stays registered until the stream store's own close has
     * uploaded what it holds ({@link #leaveCluster}).
     */
    private void handOver(PartitionManager partitions, BrokerLifecycle lifecycle, ControllerClient controller,
            ControllerConfig config) {
        long start = System.nanoTime();
        int count = partitions.openLogs().size();
        if (!partitions.closeLogs()) {
            log.warn("Broker {}: not every partition log closed cleanly; it leaves the cluster once its stream store "
                    + "has uploaded what it holds", nodeId);
            return;
        }
        lifecycle.close();
        if (!registered) {
            return;
        }
        try {
            controller.submit(new UnregisterBroker(nodeId)).get(config.requestTimeoutMs(), TimeUnit.MILLISECONDS);
            unregistered = true;
            log.info("Broker {} handed over its {} partitions in {} ms and left the cluster", nodeId, count,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.warn("Broker {} could not leave the cluster's metadata after closing its partitions; it tries again "
                    + "once its stream store is closed", nodeId, e);
        }
    }

    /**
     * The last step of a graceful close, once this broker's data is uploaded: it leaves the
     * cluster's metadata (UnregisterBroker), and, when it embeds a voter, keeps that voter up while
     * another broker is still shutting down (DRAINING), for at most the controller request timeout.
     * Brokers of a cluster stopped together would otherwise take their voters down under the ones
     * still uploading, and the last of them would wait out its timeouts without a quorum.
     */
    private void leaveCluster(ControllerClient controller, ControllerConfig config) {
        if (!registered) {
            return; // a start that failed before registering: nothing to leave
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.requestTimeoutMs());
        try {
            if (!unregistered) {
                controller.submit(new UnregisterBroker(nodeId)).get(config.requestTimeoutMs(), TimeUnit.MILLISECONDS);
            }
            if (config.self() == null) {
                return;
            }
            boolean said = false;
            while (System.nanoTime() < deadline) {
                ClusterImage image = controller.query(new Queries.DescribeCluster(), ClusterImage.class)
                        .get(config.requestTimeoutMs(), TimeUnit.MILLISECONDS);
                List<Integer> stopping = image.brokers().stream().filter(b -> b.state() == BrokerState.DRAINING)
                        .map(BrokerInfo::brokerId).toList();
                if (stopping.isEmpty()) {
                    return;
                }
                if (!said) {
                    log.info("Broker {}: keeping its controller voter up while brokers {} shut down", nodeId, stopping);
                    said = true;
                }
                TimeUnit.MILLISECONDS.sleep(200);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.warn("Broker {} could not leave the cluster's metadata cleanly; it is fenced once its session times "
                    + "out", nodeId, e);
        }
    }

    /**
     * How many requests of {@code key} at {@code version} this broker has dispatched (tests: which
     * versions clients use); the count {@code kafka_network_requestmetrics_requests_total} serves.
     */
    public long requestsDispatched(org.apache.kafka.common.protocol.ApiKeys key, short version) {
        return server.requests(key, version);
    }

    public int nodeId() {
        return nodeId;
    }

    public String clusterId() {
        return clusterId;
    }

    /** Requests and bytes this broker sent to object storage, by operation (tests, metrics). */
    public io.aloft.stream.storage.ObjectStorageStats objectStorageStats() {
        return storage.stats();
    }

    /** The request memory pool of the client listeners now (tests, metrics). */
    public io.aloft.broker.network.KafkaServer.RequestMemoryStats requestMemoryStats() {
        return server.requestMemoryStats();
    }

    /** This broker's incremental fetch sessions (tests, metrics). */
    public FetchSessionCache fetchSessions() {
        return fetchSessions;
    }

    /** This broker's meters, health and HTTP endpoint (see {@code metrics.listener}). */
    public MetricsEndpoint metrics() {
        return endpoint;
    }

    /** The port a listener is bound to. */
    public int port(String listenerName) {
        return server.port(listenerName);
    }

    /** Whether a critical failure stopped (or is stopping) this broker. */
    public boolean failed() {
        return failures.failed();
    }

    /**
     * Waits until the stop after a critical failure has finished (with a real process exit it never
     * returns true). False on timeout.
     */
    public boolean awaitFailureStop(long timeout, TimeUnit unit) throws InterruptedException {
        return failures.awaitStopped(timeout, unit);
    }

    /** The partitions this broker serves (tests reach partition logs through it). */
    PartitionManager partitions() {
        return partitions;
    }

    /** The group configs, also the share groups' settings (null until started). */
    public GroupConfigs groupConfigs() {
        return groupConfigs;
    }

    /** The cluster's credentials, ACLs and quotas as this broker sees them (tests wait on it). */
    public SecurityMetadata security() {
        return security;
    }

    /**
     * Where this broker's share partitions keep their state (KIP-932): each call goes to the share
     * coordinator of its key, here or on another broker. Null with share groups off.
     */
    public io.aloft.broker.share.state.ShareStatePersister shareStatePersister() {
        return shareState == null ? null : shareState.persister();
    }

    /** The log cleaner (tests run cleanings through it). */
    public LogCleaner logCleaner() {
        return logCleaner;
    }

    /** The broker's scheduler, whose tasks are all critical (tests inject a failing task here). */
    ScheduledExecutorService scheduler() {
        return scheduler;
    }

    /**
     * Shuts down gracefully: drains (the controller moves this broker's partitions to others),
     * closes the partition logs (uploading what only the WAL holds), leaves the cluster, closes the
     * listeners (which answer until then, pointing clients at the new leaders), then stops the
     * rest. After a critical failure it does none of that (no drain, no upload): it waits for the
     * failure handler's stop to finish instead.
     */
    @Override
    public void close() {
        closing = true;
        if (failures.failed()) {
            try {
                if (!failures.awaitStopped(FatalFailureHandler.STOP_TIMEOUT_MS_DEFAULT + 5_000,
                        TimeUnit.MILLISECONDS)) {
                    log.warn("Broker {}: the stop after its critical failure has not finished", nodeId);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (endpoint != null) {
                endpoint.close(); // a process kept running after the failure (embedded) lets go of the port
            }
            resources.clear();
            return;
        }
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception e) {
                log.warn("Error closing {}", resources.get(i), e);
            }
        }
        resources.clear();
    }
}
