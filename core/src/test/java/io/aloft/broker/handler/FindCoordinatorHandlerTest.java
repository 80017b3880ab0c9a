package io.aloft.broker.handler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.PartitionGroupLog;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.Endpoint;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

/**
 * FindCoordinator against a metadata cache in which the group partitions of
 * {@code __consumer_offsets} are led by a live broker (partition 0), a fenced one (1) and nobody (2).
 * Groups are named after their partition ("g0" is in partition 0).
 */
class FindCoordinatorHandlerTest {
    private static final byte GROUP = 0;
    private static final byte TRANSACTION = 1;
    private static final byte SHARE = 2;

    private static MetadataCache cache(boolean withTopic) {
        MetadataCache cache = new MetadataCache();
        BrokerInfo live = new BrokerInfo(1, "run-1", 1, List.of(new Endpoint("PLAINTEXT", "10.0.0.1", 9092, "PLAINTEXT"),
                new Endpoint("INTERNAL", "192.168.0.1", 9094, "PLAINTEXT")), null, BrokerState.ACTIVE);
        BrokerInfo fenced = new BrokerInfo(2, "run-2", 2, List.of(new Endpoint("PLAINTEXT", "10.0.0.2", 9092,
                "PLAINTEXT")), null, BrokerState.FENCED);
        TopicInfo offsets = new TopicInfo(UUID.randomUUID(), PartitionGroupLog.TOPIC, Map.of(), List.of(
                new PartitionInfo(0, 1, 3, List.of(1L, 2L)),
                new PartitionInfo(1, 2, 3, List.of(3L, 4L)),
                new PartitionInfo(2, -1, 3, List.of(5L, 6L))));
        cache.onImage(new ClusterImage(1, List.of(live, fenced), withTopic ? List.of(offsets) : List.of()));
        return cache;
    }

    private static FindCoordinatorResponseData find(MetadataCache cache, String listener, short version,
            FindCoordinatorRequestData data) {
        FindCoordinatorHandler handler = new FindCoordinatorHandler(cache, g -> Integer.parseInt(g.substring(1)),
                () -> { });
        FindCoordinatorRequest request = new FindCoordinatorRequest.Builder(data).build(version);
        RequestContext context = new RequestContext(new RequestHeader(ApiKeys.FIND_COORDINATOR, version, "client", 7),
                listener, new InetSocketAddress("127.0.0.1", 40000), "conn-1");
        return ((FindCoordinatorResponse) handler.handle(context, request).join()).data();
    }

    private static FindCoordinatorRequestData batched(byte keyType, String... keys) {
        return new FindCoordinatorRequestData().setKeyType(keyType).setCoordinatorKeys(List.of(keys));
    }

    @Test
    void handle_singleKey_answersTheLeaderOnTheRequestsListener() {
        FindCoordinatorRequestData data = new FindCoordinatorRequestData().setKey("g0").setKeyType(GROUP);
        FindCoordinatorResponseData plain = find(cache(true), "PLAINTEXT", (short) 3, data);
        assertEquals(Errors.NONE.code(), plain.errorCode());
        assertEquals(1, plain.nodeId());
        assertEquals("10.0.0.1", plain.host());
        assertEquals(9092, plain.port());

        FindCoordinatorResponseData internal = find(cache(true), "INTERNAL", (short) 3, data);
        assertEquals("192.168.0.1", internal.host());
        assertEquals(9094, internal.port());

        FindCoordinatorResponseData v0 = find(cache(true), "PLAINTEXT", (short) 0,
                new FindCoordinatorRequestData().setKey("g0"));
        assertEquals(1, v0.nodeId());
    }

    @Test
    void handle_batchedKeys_eachAnsweredOnItsOwn() {
        List<Coordinator> answers = find(cache(true), "PLAINTEXT", (short) 4, batched(GROUP, "g0", "g1", "g2"))
                .coordinators();
        assertEquals(List.of("g0", "g1", "g2"), answers.stream().map(Coordinator::key).toList());
        assertEquals(Errors.NONE.code(), answers.get(0).errorCode());
        assertEquals(1, answers.get(0).nodeId());
        // A fenced leader and no leader at all: the client retries until the partition is placed.
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE.code(), answers.get(1).errorCode());
        assertEquals(-1, answers.get(1).nodeId());
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE.code(), answers.get(2).errorCode());
    }

    @Test
    void handle_noOffsetsTopicOrListener_coordinatorNotAvailable() {
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE.code(),
                find(cache(false), "PLAINTEXT", (short) 6, batched(GROUP, "g0")).coordinators().get(0).errorCode());
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE.code(),
                find(cache(true), "SSL", (short) 6, batched(GROUP, "g0")).coordinators().get(0).errorCode());
    }

    @Test
    void handle_transactionAndShareKeys_invalidRequestWithAReason() {
        Coordinator tx = find(cache(true), "PLAINTEXT", (short) 6, batched(TRANSACTION, "tx")).coordinators().get(0);
        assertEquals(Errors.INVALID_REQUEST.code(), tx.errorCode());
        assertEquals("this broker (Aloft) does not support transactions yet", tx.errorMessage());
        FindCoordinatorResponseData single = find(cache(true), "PLAINTEXT", (short) 2,
                new FindCoordinatorRequestData().setKey("tx").setKeyType(TRANSACTION));
        assertEquals(Errors.INVALID_REQUEST.code(), single.errorCode());
        assertEquals("this broker (Aloft) does not support transactions yet", single.errorMessage());
        assertEquals(Errors.INVALID_REQUEST.code(),
                find(cache(true), "PLAINTEXT", (short) 6, batched(SHARE, "g0:AAAAAAAAAAAAAAAAAAAAAA:0"))
                        .coordinators().get(0).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(),
                find(cache(true), "PLAINTEXT", (short) 6, batched((byte) 9, "g0")).coordinators().get(0).errorCode());
    }
}
