package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.client.ControllerStreamMetadata;
import io.aloft.controller.command.BrokerHeartbeat;
import io.aloft.controller.command.CreateTopic;
import io.aloft.controller.command.FenceBroker;
import io.aloft.controller.command.RegisterBroker;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.Endpoint;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import io.aloft.controller.query.Queries;
import io.aloft.stream.metadata.CommitStreamSetObjectRequest;
import io.aloft.stream.metadata.CreateStreamRequest;
import io.aloft.stream.metadata.OpenStreamRequest;
import io.aloft.stream.metadata.PrepareObjectsRequest;
import io.aloft.stream.metadata.StreamMetadataException;
import io.aloft.stream.metadata.StreamRange;
import io.aloft.stream.metadata.TrimStreamRequest;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fencing through the client against a real (one-voter) quorum: stale broker epochs, stale stream
 * epochs, and the leader fencing a broker whose heartbeats stop.
 */
class FencingTest {
    private static final List<Endpoint> ENDPOINTS = List.of(new Endpoint("PLAINTEXT", "127.0.0.1", 9092, "PLAINTEXT"));

    @TempDir
    Path dir;

    @Test
    void staleBrokerEpochRejected() throws Exception {
        // No session expiry during this test: only epochs are at issue.
        try (TestQuorum q = new TestQuorum(dir, 1, b -> b.sessionTimeoutMs(600_000));
                ControllerClient client = q.newClient()) {
            q.awaitLeader();
            long first = register(client, 1, "run-1");
            long second = register(client, 1, "run-2");
            assertTrue(second > first, "a new incarnation gets a new, higher epoch: " + first + " then " + second);

            assertControllerError(ControllerException.Code.STALE_BROKER_EPOCH,
                    client.submit(new BrokerHeartbeat(1, first)));
            // A fence decided on the old epoch must not fence the new incarnation.
            assertControllerError(ControllerException.Code.STALE_BROKER_EPOCH,
                    client.submit(new FenceBroker(1, first)));
            assertEquals(BrokerState.ACTIVE, client.submit(new BrokerHeartbeat(1, second), BrokerState.class)
                    .get(30, TimeUnit.SECONDS));
            assertEquals(BrokerState.ACTIVE, broker(client, 1).state());
        }
    }

    @Test
    void staleStreamEpochRejectedAfterNewOwnerOpened() throws Exception {
        try (TestQuorum q = new TestQuorum(dir, 1); ControllerClient client = q.newClient()) {
            q.awaitLeader();
            ControllerStreamMetadata m = new ControllerStreamMetadata(client);
            long stream = m.createStream(new CreateStreamRequest(1)).get(60, TimeUnit.SECONDS);
            m.openStream(new OpenStreamRequest(stream, 1, 1)).get(30, TimeUnit.SECONDS);
            long firstObject = prepare(m, 1);
            m.commitStreamSetObject(commit(1, firstObject, stream, 1, 0, 10)).get(30, TimeUnit.SECONDS);

            // Node 2 takes the stream over: node 1's epoch is now stale.
            m.openStream(new OpenStreamRequest(stream, 2, 2)).get(30, TimeUnit.SECONDS);
            long staleObject = prepare(m, 1);
            assertStreamError(StreamMetadataException.Code.FENCED,
                    m.commitStreamSetObject(commit(1, staleObject, stream, 1, 10, 20)));
            assertStreamError(StreamMetadataException.Code.FENCED,
                    m.trimStream(new TrimStreamRequest(stream, 1, 5)));
            assertEquals(10, m.describeStream(stream).get(30, TimeUnit.SECONDS).endOffset(), "nothing committed");
            assertEquals(0, m.describeStream(stream).get(30, TimeUnit.SECONDS).startOffset(), "nothing trimmed");

            // The new owner's epoch works.
            long ownObject = prepare(m, 2);
            m.commitStreamSetObject(commit(2, ownObject, stream, 2, 10, 20)).get(30, TimeUnit.SECONDS);
            m.trimStream(new TrimStreamRequest(stream, 2, 10)).get(30, TimeUnit.SECONDS);
            assertEquals(20, m.describeStream(stream).get(30, TimeUnit.SECONDS).endOffset());
            assertEquals(10, m.describeStream(stream).get(30, TimeUnit.SECONDS).startOffset());
        }
    }

    @Test
    void brokerWhoseHeartbeatsStopIsFencedAndItsPartitionsMove() throws Exception {
        try (TestQuorum q = new TestQuorum(dir, 1, b -> b.sessionTimeoutMs(1_500).heartbeatIntervalMs(300));
                ControllerClient client = q.newClient()) {
            q.awaitLeader();
            long epoch1 = register(client, 1, "b1");
            long epoch2 = register(client, 2, "b2");
            TopicInfo created = client.submit(new CreateTopic(UUID.randomUUID(), "orders", 4, 1, Map.of()),
                    TopicInfo.class).get(30, TimeUnit.SECONDS);
            assertTrue(created.partitions().stream().anyMatch(p -> p.brokerId() == 2), "broker 2 got partitions: "
                    + created);

            // Only broker 1 heartbeats, at its interval (broker 2 joins in once it is back).
            List<BrokerHeartbeat> beating = new CopyOnWriteArrayList<>(List.of(new BrokerHeartbeat(1, epoch1)));
            AtomicBoolean stop = new AtomicBoolean();
            Thread heartbeats = new Thread(() -> {
                while (!stop.get()) {
                    beating.forEach(h -> client.submit(h).join());
                    try {
                        Thread.sleep(300);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "broker-1-heartbeats");
            heartbeats.start();
            try {
                // Waits for the end state rather than one moment: should a stall on this machine let
                // broker 1's session lapse too, its next heartbeat makes it active and takes the
                // partitions back, and the end state is the same.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (broker(client, 2).state() != BrokerState.FENCED
                        || topic(client, "orders").partitions().stream().anyMatch(p -> p.brokerId() != 1)) {
                    assertTrue(System.nanoTime() < deadline, "broker 2 fenced and its partitions moved within 30 s: "
                            + topic(client, "orders"));
                    Thread.sleep(100);
                }
                TopicInfo moved = topic(client, "orders");
                for (PartitionInfo p : moved.partitions()) {
                    PartitionInfo was = created.partitions().get(p.partition());
                    assertEquals(1, p.brokerId(), "partition " + p.partition() + " is on the live broker");
                    if (was.brokerId() == 2) {
                        assertTrue(p.leaderEpoch() > was.leaderEpoch(), "partition " + p.partition()
                                + " moved with a higher leader epoch: " + was + " -> " + p);
                    }
                }

                // Broker 2 is back with the same epoch: it is active again.
                assertEquals(BrokerState.ACTIVE, client.submit(new BrokerHeartbeat(2, epoch2), BrokerState.class)
                        .get(30, TimeUnit.SECONDS));
                beating.add(new BrokerHeartbeat(2, epoch2));
                BrokerInfo back = broker(client, 2);
                assertEquals(BrokerState.ACTIVE, back.state());
                assertEquals(epoch2, back.brokerEpoch(), "the same registration, not a new one");
            } finally {
                stop.set(true);
                heartbeats.join(30_000);
            }
        }
    }

    private static long prepare(ControllerStreamMetadata m, int node) throws Exception {
        return m.prepareObjects(new PrepareObjectsRequest(node, 1, 600_000, System.currentTimeMillis()))
                .get(30, TimeUnit.SECONDS);
    }

    private static CommitStreamSetObjectRequest commit(int node, long objectId, long stream, long epoch, long start,
            long end) {
        return new CommitStreamSetObjectRequest(node, objectId, 100,
                List.of(new StreamRange(stream, epoch, start, end)), List.of(), List.of(), System.currentTimeMillis());
    }

    private static long register(ControllerClient client, int brokerId, String incarnation) throws Exception {
        return client.submit(new RegisterBroker(brokerId, incarnation, ENDPOINTS, null, client.supportedFeatures()),
                Long.class)
                .get(60, TimeUnit.SECONDS);
    }

    private static BrokerInfo broker(ControllerClient client, int id) throws Exception {
        ClusterImage image = client.query(new Queries.DescribeCluster(), ClusterImage.class).get(30, TimeUnit.SECONDS);
        return image.brokers().stream().filter(b -> b.brokerId() == id).findFirst()
                .orElseThrow(() -> new AssertionError("broker " + id + " not in " + image));
    }

    private static TopicInfo topic(ControllerClient client, String name) throws Exception {
        ClusterImage image = client.query(new Queries.DescribeCluster(), ClusterImage.class).get(30, TimeUnit.SECONDS);
        return image.topics().stream().filter(t -> t.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("topic " + name + " not in " + image));
    }

    private static void assertControllerError(ControllerException.Code code, CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
        ControllerException c = assertInstanceOf(ControllerException.class, e.getCause());
        assertEquals(code, c.code(), c.getMessage());
    }

    private static void assertStreamError(StreamMetadataException.Code code, CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
        StreamMetadataException s = assertInstanceOf(StreamMetadataException.class, e.getCause());
        assertEquals(code, s.code(), s.getMessage());
    }
}
