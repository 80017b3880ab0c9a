package io.aloft.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.conformance.RawConnection;
import io.aloft.broker.handler.ApiVersionsHandler;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A failure never leaves a client waiting (issue 11, item 3). Handlers registered by the test on a
 * dispatcher of its own, behind a real {@link KafkaServer}, and a client speaking raw bytes:
 * <ul>
 *   <li>a response that cannot be encoded at the request's version (a field the version lacks, as
 *       the ListOffsets v1-3 leader epoch was) is replaced by the request's error response with
 *       UNKNOWN_SERVER_ERROR;
 *   <li>a handler whose future fails, or that throws, is answered with its error response carrying
 *       the failure's code;
 *   <li>an error response that cannot be encoded is replaced by the generic UNKNOWN_SERVER_ERROR one;
 *   <li>when no error response can be built at all, the connection is closed, after the responses
 *       of the requests before it;
 *   <li>responses stay in request order whatever order handlers complete in.
 * </ul>
 */
class FailedResponseTest {
    private KafkaServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private RawConnection serve(ApiHandler<?>... handlers) throws Exception {
        AtomicReference<RequestDispatcher> dispatcher = new AtomicReference<>();
        List<ApiHandler<?>> all = new java.util.ArrayList<>(List.of(handlers));
        all.add(new ApiVersionsHandler(() -> dispatcher.get().apiVersions()));
        dispatcher.set(new RequestDispatcher(all));
        server = KafkaServer.start(List.of(new KafkaServer.Listener("PLAINTEXT", "127.0.0.1", 0)), 1 << 20, 1,
                dispatcher.get());
        return RawConnection.open("127.0.0.1:" + server.port("PLAINTEXT"));
    }

    /** A handler of {@code api} answering every request with {@code answer}. */
    private static <Q extends AbstractRequest> ApiHandler<Q> handler(ApiKeys api,
            java.util.function.Function<Q, CompletableFuture<AbstractResponse>> answer) {
        return new ApiHandler<>() {
            @Override
            public ApiKeys apiKey() {
                return api;
            }

            @Override
            public short minVersion() {
                return api.oldestVersion();
            }

            @Override
            public CompletableFuture<AbstractResponse> handle(RequestContext context, Q request) {
                return answer.apply(request);
            }
        };
    }

    /** ListOffsets answered with a leader epoch whatever the version: the bug of issue 11. */
    private static ApiHandler<ListOffsetsRequest> listOffsetsWithLeaderEpoch() {
        return handler(ApiKeys.LIST_OFFSETS, (ListOffsetsRequest r) -> CompletableFuture.completedFuture(
                new ListOffsetsResponse(new ListOffsetsResponseData().setTopics(List.of(new ListOffsetsTopicResponse()
                        .setName("t").setPartitions(List.of(new ListOffsetsPartitionResponse().setPartitionIndex(0)
                                .setErrorCode(Errors.NONE.code()).setOffset(42).setTimestamp(-1)
                                .setLeaderEpoch(7))))))));
    }

    private static ListOffsetsRequestData listOffsets() {
        return new ListOffsetsRequestData().setReplicaId(-1).setTopics(List.of(new ListOffsetsTopic().setName("t")
                .setPartitions(List.of(new ListOffsetsPartition().setPartitionIndex(0).setTimestamp(-1)))));
    }

    @Test
    void responseNotEncodableAtItsVersion_isAnsweredWithItsErrorResponse() throws Exception {
        try (RawConnection c = serve(listOffsetsWithLeaderEpoch())) {
            for (short v = 1; v <= 3; v++) {
                ListOffsetsResponseData r = (ListOffsetsResponseData) c.send(ApiKeys.LIST_OFFSETS, v, listOffsets())
                        .body();
                ListOffsetsPartitionResponse p = r.topics().get(0).partitions().get(0);
                assertEquals(Errors.UNKNOWN_SERVER_ERROR.code(), p.errorCode(), "v" + v);
                assertEquals(-1, p.offset(), "v" + v);
            }
            // From v4 the leader epoch exists: the same response goes through as it is.
            ListOffsetsResponseData r = (ListOffsetsResponseData) c.send(ApiKeys.LIST_OFFSETS, (short) 4,
                    listOffsets()).body();
            assertEquals(7, r.topics().get(0).partitions().get(0).leaderEpoch());
            assertEquals(42, r.topics().get(0).partitions().get(0).offset());
        }
    }

    @Test
    void handlerFutureFails_isAnsweredWithItsErrorResponse_carryingTheFailuresCode() throws Exception {
        try (RawConnection c = serve(handler(ApiKeys.DESCRIBE_CLUSTER, r -> CompletableFuture.failedFuture(
                        new NotCoordinatorException("moved"))),
                handler(ApiKeys.FIND_COORDINATOR, r -> CompletableFuture.failedFuture(
                        new IllegalStateException("a bug"))))) {
            DescribeClusterResponseData d = (DescribeClusterResponseData) c.send(ApiKeys.DESCRIBE_CLUSTER, (short) 0,
                    new DescribeClusterRequestData()).body();
            assertEquals(Errors.NOT_COORDINATOR.code(), d.errorCode());
            FindCoordinatorResponseData f = (FindCoordinatorResponseData) c.send(ApiKeys.FIND_COORDINATOR,
                    (short) 6, findCoordinator()).body();
            assertEquals(Errors.UNKNOWN_SERVER_ERROR.code(), f.coordinators().get(0).errorCode());
        }
    }

    @Test
    void handlerThrows_isAnsweredWithItsErrorResponse() throws Exception {
        try (RawConnection c = serve(handler(ApiKeys.DESCRIBE_CLUSTER, r -> {
            throw new InvalidRequestException("refused at once");
        }))) {
            DescribeClusterResponseData d = (DescribeClusterResponseData) c.send(ApiKeys.DESCRIBE_CLUSTER, (short) 1,
                    new DescribeClusterRequestData()).body();
            assertEquals(Errors.INVALID_REQUEST.code(), d.errorCode());
            assertEquals("refused at once", d.errorMessage());
        }
    }

    @Test
    void handlerCompletesWithoutResponse_isAnsweredWithUnknownServerError() throws Exception {
        try (RawConnection c = serve(handler(ApiKeys.DESCRIBE_CLUSTER, r -> CompletableFuture.completedFuture(null)))) {
            DescribeClusterResponseData d = (DescribeClusterResponseData) c.send(ApiKeys.DESCRIBE_CLUSTER, (short) 1,
                    new DescribeClusterRequestData()).body();
            assertEquals(Errors.UNKNOWN_SERVER_ERROR.code(), d.errorCode());
        }
    }

    @Test
    void errorResponseNotEncodable_fallsBackToUnknownServerError() throws Exception {
        // DescribeCluster's error response carries the failure's message, and a message longer than a
        // string's length prefix allows (32767 bytes) cannot be written: the generic one is sent.
        String huge = "x".repeat(40_000);
        try (RawConnection c = serve(handler(ApiKeys.DESCRIBE_CLUSTER,
                r -> CompletableFuture.failedFuture(new InvalidRequestException(huge))))) {
            DescribeClusterResponseData d = (DescribeClusterResponseData) c.send(ApiKeys.DESCRIBE_CLUSTER, (short) 1,
                    new DescribeClusterRequestData()).body();
            assertEquals(Errors.UNKNOWN_SERVER_ERROR.code(), d.errorCode());
        }
    }

    @Test
    void noErrorResponseCanBeBuilt_closesTheConnection_afterAnsweringTheRequestsBeforeIt() throws Exception {
        // A failure kafka-clients cannot turn into an error response: a CompletionException without a
        // cause (its ApiError unwraps it to nothing). The one way left to tell the client is to close.
        CompletableFuture<AbstractResponse> slow = new CompletableFuture<>();
        try (RawConnection c = serve(listOffsetsWithLeaderEpoch(),
                handler(ApiKeys.DESCRIBE_CLUSTER, r -> CompletableFuture.failedFuture(new CompletionException(null))),
                handler(ApiKeys.FIND_COORDINATOR, r -> slow))) {
            int first = c.write(ApiKeys.FIND_COORDINATOR, (short) 6, findCoordinator());
            int second = c.write(ApiKeys.DESCRIBE_CLUSTER, (short) 1, new DescribeClusterRequestData());
            slow.complete(new FindCoordinatorResponse(coordinator(3)));
            FindCoordinatorResponseData answered = (FindCoordinatorResponseData) c.read(ApiKeys.FIND_COORDINATOR,
                    (short) 6, first).body();
            assertEquals(3, answered.coordinators().get(0).nodeId(), "the request before is answered first");
            assertTrue(c.read(ApiKeys.DESCRIBE_CLUSTER, (short) 1, second).closed(),
                    "then the connection is closed instead of the answer");
        }
        // Other connections are served as before.
        try (RawConnection other = RawConnection.open("127.0.0.1:" + server.port("PLAINTEXT"))) {
            ListOffsetsResponseData r = (ListOffsetsResponseData) other.send(ApiKeys.LIST_OFFSETS, (short) 4,
                    listOffsets()).body();
            assertEquals(42, r.topics().get(0).partitions().get(0).offset());
        }
    }

    @Test
    void responses_keepRequestOrder_whenAnEarlierRequestCompletesLast() throws Exception {
        CompletableFuture<AbstractResponse> slow = new CompletableFuture<>();
        CountDownLatch laterHandled = new CountDownLatch(1);
        ApiHandler<ListOffsetsRequest> fast = listOffsetsWithLeaderEpoch();
        try (RawConnection c = serve(handler(ApiKeys.FIND_COORDINATOR, r -> slow),
                handler(ApiKeys.LIST_OFFSETS, (ListOffsetsRequest r) -> {
                    laterHandled.countDown();
                    return fast.handle(null, r);
                }))) {
            int first = c.write(ApiKeys.FIND_COORDINATOR, (short) 6, findCoordinator());
            int second = c.write(ApiKeys.LIST_OFFSETS, (short) 2, listOffsets());
            assertTrue(laterHandled.await(30, TimeUnit.SECONDS));
            // The second request is done (its response failed to encode and was replaced); the first
            // completes only now, and must still be answered first (read checks the correlation id).
            slow.complete(new FindCoordinatorResponse(coordinator(5)));
            assertEquals(5, ((FindCoordinatorResponseData) c.read(ApiKeys.FIND_COORDINATOR, (short) 6, first).body())
                    .coordinators().get(0).nodeId());
            ListOffsetsResponseData r = (ListOffsetsResponseData) c.read(ApiKeys.LIST_OFFSETS, (short) 2, second)
                    .body();
            assertEquals(Errors.UNKNOWN_SERVER_ERROR.code(), r.topics().get(0).partitions().get(0).errorCode());
        }
    }

    private static FindCoordinatorRequestData findCoordinator() {
        return new FindCoordinatorRequestData().setKeyType((byte) 0).setCoordinatorKeys(List.of("g"));
    }

    private static FindCoordinatorResponseData coordinator(int nodeId) {
        return new FindCoordinatorResponseData().setCoordinators(List.of(new FindCoordinatorResponseData.Coordinator()
                .setKey("g").setNodeId(nodeId).setHost("h").setPort(9)));
    }
}
