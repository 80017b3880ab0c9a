package io.aloft.autoscaler.simulate;

import io.aloft.autoscaler.balance.BalanceSimulation;
import io.aloft.autoscaler.balance.Balancer;
import io.aloft.autoscaler.balance.Move;
import io.aloft.autoscaler.balance.Plan;
import io.aloft.autoscaler.execute.Batches;
import io.aloft.autoscaler.execute.ExecutionLimits;
import io.aloft.autoscaler.model.ClusterSnapshot;
import io.aloft.autoscaler.policy.Policy;
import io.aloft.autoscaler.policy.Units;
import io.aloft.autoscaler.scaling.Decision;
import io.aloft.autoscaler.scaling.ScalingDecider;
import io.aloft.autoscaler.service.Autoscaler;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * A load step on a cluster larger than this machine can run, decided by the real policy code: the
 * {@link ScalingDecider} and {@link Balancer} of a policy file, the executor's batching and limits,
 * on synthetic metrics ({@link BalanceSimulation#skewedCluster}: Zipf-skewed partitions, consumers
 * reading 1 to 3 times what is written) and a virtual clock. It follows the control loop's order:
 * an evaluation every {@code interval}; a scale-out starts every broker it adds and waits for them
 * ({@code brokerBoot}); the balancer then runs at once, {@code maxMovesPerRun} moves per run, each
 * batch taking {@code moveTime}, with the policy's pause between batches; one evaluation settles
 * after moves.
 *
 * <p>What it does not model: metric noise and the collector's averaging window (real rates lag the
 * step by up to one window), per-broker capacity limits, and clients' metadata refreshes after a move.
 *
 * <p>Deterministic and single-threaded.
 */
public final class StepSimulation {

    /**
     * The scenario.
     *
     * @param brokers brokers before the step
     * @param partitions partitions, in topics of 20
     * @param racks racks the brokers are spread over (0: none)
     * @param fromBytesPerSec the cluster's ingress before the step
     * @param toBytesPerSec after the step
     * @param brokerBoot from a broker's start to it serving (a pod on a running node: about a minute)
     * @param moveTime one batch of moves, from the reassignment to the new owners serving (a graceful
     *     drain of 1,000 partitions took 2.5-4.3 s here, README "Graceful drain")
     * @param horizon when to stop
     * @param seed of the synthetic loads
     */
    public record Scenario(int brokers, int partitions, int racks, double fromBytesPerSec, double toBytesPerSec,
            Duration brokerBoot, Duration moveTime, Duration horizon, long seed) {

        public Scenario {
            Objects.requireNonNull(brokerBoot, "brokerBoot");
            Objects.requireNonNull(moveTime, "moveTime");
            Objects.requireNonNull(horizon, "horizon");
            if (brokers < 1 || partitions < 1 || racks < 0 || !(fromBytesPerSec > 0) || !(toBytesPerSec > 0)) {
                throw new IllegalArgumentException("brokers, partitions and rates must be positive, racks at least 0");
            }
        }

        /** The issue's scenario: 3 brokers, 1,000 partitions in 3 racks, 100 MiB/s to 1 GiB/s. */
        public static Scenario issue18() {
            return new Scenario(3, 1000, 3, 100 * 1024 * 1024, 1024 * 1024 * 1024, Duration.ofSeconds(60),
                    Duration.ofSeconds(3), Duration.ofMinutes(30), 1);
        }
    }

    /** One thing that happened, {@code at} after the step. */
    public record Event(Duration at, String what) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "+%6.1f s  %s", at.toMillis() / 1000.0, what);
        }
    }

    /**
     * The outcome; times are from the step, null when it did not happen within the horizon.
     *
     * @param decision the first scale-out decision
     * @param serving the last added broker serving
     * @param balanced every goal met again with the final broker count
     * @param brokers brokers at the end
     * @param moves partition moves made
     * @param inDeviationPercent ingress max deviation from the mean at the end
     */
    public record Result(List<Event> events, Duration decision, Duration serving, Duration balanced, int brokers,
            int moves, double inDeviationPercent) {}

    private StepSimulation() {}

    /** Runs {@code scenario} under {@code policy}. */
    public static Result run(Policy policy, Scenario scenario) {
        Balancer balancer = new Balancer(policy.balancing().toBalancerConfig());
        ExecutionLimits limits = Autoscaler.limits(policy.execution());
        ScalingDecider decider = new ScalingDecider(policy);
        // Start from a cluster balanced at the low load, as a steady cluster would be.
        ClusterSnapshot cluster = BalanceSimulation.run(BalanceSimulation.skewedCluster(scenario.brokers(),
                scenario.racks(), scenario.partitions(), scenario.fromBytesPerSec(), scenario.seed()), Set.of(),
                balancer, 100).after();
        cluster = BalanceSimulation.withLoadScaled(cluster, scenario.toBytesPerSec() / scenario.fromBytesPerSec());
        int voterFloor = Math.min(3, scenario.brokers());
        Instant step = Instant.parse("2026-01-01T00:00:00Z");
        List<Event> events = new ArrayList<>();
        events.add(new Event(Duration.ZERO, String.format(Locale.ROOT,
                "ingress steps %s -> %s on %d brokers, %d partitions, %d racks (ingress max deviation %+.1f%%)",
                Units.formatRate(scenario.fromBytesPerSec()), Units.formatRate(scenario.toBytesPerSec()),
                scenario.brokers(), scenario.partitions(), scenario.racks(),
                BalanceSimulation.maxInDeviationPercent(cluster))));
        Duration decision = null;
        Duration serving = null;
        Duration balanced = null;
        int moves = 0;
        int settle = 0;
        Duration lastChange = Duration.ZERO;
        Duration now = policy.interval(); // the first evaluation after the step: at worst an interval later
        while (now.compareTo(scenario.horizon()) <= 0) {
            Duration evaluationStart = now;
            Decision d = decider.decide(cluster, cluster.brokers().size(), voterFloor, step.plus(now));
            boolean fill = false;
            if (d.action() == Decision.Action.SCALE_OUT) {
                int add = d.desiredBrokers() - d.currentBrokers();
                decision = decision == null ? now : decision;
                events.add(new Event(now, "scale out " + d.currentBrokers() + " -> " + d.desiredBrokers() + " ("
                        + d.reason() + ")"));
                now = now.plus(scenario.brokerBoot());
                cluster = BalanceSimulation.withNewBrokers(cluster, add, scenario.racks());
                decider.scaled(d, step.plus(now));
                serving = now;
                lastChange = now;
                balanced = null;
                events.add(new Event(now, add + " new brokers serving"));
                fill = true;
                settle = 0;
            } else if (d.action() == Decision.Action.SCALE_IN) {
                events.add(new Event(now, "scale in wanted (" + d.reason() + "); the simulation stops here"));
                break;
            }
            if (settle > 0 && !fill) {
                settle--;
            } else {
                Plan plan = balancer.plan(cluster, Set.of());
                if (plan.isEmpty()) {
                    if (balanced == null && serving != null) {
                        balanced = lastChange;
                        events.add(new Event(now, String.format(Locale.ROOT,
                                "balanced since +%.1f s: no move improves any goal (ingress max deviation %+.1f%%)",
                                lastChange.toMillis() / 1000.0, BalanceSimulation.maxInDeviationPercent(cluster))));
                    }
                } else {
                    List<Move> run = plan.moves().subList(0, Math.min(limits.maxMovesPerRun(), plan.moves().size()));
                    int batches = Batches.split(run, limits.maxConcurrentMovesPerBroker()).size();
                    now = now.plus(scenario.moveTime().multipliedBy(batches))
                            .plus(limits.pauseBetweenBatches().multipliedBy(batches - 1));
                    cluster = Balancer.apply(cluster, new Plan(run, plan.findings()));
                    moves += run.size();
                    lastChange = now;
                    balanced = null;
                    settle = 1;
                    events.add(new Event(now, String.format(Locale.ROOT,
                            "%d moves in %d batches done (ingress max deviation now %+.1f%%)", run.size(), batches,
                            BalanceSimulation.maxInDeviationPercent(cluster))));
                }
            }
            if (balanced != null) {
                break;
            }
            Duration next = evaluationStart.plus(policy.interval());
            now = now.compareTo(next) < 0 ? next : now;
        }
        return new Result(events, decision, serving, balanced, cluster.brokers().size(), moves,
                BalanceSimulation.maxInDeviationPercent(cluster));
    }
}
