package io.aloft.broker.handler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.PartitionGroupLog;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.txn.TransactionStateTopic;
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
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

/**
 * FindCoordinator's key type 1 with transactions on: the leader of the transactional id's
 * {@code __transaction_state} partition (ids are named after their partition: "t0" is in 0), found
 * as groups are in {@code __consumer_offsets}, and the topic's creation started while it is missing.
 */
class TransactionFindCoordinatorTest {
    private static final byte TRANSACTION = 1;

    private static MetadataCache cache(boolean withTopic) {
        MetadataCache cache = new MetadataCache();
        BrokerInfo live = new BrokerInfo(1, "run-1", 1, List.of(new Endpoint("PLAINTEXT", "10.0.0.1", 9092,
                "PLAINTEXT")), null, BrokerState.ACTIVE);
        TopicInfo state = new TopicInfo(UUID.randomUUID(), TransactionStateTopic.TOPIC, Map.of(), List.of(
                new PartitionInfo(0, 1, 3, List.of(1L, 2L)),
                new PartitionInfo(1, -1, 3, List.of(3L, 4L))));
        cache.onImage(new ClusterImage(1, List.of(live), withTopic ? List.of(state) : List.of()));
        return cache;
    }

    private static List<Coordinator> find(MetadataCache cache, Runnable create, String... ids) {
        FindCoordinatorHandler handler = new FindCoordinatorHandler(cache,
                new FindCoordinatorHandler.CoordinatorKeys(PartitionGroupLog.TOPIC, g -> 0, () -> { }),
                new FindCoordinatorHandler.CoordinatorKeys(TransactionStateTopic.TOPIC,
                        t -> Integer.parseInt(t.substring(1)), create));
        short version = 4;
        FindCoordinatorRequest request = new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData()
                .setKeyType(TRANSACTION).setCoordinatorKeys(List.of(ids))).build(version);
        RequestContext context = new RequestContext(new RequestHeader(ApiKeys.FIND_COORDINATOR, version, "client", 7),
                "PLAINTEXT", new InetSocketAddress("127.0.0.1", 40000), "conn-1");
        return ((FindCoordinatorResponse) handler.handle(context, request).join()).data().coordinators();
    }

    @Test
    void handle_transactionKey_answersTheStatePartitionsLeader() {
        List<Coordinator> c = find(cache(true), () -> { }, "t0", "t1");
        assertEquals(Errors.NONE.code(), c.get(0).errorCode());
        assertEquals(1, c.get(0).nodeId());
        assertEquals("10.0.0.1", c.get(0).host());
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE.code(), c.get(1).errorCode()); // no leader: retried
    }

    @Test
    void handle_transactionKey_withoutTheTopic_startsItsCreation() {
        AtomicInteger created = new AtomicInteger();
        List<Coordinator> c = find(cache(false), created::incrementAndGet, "t0");
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE.code(), c.get(0).errorCode());
        assertTrue(c.get(0).errorMessage().contains(TransactionStateTopic.TOPIC), c.get(0).errorMessage());
        assertEquals(1, created.get());
    }
}
