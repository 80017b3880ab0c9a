package io.aloft.autoscaler.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.autoscaler.backend.ScalingBackend;
import io.aloft.autoscaler.balance.Move;
import io.aloft.autoscaler.balance.Plan;
import io.aloft.autoscaler.model.BrokerLoad;
import io.aloft.autoscaler.model.ClusterSnapshot;
import io.aloft.autoscaler.model.PartitionLoad;
import io.aloft.autoscaler.scaling.Decision;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The control loop's order of actions, with every part faked: a scale-in drains before it removes
 * and never removes a broker still serving partitions; a scale-out fills the new broker at once; a
 * dry run changes nothing; balancing pauses while rates settle after moves.
 */
class ControlLoopTest {
    private final AutoscalerMetrics metrics = new AutoscalerMetrics();
    private final FakeCluster cluster = new FakeCluster();
    private final Deque<Decision> decisions = new ArrayDeque<>();
    private final List<Set<Integer>> planned = new ArrayList<>();
    private final List<Boolean> executedDry = new ArrayList<>();
    private final List<Decision> scaled = new ArrayList<>();

    @AfterEach
    void close() {
        metrics.close();
    }

    private ControlLoop loop(boolean dryRun) {
        ControlLoop.Decider decider = new ControlLoop.Decider() {
            @Override
            public Decision decide(ClusterSnapshot snapshot, int current, int voterFloor, Instant now) {
                Decision d = decisions.poll();
                return d != null ? d : Decision.none(current, "targetTracking[0]", "inside the band");
            }

            @Override
            public void scaled(Decision done, Instant at) {
                scaled.add(done);
            }
        };
        // Plans move every partition of a draining broker to broker 1; otherwise one move when broker 3
        // is empty (as a balancer would fill a new broker).
        ControlLoop.Planner planner = (snapshot, draining) -> {
            planned.add(draining);
            List<Move> moves = new ArrayList<>();
            for (PartitionLoad p : snapshot.partitions()) {
                if (draining.contains(p.broker())) {
                    moves.add(new Move(p.topic(), p.partition(), p.broker(), 1, 0, 0, "drain"));
                }
            }
            if (draining.isEmpty() && snapshot.broker(3).isPresent()
                    && !snapshot.partitionsByBroker().containsKey(3)) {
                PartitionLoad p = snapshot.partitions().get(0);
                moves.add(new Move(p.topic(), p.partition(), p.broker(), 3, 0, 0, "fill"));
            }
            return new Plan(moves, List.of());
        };
        ControlLoop.Mover mover = (plan, dry) -> {
            executedDry.add(dry);
            if (!dry && !cluster.stuck) {
                plan.moves().forEach(m -> cluster.move(m.topic(), m.partition(), m.toBroker()));
            }
            return new ControlLoop.Outcome(dry || cluster.stuck ? 0 : plan.moves().size(), 0, 0);
        };
        return new ControlLoop(cluster::snapshot, decider, planner, mover, cluster, cluster.brokers::contains,
                new ControlLoop.Settings(Duration.ofSeconds(1), true, dryRun, 2, Duration.ofSeconds(5)), metrics,
                Clock.fixed(Instant.parse("2026-11-29T12:00:00Z"), ZoneOffset.UTC));
    }

    @Test
    void scaleIn_drainsTheCandidateThenRemovesIt() throws Exception {
        cluster.brokers.addAll(List.of(1, 2, 3));
        cluster.place("t", 0, 2);
        cluster.place("t", 1, 3);
        cluster.place("t", 2, 3);
        decisions.add(new Decision(Decision.Action.SCALE_IN, 3, 2, "targetTracking[0]", "low"));

        loop(false).evaluate();

        assertEquals(List.of(Set.of(3)), planned, "the plan drains the removal candidate");
        assertEquals(Set.of(1, 2), cluster.brokers, "removed once empty");
        assertEquals(List.of(3), cluster.removed);
        assertTrue(cluster.partitionsOn(3).isEmpty());
        assertEquals(1, scaled.size(), "the cooldown starts only after the removal");
    }

    @Test
    void scaleIn_aDrainThatDoesNotFinish_keepsTheBroker() throws Exception {
        cluster.brokers.addAll(List.of(1, 2, 3));
        cluster.place("t", 0, 3);
        cluster.stuck = true;
        decisions.add(new Decision(Decision.Action.SCALE_IN, 3, 2, "targetTracking[0]", "low"));

        loop(false).evaluate();

        assertEquals(Set.of(1, 2, 3), cluster.brokers, "a broker still serving partitions is never stopped");
        assertTrue(cluster.removed.isEmpty());
        assertTrue(scaled.isEmpty(), "no cooldown for a scale-in that did not happen");
    }

    @Test
    void scaleIn_withOnlyVotersLeft_removesNothing() throws Exception {
        cluster.brokers.addAll(List.of(1, 2));
        cluster.voters.addAll(List.of(1, 2));
        cluster.place("t", 0, 2);
        decisions.add(new Decision(Decision.Action.SCALE_IN, 2, 1, "targetTracking[0]", "low"));

        loop(false).evaluate();

        assertEquals(Set.of(1, 2), cluster.brokers);
        assertTrue(planned.isEmpty(), "nothing drained");
    }

    @Test
    void scaleOut_addsTheBrokerAndFillsItInTheSameEvaluation() throws Exception {
        cluster.brokers.addAll(List.of(1, 2));
        cluster.place("t", 0, 1);
        cluster.place("t", 1, 2);
        decisions.add(new Decision(Decision.Action.SCALE_OUT, 2, 3, "targetTracking[0]", "high"));

        loop(false).evaluate();

        assertEquals(Set.of(1, 2, 3), cluster.brokers);
        assertEquals(1, cluster.partitionsOn(3).size(), "the new broker got a partition at once");
        assertEquals(1, scaled.size());
    }

    @Test
    void dryRun_changesNothing() throws Exception {
        cluster.brokers.addAll(List.of(1, 2, 3));
        cluster.place("t", 0, 3);
        decisions.add(new Decision(Decision.Action.SCALE_IN, 3, 2, "targetTracking[0]", "low"));
        decisions.add(new Decision(Decision.Action.SCALE_OUT, 3, 4, "targetTracking[0]", "high"));
        ControlLoop loop = loop(true);

        loop.evaluate();
        loop.evaluate();

        assertEquals(Set.of(1, 2, 3), cluster.brokers);
        assertEquals(List.of(0), cluster.partitionIdsOn(3), "still on broker 3");
        assertEquals(List.of(true), executedDry, "the drain plan was only printed");
    }

    @Test
    void balancing_pausesWhileRatesSettleAfterMoves() throws Exception {
        cluster.brokers.addAll(List.of(1, 2, 3));
        cluster.place("t", 0, 1);
        cluster.place("t", 1, 2);
        ControlLoop loop = loop(false);

        loop.evaluate(); // moves a partition to the empty broker 3
        cluster.removeAllFrom(3); // as if load shifted back: the planner would move again
        loop.evaluate();
        loop.evaluate();
        assertEquals(1, planned.size(), "two evaluations settle without planning");
        loop.evaluate();
        assertEquals(2, planned.size());
    }

    /** Brokers, voters and partition placement, as a backend and the snapshots see them. */
    private static final class FakeCluster implements ScalingBackend {
        final Set<Integer> brokers = new TreeSet<>();
        final Set<Integer> voters = new TreeSet<>();
        final List<Integer> removed = new ArrayList<>();
        final List<PartitionLoad> partitions = new ArrayList<>();
        boolean stuck;

        void place(String topic, int partition, int broker) {
            partitions.add(new PartitionLoad(topic, partition, broker, 0, 0));
        }

        void move(String topic, int partition, int broker) {
            partitions.replaceAll(p -> p.topic().equals(topic) && p.partition() == partition
                    ? new PartitionLoad(topic, partition, broker, 0, 0) : p);
        }

        void removeAllFrom(int broker) {
            partitions.replaceAll(p -> p.broker() == broker ? new PartitionLoad(p.topic(), p.partition(), 1, 0, 0) : p);
        }

        List<PartitionLoad> partitionsOn(int broker) {
            return partitions.stream().filter(p -> p.broker() == broker).toList();
        }

        List<Integer> partitionIdsOn(int broker) {
            return partitionsOn(broker).stream().map(PartitionLoad::partition).toList();
        }

        ClusterSnapshot snapshot() {
            return new ClusterSnapshot(0, brokers.stream().map(id -> BrokerLoad.ofNetwork(id, null, 0, 0)).toList(),
                    partitions);
        }

        @Override
        public String name() {
            return "fake";
        }

        @Override
        public List<Integer> brokers() {
            return List.copyOf(brokers);
        }

        @Override
        public Set<Integer> protectedBrokers() {
            return voters;
        }

        @Override
        public int removalCandidate() {
            return brokers.stream().filter(id -> !voters.contains(id)).mapToInt(Integer::intValue).max().orElse(-1);
        }

        @Override
        public int addBroker() {
            int id = brokers.stream().mapToInt(Integer::intValue).max().orElse(0) + 1;
            brokers.add(id);
            return id;
        }

        @Override
        public void removeBroker(int id) {
            brokers.remove(id);
            removed.add(id);
        }

        @Override
        public void close() {}
    }
}
