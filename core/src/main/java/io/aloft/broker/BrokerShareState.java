package io.aloft.broker;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.config.GroupConfigs;
import io.aloft.broker.coordinator.CoordinatorThreads;
import io.aloft.broker.coordinator.CoordinatorTimer;
import io.aloft.broker.coordinator.CoordinatorTopic;
import io.aloft.broker.group.GroupCoordinator;
import io.aloft.broker.handler.FindCoordinatorHandler;
import io.aloft.broker.handler.ShareStateHandlers;
import io.aloft.broker.interbroker.InterBrokerClient;
import io.aloft.broker.lifecycle.CriticalScheduler;
import io.aloft.broker.lifecycle.FatalFailureHandler;
import io.aloft.broker.lifecycle.NamedThreadFactory;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.partition.PartitionManager;
import io.aloft.broker.share.ShareGroupConfig;
import io.aloft.broker.share.fetch.ShareSessionCache;
import io.aloft.broker.share.partition.ShareLogLookup;
import io.aloft.broker.share.partition.SharePartitionManager;
import io.aloft.broker.share.state.RoutingShareStatePersister;
import io.aloft.broker.share.state.ShareCoordinator;
import io.aloft.broker.share.state.ShareStatePersister;
import io.aloft.broker.share.state.ShareStateTopic;
import io.aloft.controller.client.ControllerClient;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Share-partition state (KIP-932) on a broker with share groups on ({@code aloft.share.version} 1),
 * set up as the transaction coordinator is: a {@link ShareCoordinator} on its own coordinator thread
 * over the {@code __share_group_state} partitions' logs, the topic's follower (loads the partitions
 * this broker leads; the topic is created on the first FindCoordinator of key type 2 or the
 * persister's first call), the handlers of the state APIs, and the {@link ShareStatePersister} the
 * other share parts (share partitions, the group coordinator, the admin APIs) keep state through
 * ({@link #persister()}): it calls the coordinator here or on the broker leading the key's partition.
 *
 * <p>Built and started on the thread starting the broker; the parts are thread-safe.
 */
final class BrokerShareState {
    private static final Logger log = LoggerFactory.getLogger(BrokerShareState.class);

    private final ShareCoordinator coordinator;
    private final CoordinatorTopic stateTopic;
    private final ShareStatePersister persister;

    private BrokerShareState(ShareCoordinator coordinator, CoordinatorTopic stateTopic,
            ShareStatePersister persister) {
        this.coordinator = coordinator;
        this.stateTopic = stateTopic;
        this.persister = persister;
    }

    /**
     * Builds the coordinator and the persister; what must be closed goes into {@code resources}
     * (closed in reverse) and {@code failures}. The follower is started by {@link #start}, once the
     * broker serves.
     *
     * @param interBroker made before, so closed after the persister that uses it
     */
    static BrokerShareState create(ShareGroupConfig config, ControllerClient controller, MetadataCache cache,
            int nodeId, PartitionManager partitions, CoordinatorTimer timer, InterBrokerClient interBroker,
            FatalFailureHandler failures, List<AutoCloseable> resources) {
        // One thread, as Kafka's share.coordinator.threads: each operation is a map lookup and a merge.
        CoordinatorThreads threads = CoordinatorThreads.fixed(1,
                new NamedThreadFactory("aloft-share-coordinator", true, failures));
        resources.add(threads);
        failures.closeOnFailure("share coordinator threads", threads);
        // The persister's retries and completions; closed after the coordinator.
        CriticalScheduler persisterThread = new CriticalScheduler("aloft-share-state", 1, failures);
        resources.add(persisterThread::shutdownNow);
        failures.closeOnFailure("share state persister thread", persisterThread::shutdownNow);
        ShareCoordinator coordinator = ShareStateTopic.coordinator(config.stateTopicPartitions(), partitions,
                System::currentTimeMillis, timer, threads, cache);
        resources.add(coordinator);
        CoordinatorTopic stateTopic = ShareStateTopic.follower(controller, cache, nodeId, coordinator,
                config.stateTopicPartitions(), new NamedThreadFactory("aloft-share-loader", true, failures));
        ShareStatePersister persister = new RoutingShareStatePersister(nodeId, config.stateTopicPartitions(),
                coordinator,
                RoutingShareStatePersister.Leaders.fromCache(cache), interBroker, () -> createTopic(stateTopic),
                persisterThread, System::currentTimeMillis, RoutingShareStatePersister.DEFAULT_RETRY_TIMEOUT_MS);
        return new BrokerShareState(coordinator, stateTopic, persister);
    }

    /**
     * Serves share groups on top of this state: share partitions on the partitions' leaders,
     * keeping their state through {@link #persister()}; share sessions; membership in the group
     * coordinator, which tells the sessions and share partitions here when a member is gone. Call
     * before the group coordinator loads any partition.
     */
    BrokerApis.ShareFetchComponents serveShareGroups(ShareGroupConfig config, PartitionManager partitions,
            MetadataCache cache, GroupConfigs groupConfigs, GroupCoordinator groups, CoordinatorTimer timer,
            List<AutoCloseable> resources) {
        SharePartitionManager sharePartitions = new SharePartitionManager(ShareLogLookup.of(partitions, cache),
                persister, groupConfigs, timer);
        resources.add(sharePartitions::close);
        ShareSessionCache sessions = ShareSessionCache.of(config, sharePartitions);
        groups.enableShareGroups(config, groupConfigs, persister, (group, member) -> {
            sessions.memberLeft(group, member);
            sharePartitions.releaseMember(group, member);
        });
        return new BrokerApis.ShareFetchComponents(sharePartitions, sessions, groupConfigs);
    }

    private static void createTopic(CoordinatorTopic stateTopic) {
        stateTopic.ensureCreated().exceptionally(e -> {
            log.warn("Could not create {} (the next lookup tries again)", ShareStateTopic.TOPIC, e);
            return null;
        });
    }

    /** Where share partitions keep their state: through the coordinator of each key's partition. */
    ShareStatePersister persister() {
        return persister;
    }

    /** This broker's share coordinator (what the state APIs serve). */
    ShareCoordinator coordinator() {
        return coordinator;
    }

    /** FindCoordinator's key type 2: {@code __share_group_state}, created on the first lookup. */
    FindCoordinatorHandler.CoordinatorKeys coordinatorKeys() {
        return new FindCoordinatorHandler.CoordinatorKeys(ShareStateTopic.TOPIC, coordinator::partitionFor,
                () -> createTopic(stateTopic));
    }

    /** InitializeShareGroupState, ReadShareGroupState, WriteShareGroupState, DeleteShareGroupState, ReadShareGroupStateSummary. */
    List<ApiHandler<?>> handlers() {
        return ShareStateHandlers.create(coordinator);
    }

    /** Starts loading the partitions this broker leads: once it serves, as the group loader. */
    void start(FatalFailureHandler failures, List<AutoCloseable> resources) throws Exception {
        resources.add(stateTopic);
        failures.closeOnFailure("share state loader", stateTopic);
        stateTopic.start();
    }
}
