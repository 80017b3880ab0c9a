package io.aloft.controller.state;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.controller.command.CreatePartitions;
import io.aloft.controller.command.DrainBroker;
import io.aloft.controller.command.FenceBroker;
import io.aloft.controller.command.RegisterBroker;
import io.aloft.controller.command.ReportVoterFeatures;
import io.aloft.controller.model.FeatureLevel;
import io.aloft.controller.model.FeatureRange;
import io.aloft.controller.model.TopicInfo;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Where the controller puts partitions: rack spread, load, new brokers, brokers leaving. */
class PlacementTest extends StateTestSupport {
    private static final FeatureRange ALL_LEVELS = new FeatureRange(FeatureLevel.MIN_SUPPORTED, FeatureLevel.LATEST);

    /** A new cluster of one voter of this build: it finalizes the latest level. */
    @BeforeEach
    void bootstrapLatestLevel() {
        ok(new ReportVoterFeatures(1, ALL_LEVELS, List.of(1)));
        assertEquals(FeatureLevel.LATEST, state.finalizedFeatureLevel());
    }

    private long registerInRack(int brokerId, String rack) {
        return ok(new RegisterBroker(brokerId, "run-" + brokerId, ENDPOINTS, rack, ALL_LEVELS));
    }

    @Override
    long register(int brokerId, String incarnation) {
        return ok(new RegisterBroker(brokerId, incarnation, ENDPOINTS, null, ALL_LEVELS));
    }

    /** Partitions of {@code t} per rack, racks as registered ("-" for none). */
    private Map<String, Integer> perRack(TopicInfo t) {
        Map<String, Integer> counts = new TreeMap<>();
        for (int broker : brokersOf(t)) {
            String rack = state.broker(broker).rack();
            counts.merge(rack == null ? "-" : rack, 1, Integer::sum);
        }
        return counts;
    }

    @Test
    void topicSpreadsEvenlyOverRacks_notOverBrokers_whenRacksHaveUnequalBrokerCounts() {
        registerInRack(1, "a");
        registerInRack(2, "a");
        registerInRack(3, "b");
        TopicInfo t = createTopic("t", 4);
        // Rack a has two brokers and rack b one, yet each rack gets half of the topic; within rack a the
        // least-loaded broker takes the next one.
        assertEquals(List.of(1, 3, 2, 3), brokersOf(t));
        assertEquals(Map.of("a", 2, "b", 2), perRack(t));

        // Growing the topic keeps the spread, counting the partitions it already has.
        TopicInfo grown = ok(new CreatePartitions("t", 6));
        assertEquals(Map.of("a", 3, "b", 3), perRack(grown));
    }

    @Test
    void belowTheRackAwareLevel_racksAreIgnored() {
        // A cluster still at the level before rack-aware placement: voters of the previous build
        // place by load alone, so this build must too (placement is replicated state).
        state = new ControllerState();
        ok(new ReportVoterFeatures(1, new FeatureRange(FeatureLevel.MIN_SUPPORTED,
                FeatureLevel.RACK_AWARE_PLACEMENT - 1), List.of(1)));
        registerInRack(1, "a");
        registerInRack(2, "a");
        registerInRack(3, "b");
        assertEquals(List.of(1, 2, 3, 1), brokersOf(createTopic("t", 4)));
    }

    @Test
    void withoutRacks_leastLoadedBrokerLowestIdFirst() {
        register(1, "a");
        register(2, "b");
        register(3, "c");
        createTopic("busy", 2); // brokers 1 and 2 now serve one partition each
        assertEquals(List.of(3, 1, 2, 3), brokersOf(createTopic("t", 4)));
    }

    @Test
    void newlyRegisteredBroker_receivesNewPartitionsUntilLevelled() {
        register(1, "a");
        register(2, "b");
        createTopic("old", 4);
        register(3, "c");
        assertEquals(List.of(3, 3, 1), brokersOf(createTopic("new", 3)));
    }

    @Test
    void drainedBrokersPartitions_stayInItsRackWhileTheRackHasAnActiveBroker() {
        long e1 = registerInRack(1, "a");
        registerInRack(2, "a");
        long e3 = registerInRack(3, "b");
        registerInRack(4, "b");
        createTopic("t", 8);
        assertEquals(Map.of("a", 4, "b", 4), perRack(topic("t")));

        ok(new DrainBroker(1, e1));
        // Broker 1's partitions went to broker 2, its rack's other broker: the spread holds.
        assertEquals(Map.of("a", 4, "b", 4), perRack(topic("t")));
        assertEquals(4, brokersOf(topic("t")).stream().filter(b -> b == 2).count());

        // Rack b fenced as a whole: its partitions can only go to rack a.
        ok(new FenceBroker(3, e3));
        assertEquals(Map.of("a", 4, "b", 4), perRack(topic("t")));
        ok(new FenceBroker(4, state.broker(4).brokerEpoch()));
        assertEquals(Map.of("a", 8), perRack(topic("t")));
    }

    @Test
    void brokersWithoutRack_formARackOfTheirOwn() {
        registerInRack(1, "a");
        registerInRack(2, "a");
        registerInRack(3, null);
        TopicInfo t = createTopic("t", 4);
        assertEquals(Map.of("a", 2, "-", 2), perRack(t));
    }
}
