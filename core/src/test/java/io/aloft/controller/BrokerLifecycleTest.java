package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.client.BrokerLifecycle;
import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.command.UnregisterBroker;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.Endpoint;
import io.aloft.controller.query.Queries;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A broker's registration, heartbeats and lease against a one-voter quorum. */
class BrokerLifecycleTest {
    @TempDir
    Path dir;

    private static final List<Endpoint> ENDPOINTS = List.of(new Endpoint("PLAINTEXT", "127.0.0.1", 9092, "PLAINTEXT"));

    private static BrokerInfo broker(ControllerClient client, int id) throws Exception {
        ClusterImage image = client.query(new Queries.DescribeCluster(), ClusterImage.class).get(30, TimeUnit.SECONDS);
        return image.brokers().stream().filter(b -> b.brokerId() == id).findFirst().orElse(null);
    }

    private static void await(String what, java.util.concurrent.Callable<Boolean> condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.call()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 30 s: " + what);
            }
            Thread.sleep(50);
        }
    }

    @Test
    void registersHeartbeatsIsFencedWhenSilentAndReRegistersWhenForgotten() throws Exception {
        try (TestQuorum q = new TestQuorum(dir, 1, b -> b.sessionTimeoutMs(1_500).heartbeatIntervalMs(200));
                ControllerClient client = q.newClient()) {
            q.awaitLeader();
            BrokerLifecycle first = BrokerLifecycle.start(client, 5, ENDPOINTS, "rack-a").get(30, TimeUnit.SECONDS);
            long epoch = first.brokerEpoch();
            assertEquals(epoch, broker(client, 5).brokerEpoch());
            assertTrue(first.leaseValid(), "registered and heartbeating: it may acknowledge appends");
            assertEquals("rack-a", broker(client, 5).rack());

            // Unregistered behind its back: the next heartbeat finds out and registers this run again.
            client.submit(new UnregisterBroker(5)).get(30, TimeUnit.SECONDS);
            await("re-registration", () -> broker(client, 5) != null);
            assertNotEquals(epoch, broker(client, 5).brokerEpoch(), "a new registration gets a new epoch");
            assertEquals(BrokerState.ACTIVE, broker(client, 5).state());

            // Silent for longer than the session: the leader fences it.
            first.close();
            await("fencing after a lapsed session", () -> broker(client, 5).state() == BrokerState.FENCED);
            // The lease ends before the controller can fence: once fenced, it has long lapsed.
            assertFalse(first.leaseValid(), "a fenced broker's lease has lapsed");

            // A new run of the broker registers a new incarnation and is active again.
            try (BrokerLifecycle second = BrokerLifecycle.start(client, 5, ENDPOINTS, null).get(30, TimeUnit.SECONDS)) {
                assertTrue(second.brokerEpoch() > epoch);
                assertEquals(BrokerState.ACTIVE, broker(client, 5).state());
                assertTrue(second.leaseValid());
            }
        }
    }
}
