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
    void handle_transactionAndShareKeysWhenOff_invalidRequestWithAReason() {
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

    /** Share keys with share groups on; the "share topic" is the cache's offsets topic, keyed by the group's number. */
    private static FindCoordinatorResponseData findShare(short version, int[] creations, String... keys) {
        FindCoordinatorHandler.CoordinatorKeys shares = new FindCoordinatorHandler.CoordinatorKeys(
                PartitionGroupLog.TOPIC, k -> Integer.parseInt(k.substring(1, 2)), () -> creations[0]++);
        FindCoordinatorHandler handler = new FindCoordinatorHandler(cache(true), new FindCoordinatorHandler
                .CoordinatorKeys(PartitionGroupLog.TOPIC, g -> 0, () -> { }), null, shares);
        FindCoordinatorRequest request = new FindCoordinatorRequest.Builder(batched(SHARE, keys)).build(version);
        RequestContext context = new RequestContext(new RequestHeader(ApiKeys.FIND_COORDINATOR, version, "broker", 7),
                "PLAINTEXT", new InetSocketAddress("127.0.0.1", 40000), "conn-1");
        return ((FindCoordinatorResponse) handler.handle(context, request).join()).data();
    }

    @Test
    void handle_shareKeys_leaderOfTheStatePartition_malformedInvalidRequest() {
        int[] creations = {0};
        List<Coordinator> answers = findShare((short) 6, creations, "g0:AAAAAAAAAAAAAAAAAAAAAQ:0",
                "g1:AAAAAAAAAAAAAAAAAAAAAQ:3", "g0:AAAAAAAAAAAAAAAAAAAAAQ:-1", "g0:x:AAAAAAAAAAAAAAAAAAAAAQ:0",
                "g0", "g0:AAAAAAAAAAAAAAAAAAAAAQ", ":AAAAAAAAAAAAAAAAAAAAAQ:0", "g0:not-an-id:0",
                "g0:AAAAAAAAAAAAAAAAAAAAAQ:zero", "g0:AAAAAAAAAAAAAAAAAAAAAQ:0:1").coordinators();
        assertEquals(Errors.NONE.code(), answers.get(0).errorCode());
        assertEquals(1, answers.get(0).nodeId());
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE.code(), answers.get(1).errorCode(), "fenced leader");
        // As Kafka: a negative partition and a group id with colons are keys too.
        assertEquals(Errors.NONE.code(), answers.get(2).errorCode());
        assertEquals(Errors.NONE.code(), answers.get(3).errorCode());
        for (Coordinator c : answers.subList(4, answers.size())) {
            assertEquals(Errors.INVALID_REQUEST.code(), c.errorCode(), c.key());
        }
        assertEquals(0, creations[0], "the topic exists");
    }

    @Test
    void handle_shareKeyBeforeV6_invalidRequest() {
        FindCoordinatorResponseData v5 = findShare((short) 5, new int[1], "g0:AAAAAAAAAAAAAAAAAAAAAQ:0");
        assertEquals(Errors.INVALID_REQUEST.code(), v5.coordinators().get(0).errorCode());
    }
}
