package io.aloft.broker.interbroker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.TestBroker;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.BrokerNotAvailableException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The inter-broker client against a real broker (an in-process one: requests answered, versions
 * chosen from its ApiVersions, many in flight on one connection) and against addresses where
 * nothing useful listens: an unknown broker, a closed port, a peer that accepts and never answers.
 */
class NetworkInterBrokerClientTest {
    @TempDir
    Path dir;

    private static NetworkInterBrokerClient client(BrokerAddresses addresses, int requestTimeoutMs) {
        return new NetworkInterBrokerClient(1, addresses, "PLAINTEXT", r -> {
            Thread t = new Thread(r, "test-inter-broker-sender");
            t.setDaemon(true);
            return t;
        }, requestTimeoutMs);
    }

    private static Throwable failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
        return e.getCause();
    }

    private static void awaitRegistered(TestBroker broker) throws Exception {
        try (Admin admin = Admin.create(broker.clientProps())) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).isEmpty()) {
                assertTrue(System.nanoTime() < deadline, "the broker never listed itself in DescribeCluster");
                Thread.sleep(50);
            }
        }
    }

    @Test
    void send_toARealBroker_answersEachRequest_atTheVersionsItServes() throws Exception {
        try (TestBroker broker = new TestBroker(dir, Map.of())) {
            awaitRegistered(broker); // the broker lists itself once its registration reaches its metadata cache
            int port = Integer.parseInt(broker.bootstrap().substring(broker.bootstrap().lastIndexOf(':') + 1));
            try (NetworkInterBrokerClient c = client(id -> id == 7 ? new Node(7, "127.0.0.1", port) : null, 30_000)) {
                List<CompletableFuture<AbstractResponse>> sent = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    sent.add(c.send(7, new DescribeClusterRequest.Builder(new DescribeClusterRequestData())));
                }
                sent.add(c.send(7, new MetadataRequest.Builder(new MetadataRequestData().setTopics(List.of()))));
                for (int i = 0; i < 20; i++) {
                    DescribeClusterResponse r = (DescribeClusterResponse) sent.get(i).get(30, TimeUnit.SECONDS);
                    assertEquals(Errors.NONE.code(), r.data().errorCode());
                    assertEquals(1, r.data().brokers().size());
                }
                MetadataResponse m = (MetadataResponse) sent.get(20).get(30, TimeUnit.SECONDS);
                assertEquals(1, m.brokers().size());
            }
        }
    }

    @Test
    void send_toAnUnknownBroker_failsWithBrokerNotAvailable() throws Exception {
        try (NetworkInterBrokerClient c = client(id -> null, 30_000)) {
            assertInstanceOf(BrokerNotAvailableException.class,
                    failure(c.send(3, new DescribeClusterRequest.Builder(new DescribeClusterRequestData()))));
        }
    }

    @Test
    void send_toAClosedPort_failsWithDisconnect_andAgainOnTheNextTry() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        try (NetworkInterBrokerClient c = client(id -> new Node(id, "127.0.0.1", port), 30_000)) {
            for (int i = 0; i < 2; i++) {
                assertInstanceOf(DisconnectException.class,
                        failure(c.send(2, new DescribeClusterRequest.Builder(new DescribeClusterRequestData()))));
            }
        }
    }

    @Test
    void send_toAPeerThatNeverAnswers_timesOut() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                NetworkInterBrokerClient c = client(id -> new Node(id, "127.0.0.1", s.getLocalPort()), 500)) {
            CompletableFuture<AbstractResponse> f = c.send(2, new DescribeClusterRequest.Builder(
                    new DescribeClusterRequestData()));
            try (Socket accepted = s.accept()) { // held open, never answered (not even ApiVersions)
                Throwable t = failure(f);
                assertInstanceOf(TimeoutException.class, t, t.toString());
            }
        }
    }

    @Test
    void close_failsWhatIsWaiting_andLaterSends() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            NetworkInterBrokerClient c = client(id -> new Node(id, "127.0.0.1", s.getLocalPort()), 30_000);
            CompletableFuture<AbstractResponse> f = c.send(2, new DescribeClusterRequest.Builder(
                    new DescribeClusterRequestData()));
            c.close();
            assertInstanceOf(IllegalStateException.class, failure(f));
            assertInstanceOf(IllegalStateException.class,
                    failure(c.send(2, new DescribeClusterRequest.Builder(new DescribeClusterRequestData()))));
        }
    }
}
