package io.aloft.broker;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.config.ConfigResources;
import io.aloft.broker.config.DynamicBrokerConfigs;
import io.aloft.broker.group.GroupCoordinator;
import io.aloft.broker.group.GroupCoordinatorConfig;
import io.aloft.broker.group.MetadataTopicIds;
import io.aloft.broker.group.OffsetsTopic;
import io.aloft.broker.group.PartitionGroupLog;
import io.aloft.broker.group.SystemGroupTimer;
import io.aloft.broker.handler.AlterConfigsHandler;
import io.aloft.broker.handler.ApiVersionsHandler;
import io.aloft.broker.handler.CreatePartitionsHandler;
import io.aloft.broker.handler.CreateTopicsHandler;
import io.aloft.broker.handler.DeleteRecordsHandler;
import io.aloft.broker.handler.DeleteTopicsHandler;
import io.aloft.broker.handler.DescribeClusterHandler;
import io.aloft.broker.handler.DescribeConfigsHandler;
import io.aloft.broker.handler.DescribeLogDirsHandler;
import io.aloft.broker.handler.FetchHandler;
import io.aloft.broker.handler.GroupHandlers;
import io.aloft.broker.handler.IncrementalAlterConfigsHandler;
import io.aloft.broker.handler.InitProducerIdHandler;
import io.aloft.broker.handler.ListOffsetsHandler;
import io.aloft.broker.handler.MetadataHandler;
import io.aloft.broker.handler.ProduceHandler;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.network.KafkaServer;
import io.aloft.broker.network.RequestDispatcher;
import io.aloft.broker.partition.PartitionManager;
import io.aloft.broker.producer.ProducerIdManager;
import io.aloft.broker.topic.TopicManager;
import io.aloft.controller.ControllerConfig;
import io.aloft.controller.client.BrokerLifecycle;
import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.client.ControllerStreamMetadata;
import io.aloft.controller.client.MetadataWatcher;
import io.aloft.controller.command.PutKv;
import io.aloft.controller.model.Endpoint;
import io.aloft.controller.query.Queries;
import io.aloft.controller.server.ControllerServer;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorages;
import io.aloft.stream.store.StreamStore;
import io.aloft.wal.BlockDeviceWal;
import io.aloft.wal.WriteAheadLog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Aloft broker: the embedded controller voter (when this node is one), the stream store on
 * the WAL and object storage, the metadata cache fed by the controller's change feed, and the
 * Kafka protocol server. {@link #start} brings them up in dependency order; {@link #close} takes
 * them down in reverse, uploading the WAL tail before the controller goes.
 */
public final class Broker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Broker.class);

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final int nodeId;
    private KafkaServer server;
    private ObjectStorage storage;
    private String clusterId;

    private Broker(int nodeId) {
        this.nodeId = nodeId;
    }

    /**
     * Starts a broker from properties (Kafka-style keys; see the README). Every key of every module
     * is parsed and checked, and the paths they name checked, before anything is created or
     * started.
     *
     * @throws io.aloft.config.ConfigException naming the key for a bad setting
     */
    public static Broker start(Map<String, String> properties) throws Exception {
        ServerConfig.unknownKeyWarnings(properties).forEach(log::warn);
        ServerConfig settings = ServerConfig.fromProperties(properties);
        settings.checkPaths();

        Broker broker = new Broker(settings.controller().nodeId());
        try {
            broker.startComponents(settings);
            return broker;
        } catch (Exception | Error e) {
            broker.close();
            throw e;
        }
    }

    private void startComponents(ServerConfig settings) throws Exception {
        BrokerConfig config = settings.broker();
        ControllerConfig controllerConfig = settings.controller();
        Map<String, String> props = settings.properties();
        Files.createDirectories(config.dataDir());
        if (controllerConfig.self() != null) {
            resources.add(ControllerServer.start(controllerConfig));
        }
        ControllerClient controller = ControllerClient.create(controllerConfig);
        resources.add(controller);
        clusterId = clusterId(controller);

        WriteAheadLog wal = BlockDeviceWal.open(settings.wal());
        resources.add(wal);
        ObjectStorage storage = ObjectStorages.open(config.objectStorageUrl());
        this.storage = storage;
        resources.add(storage);
        StreamStore store = StreamStore.open(settings.store(), wal, storage, new ControllerStreamMetadata(controller));
        resources.add(store::close);

        MetadataCache cache = new MetadataCache();
        resources.add(MetadataWatcher.start(controller, cache));

        TopicManager topics = new TopicManager(controller, cache, config.numPartitions(),
                PartitionLog.STREAMS_PER_PARTITION);
        ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2, r -> {
            Thread t = new Thread(r, "broker-scheduler");
            t.setDaemon(true);
            return t;
        });
        resources.add(scheduler::shutdownNow);
        DynamicBrokerConfigs brokerConfigs = new DynamicBrokerConfigs(nodeId, controller, props, ServerConfig.ALL);
        brokerConfigs.start(scheduler, controllerConfig.requestTimeoutMs());
        PartitionManager partitions = new PartitionManager(nodeId, cache, store, new ControllerStreamMetadata(controller),
                brokerConfigs::logDefaults, System::currentTimeMillis, scheduler, 30_000);
        resources.add(partitions);
        brokerConfigs.onLogDefaultsChanged(c -> partitions.brokerDefaultsChanged());
        ConfigResources configs = new ConfigResources(cache, topics, brokerConfigs, partitions::configsChanged);
        GroupCoordinatorConfig groupConfig = settings.groups();
        SystemGroupTimer groupTimer = new SystemGroupTimer();
        resources.add(groupTimer);
        PartitionGroupLog groupLog = new PartitionGroupLog(partitions, System::currentTimeMillis);
        resources.add(groupLog);
        GroupCoordinator groups = new GroupCoordinator(groupConfig, groupLog, groupTimer, new MetadataTopicIds(cache));
        resources.add(groups);
        AtomicReference<RequestDispatcher> dispatcher = new AtomicReference<>();
        List<ApiHandler<?>> handlers = List.of(
                new ApiVersionsHandler(() -> dispatcher.get().apiVersions()),
                new MetadataHandler(cache, topics, config.autoCreateTopics(), clusterId, () -> nodeId),
                new CreateTopicsHandler(topics),
                new DeleteTopicsHandler(cache, topics),
                new CreatePartitionsHandler(cache, topics),
                new DescribeClusterHandler(cache, clusterId, () -> nodeId),
                new ProduceHandler(cache, partitions),
                new FetchHandler(cache, partitions, scheduler),
                new InitProducerIdHandler(new ProducerIdManager(controller, nodeId)),
                new ListOffsetsHandler(partitions),
                new DescribeConfigsHandler(configs),
                new AlterConfigsHandler(configs),
                new IncrementalAlterConfigsHandler(configs),
                new DeleteRecordsHandler(partitions),
                new DescribeLogDirsHandler(nodeId, cache, partitions, config.objectStorageUrl()));
        dispatcher.set(new RequestDispatcher(Stream.concat(handlers.stream(),
                GroupHandlers.create(groups, cache).stream()).toList()));
        server = KafkaServer.start(config.listeners().stream().map(BrokerConfig.ListenerAddress::toServerListener)
                .toList(), config.maxRequestBytes(), config.networkThreads(), dispatcher.get());
        resources.add(server); // closed again, first, by the controlled shutdown below (closing twice is harmless)

        List<Endpoint> endpoints = new ArrayList<>();
        for (BrokerConfig.ListenerAddress a : config.advertisedListeners()) {
            int port = a.port() == 0 ? server.port(a.name()) : a.port();
            String host = a.host().isEmpty() ? "127.0.0.1" : a.host();
            endpoints.add(new Endpoint(a.name(), host, port, "PLAINTEXT"));
        }
        BrokerLifecycle lifecycle = BrokerLifecycle.start(controller, nodeId, endpoints, null)
                .get(controllerConfig.requestTimeoutMs(), TimeUnit.MILLISECONDS);
        // Controlled shutdown, run first on close: stop taking requests, close the partition logs
        // (their data goes up to object storage), and only then let the controller move the
        // partitions, so the next owner opens streams that hold everything acknowledged here.
        resources.add(lifecycle);
        resources.add(() -> {
            try {
                lifecycle.drain().get(controllerConfig.requestTimeoutMs(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                log.warn("Broker {} could not drain; its partitions move once its session times out", nodeId, e);
            }
        });
        resources.add(partitions);
        // After registration: the controller places the topic's partitions on active brokers only.
        OffsetsTopic offsetsTopic = new OffsetsTopic(controller, cache, nodeId, groups,
                groupConfig.offsetsTopicPartitions());
        resources.add(offsetsTopic);
        offsetsTopic.start();
        resources.add(server);
        log.info("Broker {} of cluster {} started, epoch {}", nodeId, clusterId, lifecycle.brokerEpoch());
    }

    /** The cluster id: made once by the first broker and kept in the controller's key-value space. */
    private static String clusterId(ControllerClient controller) throws Exception {
        Queries.GetKv get = new Queries.GetKv("cluster.id");
        byte[] existing = controller.query(get, byte[].class).get(60, TimeUnit.SECONDS);
        if (existing == null) {
            controller.submit(new PutKv("cluster.id", Uuid.randomUuid().toString().getBytes(StandardCharsets.UTF_8)))
                    .get(60, TimeUnit.SECONDS);
            existing = controller.query(get, byte[].class).get(60, TimeUnit.SECONDS);
        }
        return new String(existing, StandardCharsets.UTF_8);
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

    /** The port a listener is bound to. */
    public int port(String listenerName) {
        return server.port(listenerName);
    }

    @Override
    public void close() {
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
