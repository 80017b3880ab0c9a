package io.aloft.broker.handler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.Endpoint;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * KIP-951 hints from a metadata view in which topic "t" has partition 0 on a live broker (1, rack
 * "r1", two listeners), partition 1 on a fenced one (2) and partition 2 on nobody.
 */
class LeaderHintsTest {
    private static final UUID TOPIC_ID = UUID.randomUUID();

    private static MetadataCache.View view() {
        MetadataCache cache = new MetadataCache();
        BrokerInfo live = new BrokerInfo(1, "run-1", 1, List.of(new Endpoint("PLAINTEXT", "10.0.0.1", 9092,
                "PLAINTEXT"), new Endpoint("INTERNAL", "192.168.0.1", 9094, "PLAINTEXT")), "r1", BrokerState.ACTIVE);
        BrokerInfo fenced = new BrokerInfo(2, "run-2", 2, List.of(new Endpoint("PLAINTEXT", "10.0.0.2", 9092,
                "PLAINTEXT")), null, BrokerState.FENCED);
        TopicInfo t = new TopicInfo(TOPIC_ID, "t", Map.of(), List.of(new PartitionInfo(0, 1, 7, List.of(1L, 2L)),
                new PartitionInfo(1, 2, 3, List.of(3L, 4L)), new PartitionInfo(2, -1, 3, List.of(5L, 6L))));
        cache.onImage(new ClusterImage(1, List.of(live, fenced), List.of(t)));
        return cache.view();
    }

    @Test
    void leader_liveBroker_namedWithEpochAndEndpointOnTheRequestsListener() {
        LeaderHints plain = new LeaderHints(view(), "PLAINTEXT");
        assertEquals(new LeaderHints.Leader(1, 7), plain.leader("t", 0));
        assertEquals(List.of(new LeaderHints.Node(1, "10.0.0.1", 9092, "r1")), List.copyOf(plain.nodes()));

        LeaderHints internal = new LeaderHints(view(), "INTERNAL");
        internal.leader("t", 0);
        internal.leader("t", 0);
        assertEquals(List.of(new LeaderHints.Node(1, "192.168.0.1", 9094, "r1")), List.copyOf(internal.nodes()),
                "one endpoint per leader, on the request's listener");
    }

    @Test
    void leader_fencedNoneUnknownOrNoEndpoint_unknownWithoutEndpoint() {
        LeaderHints hints = new LeaderHints(view(), "PLAINTEXT");
        assertEquals(LeaderHints.Leader.UNKNOWN, hints.leader("t", 1), "fenced broker");
        assertEquals(LeaderHints.Leader.UNKNOWN, hints.leader("t", 2), "no broker");
        assertEquals(LeaderHints.Leader.UNKNOWN, hints.leader("t", 3), "no such partition");
        assertEquals(LeaderHints.Leader.UNKNOWN, hints.leader("other", 0), "no such topic");
        assertEquals(LeaderHints.Leader.UNKNOWN, hints.leader(null, 0), "unresolved topic id");
        assertTrue(hints.nodes().isEmpty());
        assertEquals(LeaderHints.Leader.UNKNOWN, new LeaderHints(view(), "SSL").leader("t", 0), "no such listener");
    }

    @Test
    void topicName_byNameOrId() {
        LeaderHints hints = new LeaderHints(view(), "PLAINTEXT");
        assertEquals("t", hints.topicName("t", Uuid.ZERO_UUID));
        assertEquals("t", hints.topicName("", new Uuid(TOPIC_ID.getMostSignificantBits(),
                TOPIC_ID.getLeastSignificantBits())));
        assertNull(hints.topicName("", Uuid.randomUuid()));
    }

    @Test
    void wanted_kafkasCodesPerApi() {
        assertTrue(LeaderHints.wantedInProduce(Errors.NOT_LEADER_OR_FOLLOWER.code()));
        assertFalse(LeaderHints.wantedInProduce(Errors.FENCED_LEADER_EPOCH.code()));
        assertTrue(LeaderHints.wantedInFetch(Errors.NOT_LEADER_OR_FOLLOWER.code()));
        assertTrue(LeaderHints.wantedInFetch(Errors.FENCED_LEADER_EPOCH.code()));
        assertFalse(LeaderHints.wantedInFetch(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
    }
}
