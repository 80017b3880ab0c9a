package io.aloft.broker;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.config.ConfigResources;
import io.aloft.broker.coordinator.CoordinatorTopic;
import io.aloft.broker.failover.BrokerRemoval;
import io.aloft.broker.fetch.FetchSessionCache;
import io.aloft.broker.fetch.FetchSessionManager;
import io.aloft.broker.group.GroupCoordinator;
import io.aloft.broker.group.PartitionGroupLog;
import io.aloft.broker.handler.AlterClientQuotasHandler;
import io.aloft.broker.handler.AlterConfigsHandler;
import io.aloft.broker.handler.AlterPartitionReassignmentsHandler;
import io.aloft.broker.handler.AlterShareGroupOffsetsHandler;
import io.aloft.broker.handler.AlterUserScramCredentialsHandler;
import io.aloft.broker.handler.ApiVersionsHandler;
import io.aloft.broker.handler.CreateAclsHandler;
import io.aloft.broker.handler.CreatePartitionsHandler;
import io.aloft.broker.handler.CreateTopicsHandler;
import io.aloft.broker.handler.DeleteAclsHandler;
import io.aloft.broker.handler.DeleteRecordsHandler;
import io.aloft.broker.handler.DeleteShareGroupOffsetsHandler;
import io.aloft.broker.handler.DeleteTopicsHandler;
import io.aloft.broker.handler.DescribeAclsHandler;
import io.aloft.broker.handler.DescribeClientQuotasHandler;
import io.aloft.broker.handler.DescribeClusterHandler;
import io.aloft.broker.handler.DescribeConfigsHandler;
import io.aloft.broker.handler.DescribeLogDirsHandler;
import io.aloft.broker.handler.DescribeProducersHandler;
import io.aloft.broker.handler.DescribeShareGroupOffsetsHandler;
import io.aloft.broker.handler.DescribeUserScramCredentialsHandler;
import io.aloft.broker.handler.FetchHandler;
import io.aloft.broker.handler.GroupHandlers;
import io.aloft.broker.handler.IncrementalAlterConfigsHandler;
import io.aloft.broker.handler.InitProducerIdHandler;
import io.aloft.broker.handler.KafkaFeatures;
import io.aloft.broker.handler.ListOffsetsHandler;
import io.aloft.broker.handler.ListPartitionReassignmentsHandler;
import io.aloft.broker.handler.MetadataHandler;
import io.aloft.broker.handler.OffsetForLeaderEpochHandler;
import io.aloft.broker.handler.ProduceHandler;
import io.aloft.broker.handler.SaslAuthenticateHandler;
import io.aloft.broker.handler.ShareGroupDescribeHandler;
import io.aloft.broker.handler.ShareGroupHeartbeatHandler;
import io.aloft.broker.handler.SaslHandshakeHandler;
import io.aloft.broker.handler.ShareAcknowledgeHandler;
import io.aloft.broker.handler.ShareFetchHandler;
import io.aloft.broker.handler.UnregisterBrokerHandler;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.metrics.BrokerMetrics;
import io.aloft.broker.network.RequestDispatcher;
import io.aloft.broker.partition.PartitionManager;
import io.aloft.broker.producer.ProducerIdManager;
import io.aloft.broker.quota.ClientQuotaThrottle;
import io.aloft.broker.security.Principal;
import io.aloft.broker.security.SecurityMetadata;
import io.aloft.broker.share.ShareGroupDirectory;
import io.aloft.broker.share.state.ShareStatePersister;
import io.aloft.broker.security.acl.Authorizer;
import io.aloft.broker.security.acl.AuthorizerConfig;
import io.aloft.broker.security.scram.ScramCredentials;
import io.aloft.broker.share.ShareGroupSettingsSource;
import io.aloft.broker.share.fetch.ShareSessionCache;
import io.aloft.broker.share.partition.SharePartitions;
import io.aloft.broker.topic.TopicManager;
import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka APIs a broker serves: one handler per API, wired to the components it reads and
 * changes, behind one dispatcher that applies the client quotas and the authorizer. Split from
 * {@link Broker}, which starts the components in order and hands them over here once they exist.
 *
 * <p>Used once, on the thread starting the broker; what it returns is thread-safe.
 */
final class BrokerApis {
    private static final Logger log = LoggerFactory.getLogger(BrokerApis.class);

    private BrokerApis() {
    }

    /**
     * The broker's components the handlers are wired to, all started.
     *
     * @param shares what ShareFetch and ShareAcknowledge are served from, or null: not served
     */
    record Components(int nodeId, ServerConfig settings, String clusterId, ControllerClient controller,
            MetadataCache cache, TopicManager topics, ScheduledExecutorService scheduler, PartitionManager partitions,
            BrokerMetrics brokerMetrics, FetchSessionCache fetchSessions, ProducerIdManager producerIds,
            ConfigResources configs, ScramCredentials scram, SecurityMetadata security, GroupCoordinator groups,
            CoordinatorTopic offsetsTopic, BrokerTransactions transactions, BrokerShareState shareState,
            ClientQuotaThrottle quotas, ShareFetchComponents shares) {
    }

    /**
     * Share groups, part F: the share partitions this broker leads, the share sessions (which the
     * group coordinator's {@link io.aloft.broker.share.ShareGroupListener} should reach through
     * {@link ShareSessionCache#memberLeft}, so a member gone releases its records at once), and
     * each group's settings (its lock duration is ShareFetch's AcquisitionLockTimeoutMs).
     */
    record ShareFetchComponents(SharePartitions partitions, ShareSessionCache sessions,
            ShareGroupSettingsSource settings) {
    }

    /** The dispatcher of every API served, transactions' only when they are enabled. */
    static RequestDispatcher dispatcher(Components c) {
        int nodeId = c.nodeId();
        ServerConfig settings = c.settings();
        BrokerConfig config = settings.broker();
        MetadataCache cache = c.cache();
        TopicManager topics = c.topics();
        PartitionManager partitions = c.partitions();
        BrokerTransactions transactions = c.transactions();
        ScheduledExecutorService scheduler = c.scheduler();
        AtomicReference<RequestDispatcher> dispatcher = new AtomicReference<>();
        // Metadata's and DescribeCluster's "controller": clients send it what Kafka routes to its
        // controller, and any broker here handles those. Kafka's brokers name a random live broker;
        // the lowest active one gives every broker the same answer.
        IntSupplier controllerId = () -> cache.view().brokers().values().stream()
                .filter(b -> b.state() == BrokerState.ACTIVE)
                .mapToInt(BrokerInfo::brokerId).min().orElse(nodeId);
        List<ApiHandler<?>> handlers = List.of(
                new ApiVersionsHandler(() -> dispatcher.get().apiVersions(), features(settings, transactions != null)),
                new MetadataHandler(cache, topics, config.autoCreateTopics(), c.clusterId(), controllerId),
                new CreateTopicsHandler(topics),
                new DeleteTopicsHandler(cache, topics),
                new CreatePartitionsHandler(cache, topics),
                new AlterPartitionReassignmentsHandler(cache, topics),
                new ListPartitionReassignmentsHandler(),
                new DescribeClusterHandler(cache, c.clusterId(), controllerId),
                new UnregisterBrokerHandler(new BrokerRemoval(c.controller(), scheduler)),
                new ProduceHandler(cache, partitions, transactions != null, c.brokerMetrics().topics()),
                new FetchHandler(cache, partitions, scheduler, new FetchSessionManager(c.fetchSessions()),
                        c.brokerMetrics().topics()),
                new InitProducerIdHandler(c.producerIds(), transactions == null ? null : transactions.coordinator),
                new ListOffsetsHandler(partitions),
                new OffsetForLeaderEpochHandler(partitions),
                new DescribeProducersHandler(partitions),
                new DescribeConfigsHandler(c.configs()),
                new AlterConfigsHandler(c.configs()),
                new IncrementalAlterConfigsHandler(c.configs()),
                new DeleteRecordsHandler(partitions),
                new DescribeLogDirsHandler(nodeId, cache, partitions, config.objectStorageUrl()),
                new SaslHandshakeHandler(),
                new SaslAuthenticateHandler(scheduler),
                new CreateAclsHandler(),
                new DescribeAclsHandler(),
                new DeleteAclsHandler(),
                new AlterUserScramCredentialsHandler(c.scram()),
                new DescribeUserScramCredentialsHandler(c.scram()),
                new AlterClientQuotasHandler(c.security()),
                new DescribeClientQuotasHandler(c.security()));
        List<ApiHandler<?>> all = new ArrayList<>(handlers);
        all.addAll(GroupHandlers.create(c.groups(), cache, () -> c.offsetsTopic().ensureCreated().exceptionally(e -> {
            log.warn("Could not create {} (the next FindCoordinator tries again)", PartitionGroupLog.TOPIC, e);
            return null;
        }), transactions == null ? null : transactions.coordinatorKeys(),
                c.shareState() == null ? null : c.shareState().coordinatorKeys()));
        if (transactions != null) {
            all.addAll(transactions.handlers(cache, c.groups())); // advertised only when enabled
        }
        // Share groups part S: the share coordinator's state APIs (83-87), only with share groups on.
        if (c.shareState() != null) {
            all.addAll(c.shareState().handlers());
        }
        // Share groups, part F: ShareFetch and ShareAcknowledge, served (and so advertised) only with
        // share.version on and share partitions to serve them from.
        if (settings.shares().enabled() && c.shares() != null) {
            ShareFetchComponents shares = c.shares();
            long expiryPeriodMs = Math.max(1_000, shares.sessions().idleMs() / 4);
            scheduler.scheduleWithFixedDelay(shares.sessions()::expireIdle, expiryPeriodMs, expiryPeriodMs,
                    TimeUnit.MILLISECONDS);
            all.add(new ShareFetchHandler(cache, shares.partitions(), shares.sessions(), shares.settings(), scheduler));
            all.add(new ShareAcknowledgeHandler(cache, shares.partitions(), shares.sessions(), shares.settings()));
        }
        // Share groups (KIP-932), part G: membership, served (and advertised) only when the broker enabled
        // share groups in the group coordinator (aloft.share.version >= 1, with the share state persister).
        if (c.groups().shareGroups() != null) {
            all.add(new ShareGroupHeartbeatHandler(c.groups().shareGroups()));
            all.add(new ShareGroupDescribeHandler(c.groups().shareGroups()));
        }
        // Share groups' offsets admin APIs (session 17, part O): only with share groups on and both
        // the group coordinator's share groups and the share state persister there to serve them.
        if (c.groups().shareGroups() != null && c.shareState() != null) {
            all.add(new DescribeShareGroupOffsetsHandler(c.groups().shareGroups(), c.shareState().persister(), cache, tp -> {
                // The lag only of partitions led here with their log open (else -1, lag unknown).
                var log = partitions.leaderLog(tp);
                return log.isDone() && !log.isCompletedExceptionally() ? log.join().highWatermark() : -1;
            }));
            all.add(new AlterShareGroupOffsetsHandler(c.groups().shareGroups(), c.shareState().persister(), cache));
            all.add(new DeleteShareGroupOffsetsHandler(c.groups().shareGroups(), c.shareState().persister(), cache));
        }
        dispatcher.set(new RequestDispatcher(all, c.quotas(), authorizer(settings.authorizer(), config,
                c.security())));
        return dispatcher.get();
    }

    /** What ApiVersions reports: transaction.version with transactions on, share.version with share groups on. */
    private static KafkaFeatures features(ServerConfig settings, boolean transactions) {
        KafkaFeatures features = transactions ? KafkaFeatures.transactions(settings.transactions().transactionVersion(),
                System.currentTimeMillis()) : new KafkaFeatures(List.of(), System.currentTimeMillis());
        if (settings.shares().enabled()) {
            features = features.withShares(settings.shares().shareVersion());
        } else if (!transactions) {
            features = KafkaFeatures.NONE;
        }
        return features;
    }

    /**
     * The broker's authorizer, or null when none is configured (every request allowed). Brokers call
     * each other (WriteTxnMarkers, ListOffsets for group lag) on the inter-broker listener as its
     * principal; on PLAINTEXT that is User:ANONYMOUS, refused CLUSTER_ACTION unless a super user:
     * warned about here rather than found out at the first transaction.
     */
    private static Authorizer authorizer(AuthorizerConfig acls, BrokerConfig config, SecurityMetadata security) {
        if (!acls.enabled()) {
            return null;
        }
        String interBroker = config.interBrokerListener();
        if (config.securityProtocol(interBroker) == SecurityProtocol.PLAINTEXT
                && !acls.superUsers().contains(Principal.ANONYMOUS)) {
            log.warn("ACLs are on and the inter-broker listener {} is PLAINTEXT: brokers reach each other there as "
                    + "{}, which is not in {}; calls between brokers (transaction markers, group lag) will be "
                    + "refused unless ACLs allow it (keep that listener private and add {} to super.users)",
                    interBroker, Principal.ANONYMOUS, AuthorizerConfig.SUPER_USERS_CONFIG, Principal.ANONYMOUS);
        }
        return new Authorizer(acls, security);
    }
}
