package io.aloft.controller.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.command.AlterTopicConfigs;
import io.aloft.controller.command.BrokerHeartbeat;
import io.aloft.controller.command.CreatePartitions;
import io.aloft.controller.command.CreateTopic;
import io.aloft.controller.command.DeleteKv;
import io.aloft.controller.command.DeleteTopic;
import io.aloft.controller.command.DrainBroker;
import io.aloft.controller.command.Failure;
import io.aloft.controller.command.FenceBroker;
import io.aloft.controller.model.WalMarkers;
import io.aloft.controller.command.PutKv;
import io.aloft.controller.command.ReassignPartition;
import io.aloft.controller.command.RegisterBroker;
import io.aloft.controller.command.UnregisterBroker;
import io.aloft.controller.model.FeatureRange;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.MetadataEvent;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import io.aloft.controller.query.Queries;
import io.aloft.stream.metadata.CommitStreamSetObjectRequest;
import io.aloft.stream.metadata.CreateStreamRequest;
import io.aloft.stream.metadata.DeleteStreamRequest;
import io.aloft.stream.metadata.OpenStreamRequest;
import io.aloft.stream.metadata.PrepareObjectsRequest;
import io.aloft.stream.metadata.StreamInfo;
import io.aloft.stream.metadata.StreamRange;
import io.aloft.stream.metadata.TrimStreamRequest;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ControllerStateTest extends StateTestSupport {
    // ---- brokers ----

    @Test
    void registerGivesNewIncarnationsNewEpochsAndRepeatsAreNoOps() {
        long first = register(1, "a");
        String before = dumpWithoutSessions(state);
        events.clear();
        assertEquals(first, register(1, "a"));
        assertEquals(List.of(), events);
        assertEquals(before, dumpWithoutSessions(state));

        long second = register(1, "b");
        assertNotEquals(first, second);
        assertEquals(new BrokerInfo(1, "b", second, ENDPOINTS, null, BrokerState.ACTIVE), state.broker(1));
        rejected(new BrokerHeartbeat(1, first), "STALE_BROKER_EPOCH");
        assertEquals(BrokerState.ACTIVE, ok(new BrokerHeartbeat(1, second)));
        rejected(new BrokerHeartbeat(9, 0), "BROKER_NOT_FOUND");
        rejected(new RegisterBroker(-1, "x", ENDPOINTS, null, FeatureRange.INITIAL_ONLY), "INVALID_REQUEST");
    }

    @Test
    void reRegistrationKeepsPartitionsButRaisesTheirEpochs() {
        register(1, "a");
        createTopic("t", 2);
        register(1, "a-restarted");
        assertEquals(List.of(1, 1), brokersOf(topic("t")));
        assertEquals(List.of(1, 1), epochsOf(topic("t")));
    }

    @Test
    void fenceMovesPartitionsToActiveBrokersWithNewEpochs() {
        long e1 = register(1, "a");
        register(2, "b");
        register(3, "c");
        createTopic("t", 6);
        assertEquals(List.of(1, 2, 3, 1, 2, 3), brokersOf(topic("t")));

        rejected(new FenceBroker(1, e1 + 100), "STALE_BROKER_EPOCH");
        assertEquals(BrokerState.ACTIVE, state.broker(1).state());
        events.clear();
        ok(new FenceBroker(1, e1));
        assertEquals(BrokerState.FENCED, state.broker(1).state());
        // Broker 1's two partitions went one each to 2 and 3 (least loaded, lowest id first).
        assertEquals(List.of(2, 2, 3, 3, 2, 3), brokersOf(topic("t")));
        assertEquals(List.of(1, 0, 0, 1, 0, 0), epochsOf(topic("t")));
        // The events carry this command's index and the new states.
        assertEquals(List.of(MetadataEvent.brokerChanged(index, state.broker(1)),
                MetadataEvent.topicChanged(index, topic("t"))), events);

        // Fencing again is a no-op; heartbeating with the current epoch makes it active (it gets nothing back).
        events.clear();
        ok(new FenceBroker(1, e1));
        assertEquals(List.of(), events);
        assertEquals(BrokerState.ACTIVE, ok(new BrokerHeartbeat(1, e1)));
        assertEquals(BrokerState.ACTIVE, state.broker(1).state());
        assertEquals(List.of(2, 2, 3, 3, 2, 3), brokersOf(topic("t")));
    }

    @Test
    void aFencedIncarnationWhoseWalIsTakenOver_isNeverUnfencedAgain_aNewRunIs() {
        long e1 = register(1, "a");
        register(2, "b");
        ok(new FenceBroker(1, e1));
        // A take-over announced for an older incarnation does not hold this one back.
        ok(new PutKv(WalMarkers.key(WalMarkers.TAKEOVER_PREFIX, 1), WalMarkers.epochValue(e1 - 1)));
        assertEquals(BrokerState.ACTIVE, ok(new BrokerHeartbeat(1, e1)));
        ok(new FenceBroker(1, e1));
        ok(new PutKv(WalMarkers.key(WalMarkers.TAKEOVER_PREFIX, 1), WalMarkers.epochValue(e1)));
        rejected(new BrokerHeartbeat(1, e1), "STALE_BROKER_EPOCH");
        rejected(new RegisterBroker(1, "a", ENDPOINTS, null, FeatureRange.INITIAL_ONLY), "STALE_BROKER_EPOCH");
        assertEquals(BrokerState.FENCED, state.broker(1).state());
        long e2 = register(1, "a-restarted");
        assertEquals(BrokerState.ACTIVE, ok(new BrokerHeartbeat(1, e2)));
    }

    @Test
    void anIncarnationBeingRemoved_isNotHeardFromAgainWhateverItsState_aNewRunIs() {
        long e1 = register(1, "a");
        register(2, "b");
        // A removal of an older incarnation does not hold this one back.
        ok(new PutKv(WalMarkers.key(WalMarkers.REMOVING_PREFIX, 1), WalMarkers.epochValue(e1 - 1)));
        assertEquals(BrokerState.ACTIVE, ok(new BrokerHeartbeat(1, e1)));
        // Active: its heartbeats and a registration of the same run are refused (so its session lapses).
        ok(new PutKv(WalMarkers.key(WalMarkers.REMOVING_PREFIX, 1), WalMarkers.epochValue(e1)));
        rejected(new BrokerHeartbeat(1, e1), "STALE_BROKER_EPOCH");
        rejected(new RegisterBroker(1, "a", ENDPOINTS, null, FeatureRange.INITIAL_ONLY), "STALE_BROKER_EPOCH");
        assertEquals(BrokerState.ACTIVE, state.broker(1).state());
        // Fenced: a heartbeat does not un-fence it.
        ok(new FenceBroker(1, e1));
        rejected(new BrokerHeartbeat(1, e1), "STALE_BROKER_EPOCH");
        assertEquals(BrokerState.FENCED, state.broker(1).state());
        long e2 = register(1, "a-restarted");
        assertEquals(BrokerState.ACTIVE, ok(new BrokerHeartbeat(1, e2)));
    }

    @Test
    void partitionsWithoutAnActiveBrokerWaitOfflineAndArePlacedWhenOneBecomesActive() {
        long e1 = register(1, "a");
        createTopic("t", 2);
        ok(new FenceBroker(1, e1));
        assertEquals(List.of(-1, -1), brokersOf(topic("t")));
        assertEquals(List.of(1, 1), epochsOf(topic("t")));
        // Created while no broker is active: offline from the start.
        createTopic("u", 1);
        assertEquals(List.of(-1), brokersOf(topic("u")));

        assertEquals(BrokerState.ACTIVE, ok(new BrokerHeartbeat(1, e1)));
        assertEquals(List.of(1, 1), brokersOf(topic("t")));
        assertEquals(List.of(2, 2), epochsOf(topic("t")));
        assertEquals(List.of(1), brokersOf(topic("u")));
        assertEquals(List.of(1), epochsOf(topic("u")));

        // A newly registered broker also picks up offline partitions.
        ok(new UnregisterBroker(1));
        assertEquals(List.of(-1, -1), brokersOf(topic("t")));
        register(2, "b");
        assertEquals(List.of(2, 2), brokersOf(topic("t")));
    }

    @Test
    void drainAndUnregisterMovePartitionsAway() {
        long e1 = register(1, "a");
        register(2, "b");
        createTopic("t", 4);
        rejected(new DrainBroker(1, e1 - 1), "STALE_BROKER_EPOCH");
        ok(new DrainBroker(1, e1));
        assertEquals(BrokerState.DRAINING, state.broker(1).state());
        assertEquals(List.of(2, 2, 2, 2), brokersOf(topic("t")));
        // A draining broker gets no new partitions and no reassignments.
        createTopic("u", 2);
        assertEquals(List.of(2, 2), brokersOf(topic("u")));
        rejected(new ReassignPartition("t", 0, 1), "BROKER_NOT_ACTIVE");

        events.clear();
        ok(new UnregisterBroker(2));
        assertNull(state.broker(2));
        assertEquals(MetadataEvent.brokerRemoved(index, 2), events.get(0));
        assertEquals(List.of(-1, -1, -1, -1), brokersOf(topic("t")));
        rejected(new UnregisterBroker(2), "BROKER_NOT_FOUND");
    }

    // ---- topics ----

    @Test
    void createTopicBalancesPartitionsAndCreatesStreams() {
        register(1, "a");
        register(2, "b");
        register(3, "c");
        UUID id = new UUID(1, 2);
        TopicInfo t = ok(new CreateTopic(id, "orders", 7, 2, Map.of("retention.ms", "1000")));
        assertEquals(t, topic("orders"));
        assertEquals(id, t.topicId());
        assertEquals(Map.of("retention.ms", "1000"), t.configs());
        assertEquals(List.of(1, 2, 3, 1, 2, 3, 1), brokersOf(t));
        // A second topic evens the load out instead of starting again at broker 1.
        assertEquals(List.of(2, 3), brokersOf(createTopic("more", 2)));
        Set<Long> streamIds = new HashSet<>();
        for (PartitionInfo p : t.partitions()) {
            assertEquals(2, p.streamIds().size());
            for (long streamId : p.streamIds()) {
                assertTrue(streamIds.add(streamId), "stream " + streamId + " used twice");
                StreamInfo s = (StreamInfo) state.query(new Queries.DescribeStream(streamId), index).value();
                assertEquals(new StreamInfo(streamId, 0, StreamInfo.State.CLOSED, 0, 0, -1), s);
            }
        }
        assertEquals(14, streamIds.size());
    }

    @Test
    void createTopicRejectsDuplicatesBadNamesAndBadCounts() {
        createTopic("t", 1);
        rejected(new CreateTopic(new UUID(9, 9), "t", 1, 1, Map.of()), "TOPIC_EXISTS");
        rejected(new CreateTopic(UUID.nameUUIDFromBytes("t".getBytes()), "other", 1, 1, Map.of()), "INVALID_REQUEST");
        for (String name : List.of("", ".", "..", "a/b", "a b", "ü", "x".repeat(250))) {
            rejected(new CreateTopic(new UUID(5, name.hashCode()), name, 1, 1, Map.of()), "INVALID_REQUEST");
        }
        createTopic("x".repeat(249), 1);
        createTopic("a-b_c.D9", 1);
        for (int partitions : new int[] {0, -1, ClusterState.MAX_PARTITIONS + 1}) {
            rejected(new CreateTopic(new UUID(6, partitions), "p" + partitions, partitions, 1, Map.of()),
                    "INVALID_REQUEST");
        }
        for (int streams : new int[] {0, ClusterState.MAX_STREAMS_PER_PARTITION + 1}) {
            rejected(new CreateTopic(new UUID(7, streams), "s" + streams, 1, streams, Map.of()), "INVALID_REQUEST");
        }
        rejected(new CreateTopic(new UUID(8, 8), "c", 1, 1, Map.of("", "v")), "INVALID_REQUEST");
    }

    @Test
    void createPartitionsOnlyGrows() {
        register(1, "a");
        TopicInfo t = ok(new CreateTopic(new UUID(1, 1), "t", 2, 3, Map.of()));
        TopicInfo grown = ok(new CreatePartitions("t", 4));
        assertEquals(t.partitions(), grown.partitions().subList(0, 2));
        assertEquals(List.of(2, 3), grown.partitions().subList(2, 4).stream().map(PartitionInfo::partition).toList());
        assertEquals(3, grown.partitions().get(3).streamIds().size());
        rejected(new CreatePartitions("t", 4), "INVALID_REQUEST");
        rejected(new CreatePartitions("t", 1), "INVALID_REQUEST");
        rejected(new CreatePartitions("t", ClusterState.MAX_PARTITIONS + 1), "INVALID_REQUEST");
        rejected(new CreatePartitions("missing", 9), "TOPIC_NOT_FOUND");
    }

    @Test
    void alterConfigsSetsAndDeletes() {
        createTopic("t", 1);
        assertEquals(Map.of("a", "1", "b", "2"), ((TopicInfo) ok(new AlterTopicConfigs("t", Map.of("a", "1",
                "b", "2"), List.of()))).configs());
        TopicInfo altered = ok(new AlterTopicConfigs("t", Map.of("b", "3"), List.of("a", "never-set")));
        assertEquals(Map.of("b", "3"), altered.configs());
        assertEquals(altered, topic("t"));
        rejected(new AlterTopicConfigs("missing", Map.of(), List.of()), "TOPIC_NOT_FOUND");
        rejected(new AlterTopicConfigs("t", Map.of("", "x"), List.of()), "INVALID_REQUEST");
    }

    @Test
    void reassignMovesOnlyToActiveBrokers() {
        register(1, "a");
        long e2 = register(2, "b");
        createTopic("t", 2);
        TopicInfo moved = ok(new ReassignPartition("t", 0, 2));
        assertEquals(List.of(2, 2), brokersOf(moved));
        assertEquals(List.of(1, 0), epochsOf(moved));
        events.clear();
        assertEquals(moved, ok(new ReassignPartition("t", 0, 2)));
        assertEquals(List.of(), events, "moving to the current broker is a no-op");
        ok(new FenceBroker(2, e2));
        rejected(new ReassignPartition("t", 0, 2), "BROKER_NOT_ACTIVE");
        rejected(new ReassignPartition("t", 0, 9), "BROKER_NOT_FOUND");
        rejected(new ReassignPartition("t", 2, 1), "PARTITION_NOT_FOUND");
        rejected(new ReassignPartition("t", -1, 1), "PARTITION_NOT_FOUND");
        rejected(new ReassignPartition("missing", 0, 1), "TOPIC_NOT_FOUND");
    }

    @Test
    void deleteTopicDeletesItsStreams() {
        TopicInfo t = ok(new CreateTopic(new UUID(3, 3), "t", 2, 2, Map.of()));
        List<Long> streams = t.partitions().stream().flatMap(p -> p.streamIds().stream()).toList();
        // One stream opened by a broker (epoch 1), one already deleted directly: both must not stop the delete.
        ok(new OpenStreamRequest(streams.get(0), 1, 1));
        ok(new DeleteStreamRequest(streams.get(1), 0));
        events.clear();
        ok(new DeleteTopic("t"));
        assertEquals(List.of(MetadataEvent.topicDeleted(index, t)), events);
        assertNull(topic("t"));
        for (long streamId : streams) {
            assertFailure(state.query(new Queries.DescribeStream(streamId), index), Failure.STREAM, "STREAM_NOT_FOUND");
        }
        rejected(new DeleteTopic("t"), "TOPIC_NOT_FOUND");
        createTopic("t", 1); // the name is free again
    }

    @Test
    void kvPutGetDelete() {
        ok(new PutKv("k", new byte[] {1, 2}));
        assertArrayEquals(new byte[] {1, 2}, (byte[]) state.query(new Queries.GetKv("k"), index).value());
        ok(new DeleteKv("k"));
        ok(new DeleteKv("k"));
        assertNull(state.query(new Queries.GetKv("k"), index).value());
    }

    @Test
    void kvPrefixReadReturnsExactlyTheKeysUnderThePrefixInOrder() {
        ok(new PutKv("config/b", new byte[] {2}));
        ok(new PutKv("config/a", new byte[] {1}));
        ok(new PutKv("config", new byte[] {9}));
        ok(new PutKv("configz", new byte[] {9}));
        ok(new PutKv("other", new byte[] {9}));
        @SuppressWarnings("unchecked")
        Map<String, byte[]> found = (Map<String, byte[]>) state.query(new Queries.GetKvPrefix("config/"), index).value();
        assertEquals(List.of("config/a", "config/b"), List.copyOf(found.keySet()));
        assertArrayEquals(new byte[] {2}, found.get("config/b"));
        assertTrue(((Map<?, ?>) state.query(new Queries.GetKvPrefix("none/"), index).value()).isEmpty());
    }

    // ---- streams through the state ----

    @Test
    void anOldStreamEpochIsFencedAfterANewerOpen() {
        long stream = ok(new CreateStreamRequest(1));
        ok(new OpenStreamRequest(stream, 1, 1));
        long objectId = ok(new PrepareObjectsRequest(1, 1, 60_000, nowMs));
        ok(new OpenStreamRequest(stream, 2, 2));
        assertFailure(apply(new OpenStreamRequest(stream, 2, 3)), Failure.STREAM, "FENCED");
        assertFailure(apply(new TrimStreamRequest(stream, 1, 0)), Failure.STREAM, "FENCED");
        assertFailure(apply(new CommitStreamSetObjectRequest(1, objectId, 10, List.of(new StreamRange(stream, 1, 0,
                5)), List.of(), List.of(), nowMs)), Failure.STREAM, "FENCED");
        ok(new CommitStreamSetObjectRequest(2, objectId, 10, List.of(new StreamRange(stream, 2, 0, 5)), List.of(),
                List.of(), nowMs));
        assertEquals(5, ((StreamInfo) state.query(new Queries.DescribeStream(stream), index).value()).endOffset());
    }
}
