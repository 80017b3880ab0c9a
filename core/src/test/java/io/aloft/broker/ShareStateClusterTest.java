package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.conformance.RawConnection;
import io.aloft.broker.coordinator.CoordinatorTopic;
import io.aloft.broker.interbroker.NetworkInterBrokerClient;
import io.aloft.broker.share.state.RoutingShareStatePersister;
import io.aloft.broker.share.state.SharePartitionKey;
import io.aloft.broker.share.state.ShareState;
import io.aloft.broker.share.state.ShareStateSummary;
import io.aloft.broker.share.state.ShareStateTopic;
import io.aloft.broker.share.state.StateBatch;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The persister reaches the share coordinator of another broker: every call goes, as Kafka's
 * state requests over the real inter-broker client, to the broker leading the key's
 * {@code __share_group_state} partition; when that partition moves, the calls follow it (retrying
 * NOT_COORDINATOR meanwhile) and the new leader serves the same state, loaded from the partition's
 * log in shared storage; and when its leader dies, the broker it fails over to serves every write
 * acknowledged before. Two broker processes; the persister here is one on no broker (node id -1), so
 * nothing is answered locally.
 */
class ShareStateClusterTest {
    @TempDir
    Path dir;

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(90, TimeUnit.SECONDS);
    }

    private static StateBatch b(long first, long last, byte state, int count) {
        return new StateBatch(first, last, state, (short) count);
    }

    @Test
    void persister_reachesRemoteCoordinator_followsMoves_andFailover() throws Exception {
        int statePartitions = 2;
        // A short session, so the failover at the end takes seconds.
        try (TestCluster cluster = TestCluster.start(dir, 2, 0, Map.of("broker.session.timeout.ms", "3000",
                "share.coordinator.state.topic.num.partitions", Integer.toString(statePartitions)))) {
            Uuid topicId;
            try (Admin admin = cluster.admin(1)) {
                topicId = admin.createTopics(List.of(new NewTopic("share-cluster", 1, (short) 1))).topicId(
                        "share-cluster").get(60, TimeUnit.SECONDS);
            }
            // The first share-key lookup makes __share_group_state, spread over both brokers; broker 2
            // (no controller voter: it may be killed) leads the key's partition, moved there if need be.
            SharePartitionKey key = new SharePartitionKey("cluster-group", topicId, 0);
            awaitShareCoordinator(cluster.bootstrap(1), key.coordinatorKey());
            TopicPartition statePartition = new TopicPartition(ShareStateTopic.TOPIC,
                    CoordinatorTopic.partitionFor(key.coordinatorKey(), statePartitions));
            moveTo(cluster, statePartition, 2);

            ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
            try (NetworkInterBrokerClient client = new NetworkInterBrokerClient(-1,
                    id -> new Node(id, "127.0.0.1", Integer.parseInt(cluster.bootstrap(id).split(":")[1])), "PLAINTEXT",
                    r -> {
                        Thread t = new Thread(r, "test-inter-broker-sender");
                        t.setDaemon(true);
                        return t;
                    })) {
                RoutingShareStatePersister persister = new RoutingShareStatePersister(-1, statePartitions, null,
                        p -> {
                            try {
                                return cluster.leader(ShareStateTopic.TOPIC, p);
                            } catch (Exception e) {
                                return RoutingShareStatePersister.Leaders.NO_LEADER;
                            }
                        }, client, () -> { }, executor, System::currentTimeMillis, 60_000);
                assertEquals(Optional.empty(), await(persister.read(key, 0)));
                await(persister.initialize(key, 1, 0));
                await(persister.write(key, 1, 3, -1, 2, List.of(b(0, 4, StateBatch.ACKNOWLEDGED, 1),
                        b(5, 9, StateBatch.AVAILABLE, 2))));
                ShareState expected = new ShareState(1, 0, 3, List.of(b(0, 4, StateBatch.ACKNOWLEDGED, 1),
                        b(5, 9, StateBatch.AVAILABLE, 2)));
                assertEquals(Optional.of(expected), await(persister.read(key, 3)), "served by broker 2");

                moveTo(cluster, statePartition, 1);
                assertEquals(Optional.of(expected), await(persister.read(key, 3)), "served by broker 1");
                await(persister.write(key, 1, 3, 5, 1, List.of(b(5, 6, StateBatch.ARCHIVED, 3))));
                assertEquals(Optional.of(new ShareStateSummary(1, 5, 3, 1)), await(persister.readSummary(key)));

                // Back to broker 2, one more acknowledged write, then broker 2 dies: the partition fails over
                // to broker 1 (its WAL recovered), which must serve every acknowledged write.
                moveTo(cluster, statePartition, 2);
                await(persister.write(key, 1, 3, -1, 2, List.of(b(7, 7, StateBatch.ACKNOWLEDGED, 3))));
                cluster.kill(2);
                ShareState last = new ShareState(1, 5, 4, List.of(b(5, 6, StateBatch.ARCHIVED, 3),
                        b(7, 7, StateBatch.ACKNOWLEDGED, 3), b(8, 9, StateBatch.AVAILABLE, 2)));
                assertEquals(Optional.of(last), await(persister.read(key, 4)), "served by broker 1 after failover");
                await(persister.delete(key));
                assertEquals(Optional.empty(), await(persister.readSummary(key)));
            } finally {
                executor.shutdownNow();
            }
        }
    }

    private static void moveTo(TestCluster cluster, TopicPartition tp, int broker) throws Exception {
        if (cluster.leader(tp.topic(), tp.partition()) == broker) {
            return;
        }
        try (Admin admin = cluster.admin(1)) {
            admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(broker)))))
                    .all().get(60, TimeUnit.SECONDS);
        }
        cluster.awaitLeader(tp.topic(), tp.partition(), broker, "state partition moved");
    }

    private static void awaitShareCoordinator(String bootstrap, String key) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try (RawConnection c = RawConnection.open(bootstrap)) {
            while (true) {
                FindCoordinatorResponseData r = (FindCoordinatorResponseData) c.send(ApiKeys.FIND_COORDINATOR,
                        (short) 6, new FindCoordinatorRequestData().setKeyType((byte) 2)
                                .setCoordinatorKeys(List.of(key))).body();
                if (r.coordinators().get(0).errorCode() == Errors.NONE.code()) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no share coordinator within 60 s: " + r);
                }
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
    }
}
