package io.aloft.autoscaler.scaling;

import static io.aloft.autoscaler.scaling.Decision.Action.NONE;
import static io.aloft.autoscaler.scaling.Decision.Action.SCALE_IN;
import static io.aloft.autoscaler.scaling.Decision.Action.SCALE_OUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.autoscaler.model.BrokerLoad;
import io.aloft.autoscaler.model.ClusterSnapshot;
import io.aloft.autoscaler.policy.Policy;
import io.aloft.autoscaler.policy.PolicyLoader;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.IntToDoubleFunction;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The scaling decisions on synthetic snapshots: each scenario evaluates a policy parsed from YAML
 * (the real loader) at a fixed clock stepping by the interval, and applies each decision to the
 * broker count it feeds back, as the control loop does.
 */
class ScalingDeciderTest {

    static final double MIB = 1 << 20;
    /** A Monday, 13:00 in Paris. */
    static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");
    static final Duration INTERVAL = Duration.ofSeconds(30);

    static final String TARGET_40MIB = "targetTracking: [{metric: bytesInPerBroker, target: 40MiB}]\n";

    static Policy policy(int min, int max, String scaling) throws Exception {
        return PolicyLoader.parse("minBrokers: " + min + "\nmaxBrokers: " + max
                + "\nbackend: {type: local, clusterDir: c}\nscaling:\n"
                + scaling.lines().map(l -> "  " + l + "\n").reduce("", String::concat));
    }

    /** {@code brokers} brokers sharing {@code totalIn} bytes/s of ingress evenly (egress the same). */
    static ClusterSnapshot load(int brokers, double totalIn) {
        List<BrokerLoad> loads = IntStream.range(0, brokers)
                .mapToObj(id -> BrokerLoad.ofNetwork(id, null, totalIn / brokers, totalIn / brokers)).toList();
        return new ClusterSnapshot(0, loads, List.of());
    }

    static BrokerLoad withWalFullWaits(int id, double waitsPerSec) {
        return new BrokerLoad(id, Optional.empty(), 10 * MIB, 10 * MIB, Double.NaN, Double.NaN, Double.NaN,
                waitsPerSec, Double.NaN, true);
    }

    /**
     * Evaluates {@code evaluations} times from {@code start} at the policy's interval with total
     * ingress {@code totalAt(i)}, acting on every decision; returns the decisions.
     */
    static List<Decision> run(ScalingDecider decider, int brokers, Instant start, int evaluations,
            IntToDoubleFunction totalAt) {
        List<Decision> decisions = new ArrayList<>();
        int current = brokers;
        Instant now = start;
        for (int i = 0; i < evaluations; i++) {
            Decision d = decider.decide(load(current, totalAt.applyAsDouble(i)), current, 1, now);
            if (d.action() != NONE) {
                decider.scaled(d, now);
                current = d.desiredBrokers();
            }
            decisions.add(d);
            now = now.plus(INTERVAL);
        }
        return decisions;
    }

    static List<Decision> actions(List<Decision> decisions) {
        return decisions.stream().filter(d -> d.action() != NONE).toList();
    }

    @Test
    void targetTracking_overTarget_scalesOutToCeilOfTotalOverTarget() throws Exception {
        ScalingDecider decider = new ScalingDecider(policy(1, 10, TARGET_40MIB));
        Decision d = decider.decide(load(2, 130 * MIB), 2, 1, T0);
        assertEquals(new Decision(SCALE_OUT, 2, 4, "targetTracking[0]",
                "bytesInPerBroker 65.0 MiB/s per broker on 2 (target 40.0 MiB/s, total 130.0 MiB/s): needs 4 brokers"), d);
    }

    @Test
    void targetTracking_exactlyAtTarget_holds() throws Exception {
        ScalingDecider decider = new ScalingDecider(policy(1, 10, TARGET_40MIB));
        Decision d = decider.decide(load(2, 80 * MIB), 2, 1, T0);
        assertEquals(NONE, d.action());
        assertEquals("targetTracking[0]", d.rule());
    }

    @Test
    void targetTracking_underTarget_removesOneBrokerOnceTheStabilizationWindowIsLow() throws Exception {
        ScalingDecider decider = new ScalingDecider(policy(1, 10, TARGET_40MIB));
        List<Decision> decisions = run(decider, 4, T0, 12, i -> 60 * MIB);
        // 60 MiB/s wants 2 brokers; the 300s window at 30s is 11 evaluations (0s to 300s).
        for (int i = 0; i < 10; i++) {
            assertEquals(NONE, decisions.get(i).action(), "evaluation " + i + ": " + decisions.get(i));
        }
        assertTrue(decisions.get(9).reason().endsWith("held: fewer brokers wanted for 270s of the 300s"
                + " stabilization window"), decisions.get(9).reason());
        assertEquals(new Decision(SCALE_IN, 4, 3, "targetTracking[0]", "bytesInPerBroker 15.0 MiB/s per broker on 4"
                + " (target 40.0 MiB/s, total 60.0 MiB/s): 2 would do; with one fewer 20.0 MiB/s per broker,"
                + " under 90% of target; removing one broker"), decisions.get(10));
        assertEquals(NONE, decisions.get(11).action(), "the scale-in cooldown holds the next one");
    }

    @Test
    void targetTracking_oneFewerWouldLandNearTarget_neverScalesIn() throws Exception {
        ScalingDecider decider = new ScalingDecider(policy(1, 10, TARGET_40MIB));
        // 75 MiB/s: ceil(75/40) = 2 < 3, but 2 brokers would carry 37.5 MiB/s each, over 90% of 40.
        List<Decision> decisions = run(decider, 3, T0, 40, i -> 75 * MIB);
        assertEquals(List.of(), actions(decisions));
        assertTrue(decisions.get(39).reason().contains("hold; with one fewer 37.5 MiB/s per broker, not under 90%"),
                decisions.get(39).reason());
    }

    @Test
    void step_rangesAddOrRemoveBrokers() throws Exception {
        String steps = """
                step:
                  - metric: bytesInPerBroker
                    thresholds:
                      - {upperBound: 10MiB, adjustment: -1}
                      - {lowerBound: 50MiB, upperBound: 100MiB, adjustment: +1}
                      - {lowerBound: 100MiB, adjustment: +3}
                """;
        assertEquals(new Decision(SCALE_OUT, 2, 3, "step[0]",
                "bytesInPerBroker 60.0 MiB/s per broker on 2 in [50.0 MiB/s, 100.0 MiB/s): adjustment +1"),
                new ScalingDecider(policy(1, 10, steps)).decide(load(2, 120 * MIB), 2, 1, T0));
        assertEquals(5, new ScalingDecider(policy(1, 10, steps)).decide(load(2, 200 * MIB), 2, 1, T0)
                .desiredBrokers(), "100 MiB/s per broker is in the +3 range (lower bound inclusive)");
        Decision between = new ScalingDecider(policy(1, 10, steps)).decide(load(3, 60 * MIB), 3, 1, T0);
        assertEquals(Decision.none(3, "none", "no rule has data or a matching step"), between);

        List<Decision> low = actions(run(new ScalingDecider(policy(1, 10, steps)), 3, T0, 12, i -> 15 * MIB));
        assertEquals(List.of(new Decision(SCALE_IN, 3, 2, "step[0]", "bytesInPerBroker 5.0 MiB/s per broker on 3"
                + " in [unbounded, 10.0 MiB/s): adjustment -1; removing one broker")), low);
    }

    @Test
    void rules_scaleOutWinsOverScaleIn_andAHoldingRuleVetoesScaleIn() throws Exception {
        String two = """
                targetTracking:
                  - {metric: bytesInPerBroker, target: 40MiB}
                  - {metric: cpu, target: 0.5}
                """;
        ScalingDecider decider = new ScalingDecider(policy(1, 10, two));
        List<BrokerLoad> hotCpu = List.of(cpu(0, 10 * MIB, 0.9), cpu(1, 10 * MIB, 0.9));
        Decision d = decider.decide(new ClusterSnapshot(0, hotCpu, List.of()), 2, 1, T0);
        assertEquals(SCALE_OUT, d.action());
        assertEquals(4, d.desiredBrokers(), "CPU 1.8 over target 0.5 wants 4; ingress wants 1");
        assertEquals("targetTracking[1]", d.rule());

        ScalingDecider vetoed = new ScalingDecider(policy(1, 10, two));
        List<BrokerLoad> warmCpu = List.of(cpu(0, 5 * MIB, 0.48), cpu(1, 5 * MIB, 0.48), cpu(2, 5 * MIB, 0.48));
        for (int i = 0; i < 40; i++) {
            Decision held = vetoed.decide(new ClusterSnapshot(0, warmCpu, List.of()), 3, 1, T0.plus(INTERVAL.multipliedBy(i)));
            assertEquals(NONE, held.action(), "CPU holds at 3 (2 would run at 72%), ingress alone would remove one");
        }
    }

    static BrokerLoad cpu(int id, double bytesIn, double cpu) {
        return new BrokerLoad(id, Optional.empty(), bytesIn, bytesIn, cpu, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, true);
    }

    @Test
    void scheduled_windowRaisesMinimum_inItsTimezone() throws Exception {
        Policy p = policy(2, 10, TARGET_40MIB + """
                scheduled:
                  - {cron: "0 8 * * MON-FRI", timezone: Europe/Paris, duration: 10h, minBrokers: 4}
                """);
        Instant mondayMorningParis = Instant.parse("2026-11-30T07:30:00Z");
        assertEquals(new Decision(SCALE_OUT, 2, 4, "scheduled[0]", "2 brokers, below the scheduled[0] bound of 4"),
                new ScalingDecider(p).decide(load(2, MIB), 2, 1, mondayMorningParis));
        Instant sundayNoon = Instant.parse("2026-11-29T12:00:00Z");
        assertEquals(NONE, new ScalingDecider(p).decide(load(2, MIB), 2, 1, sundayNoon).action());
        Instant mondayAfterHours = Instant.parse("2026-11-30T17:00:00Z");
        List<Decision> evening = actions(run(new ScalingDecider(p), 4, mondayAfterHours, 11, i -> MIB));
        assertEquals(List.of(SCALE_IN), evening.stream().map(Decision::action).toList(),
                "after the window the rules scale in again, one broker at a time");
    }

    @Test
    void scheduled_windowLowersMaximum_clampsTheRulesAndScalesInOneAtATime() throws Exception {
        Policy p = policy(1, 10, TARGET_40MIB + """
                scheduled:
                  - {cron: "0 22 * * *", duration: 8h, maxBrokers: 3}
                """);
        Instant night = Instant.parse("2026-11-30T23:00:00Z");
        Decision d = new ScalingDecider(p).decide(load(5, 400 * MIB), 5, 1, night);
        assertEquals(new Decision(SCALE_IN, 5, 4, "scheduled[0]", "5 brokers, above the scheduled[0] bound of 3"), d);
        Decision clamped = new ScalingDecider(p).decide(load(2, 400 * MIB), 2, 1, night);
        assertEquals(3, clamped.desiredBrokers());
        assertTrue(clamped.reason().endsWith("needs 10 brokers; clamped to 3 by scheduled[0]"), clamped.reason());
    }

    @Test
    void emergency_singleSpike_doesNothing_sustainedBreach_addsBrokers() throws Exception {
        Policy p = policy(1, 6, "emergency: {walFullWaitsPerSec: 5, for: 2, add: 2}\n");
        ScalingDecider decider = new ScalingDecider(p);
        double[] waits = {50, 0, 50, 0, 0, 50, 60};
        List<Decision> decisions = new ArrayList<>();
        for (int i = 0; i < waits.length; i++) {
            ClusterSnapshot s = new ClusterSnapshot(0, List.of(withWalFullWaits(0, 0), withWalFullWaits(1, waits[i])),
                    List.of());
            decisions.add(decider.decide(s, 2, 1, T0.plus(INTERVAL.multipliedBy(i))));
        }
        for (int i = 0; i < 6; i++) {
            assertEquals(NONE, decisions.get(i).action(), "evaluation " + i);
        }
        assertEquals(new Decision(SCALE_OUT, 2, 4, "emergency",
                "broker 1 walFullWaitsPerSec 60.00 > 5.00 for 2 evaluations; adding 2"), decisions.get(6));
    }

    @Test
    void emergency_produceP99_unreportedNeverBreaches() throws Exception {
        Policy p = policy(1, 6, "emergency: {produceP99: 200ms, walFillRatio: 0.9}\n");
        ScalingDecider decider = new ScalingDecider(p);
        BrokerLoad unknown = BrokerLoad.ofNetwork(0, null, MIB, MIB);
        BrokerLoad slow = new BrokerLoad(1, Optional.empty(), MIB, MIB, Double.NaN, Double.NaN, 0.35, Double.NaN,
                0.2, true);
        for (int i = 0; i < 5; i++) {
            ClusterSnapshot s = new ClusterSnapshot(0, List.of(unknown), List.of());
            assertEquals(NONE, decider.decide(s, 1, 1, T0.plus(INTERVAL.multipliedBy(i))).action());
        }
        ClusterSnapshot s = new ClusterSnapshot(0, List.of(unknown, slow), List.of());
        assertEquals(NONE, decider.decide(s, 2, 1, T0.plus(INTERVAL.multipliedBy(5))).action());
        assertEquals(new Decision(SCALE_OUT, 2, 3, "emergency",
                "broker 1 produceP99 350ms > 200ms for 2 evaluations; adding 1"),
                decider.decide(s, 2, 1, T0.plus(INTERVAL.multipliedBy(6))));
    }

    @Test
    void emergency_ignoresScaleOutCooldownAndScheduledMax_butNotMaxBrokers() throws Exception {
        Policy p = policy(1, 5, """
                emergency: {walFillRatio: 0.9, for: 1}
                scheduled:
                  - {cron: "0 * * * *", duration: 1h, maxBrokers: 3}
                cooldown: {scaleOut: 10m}
                """);
        ScalingDecider decider = new ScalingDecider(p);
        BrokerLoad full = new BrokerLoad(0, Optional.empty(), MIB, MIB, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, 0.97, true);
        ClusterSnapshot s = new ClusterSnapshot(0, List.of(full), List.of());
        Decision first = decider.decide(s, 3, 1, T0);
        assertEquals(new Decision(SCALE_OUT, 3, 4, "emergency",
                "broker 0 walFillRatio 0.97 > 0.90 for 1 evaluation; adding 1"), first);
        decider.scaled(first, T0);
        Decision second = decider.decide(s, 4, 1, T0.plus(INTERVAL));
        assertEquals(5, second.desiredBrokers(), "inside the 10m scale-out cooldown: " + second);
        decider.scaled(second, T0.plus(INTERVAL));
        Decision atMax = decider.decide(s, 5, 1, T0.plus(INTERVAL.multipliedBy(2)));
        assertEquals(Decision.none(5, "emergency",
                "broker 0 walFillRatio 0.97 > 0.90 for 1 evaluation; already at maxBrokers 5"), atMax);
    }

    @Test
    void cooldown_holdsScaleOutAfterScaleOut_andScaleInAfterAnyChange() throws Exception {
        Policy p = policy(1, 10, TARGET_40MIB + "scaleIn: {stabilizationWindow: 0s}\n");
        ScalingDecider decider = new ScalingDecider(p);
        Decision out = decider.decide(load(2, 100 * MIB), 2, 1, T0);
        assertEquals(3, out.desiredBrokers());
        decider.scaled(out, T0);
        Decision held = decider.decide(load(3, 170 * MIB), 3, 1, T0.plusSeconds(30));
        assertEquals(NONE, held.action());
        assertEquals("cooldown", held.rule());
        assertTrue(held.reason().startsWith("scale-out cooldown until 2026-11-30T12:01:00Z; targetTracking[0]:"),
                held.reason());
        assertEquals(5, decider.decide(load(3, 170 * MIB), 3, 1, T0.plusSeconds(60)).desiredBrokers());

        // The load vanishes right after the scale-out: no scale-in for 300s after it.
        ScalingDecider inAfterOut = new ScalingDecider(p);
        inAfterOut.scaled(inAfterOut.decide(load(2, 100 * MIB), 2, 1, T0), T0);
        List<Decision> later = run(inAfterOut, 3, T0.plusSeconds(30), 10, i -> MIB);
        for (int i = 0; i < 9; i++) {
            assertEquals("cooldown", later.get(i).rule(), later.get(i).toString());
            assertEquals(NONE, later.get(i).action());
        }
        assertEquals(SCALE_IN, later.get(9).action(), "at T0 + 300s");
    }

    @Test
    void flapping_aroundTheTarget_addsOneBrokerAndNeverRemovesIt() throws Exception {
        // Alternating every 1, 2, 3, 5 and 7 evaluations, by 5% and by 30% around 2 brokers' target.
        for (int period : new int[] {1, 2, 3, 5, 7}) {
            for (double amplitude : new double[] {0.05, 0.30}) {
                ScalingDecider decider = new ScalingDecider(policy(1, 10, TARGET_40MIB));
                IntToDoubleFunction flap = i -> 80 * MIB * ((i / period) % 2 == 0 ? 1 + amplitude : 1 - amplitude);
                List<Decision> decisions = run(decider, 2, T0, 40, flap);
                String where = "period " + period + ", amplitude " + amplitude + ": " + actions(decisions);
                assertEquals(List.of(SCALE_OUT), actions(decisions).stream().map(Decision::action).toList(), where);
                assertEquals(decisions, run(new ScalingDecider(policy(1, 10, TARGET_40MIB)), 2, T0, 40, flap),
                        "deterministic");
            }
        }
    }

    @Test
    void flapping_stepRule_atMostOneActionEachWay() throws Exception {
        String steps = """
                step:
                  - metric: bytesInPerBroker
                    thresholds:
                      - {upperBound: 20MiB, adjustment: -1}
                      - {lowerBound: 50MiB, adjustment: +1}
                """;
        IntToDoubleFunction flap = i -> i % 2 == 0 ? 110 * MIB : 30 * MIB;
        List<Decision> done = actions(run(new ScalingDecider(policy(1, 10, steps)), 2, T0, 40, flap));
        assertTrue(done.stream().filter(d -> d.action() == SCALE_OUT).count() <= 1, done.toString());
        assertTrue(done.stream().filter(d -> d.action() == SCALE_IN).count() <= 1, done.toString());
        assertEquals(List.of(SCALE_OUT), done.stream().map(Decision::action).toList());
    }

    @Test
    void voterFloor_scalesOutToIt_andScaleInNeverGoesBelowIt() throws Exception {
        Policy p = policy(1, 10, TARGET_40MIB);
        assertEquals(new Decision(SCALE_OUT, 2, 3, "voterFloor", "2 brokers, below the voterFloor bound of 3"),
                new ScalingDecider(p).decide(load(2, MIB), 2, 3, T0));
        ScalingDecider decider = new ScalingDecider(p);
        for (int i = 0; i < 40; i++) {
            Decision d = decider.decide(load(3, MIB), 3, 3, T0.plus(INTERVAL.multipliedBy(i)));
            assertEquals(NONE, d.action(), d.toString());
        }
    }

    @Test
    void minAndMax_clampTheRules() throws Exception {
        Policy p = policy(2, 6, TARGET_40MIB);
        Decision big = new ScalingDecider(p).decide(load(2, 800 * MIB), 2, 1, T0);
        assertEquals(6, big.desiredBrokers());
        assertTrue(big.reason().endsWith("needs 20 brokers; clamped to 6 by maxBrokers"), big.reason());
        assertEquals(new Decision(SCALE_IN, 8, 7, "maxBrokers", "8 brokers, above the maxBrokers bound of 6"),
                new ScalingDecider(p).decide(load(8, 800 * MIB), 8, 1, T0));
        assertEquals(new Decision(SCALE_OUT, 1, 2, "minBrokers", "1 broker, below the minBrokers bound of 2"),
                new ScalingDecider(p).decide(load(1, 0), 1, 1, T0));
        List<Decision> idle = run(new ScalingDecider(p), 2, T0, 40, i -> 0);
        assertEquals(List.of(), actions(idle), "never below minBrokers");
    }

    @Test
    void scaleInDisabled_keepsEveryBroker() throws Exception {
        Policy p = policy(1, 4, TARGET_40MIB + "scaleIn: {enabled: false}\n");
        List<Decision> decisions = run(new ScalingDecider(p), 3, T0, 20, i -> MIB);
        assertEquals(List.of(), actions(decisions));
        assertEquals("scaleIn", decisions.get(19).rule());
        assertTrue(decisions.get(19).reason().endsWith("scale-in disabled (scaleIn.enabled: false)"));
        assertEquals(NONE, new ScalingDecider(p).decide(load(5, MIB), 5, 1, T0).action(), "not even above max");
    }

    @Test
    void unknownMetrics_noOpinion_andUnreportedBrokersCountAtTheMean() throws Exception {
        Policy p = policy(1, 10, "targetTracking: [{metric: cpu, target: 0.5}]\n");
        Decision d = new ScalingDecider(p).decide(load(2, 100 * MIB), 2, 1, T0);
        assertEquals(Decision.none(2, "none", "no rule has data or a matching step"), d);

        ClusterSnapshot partial = new ClusterSnapshot(0, List.of(cpu(0, MIB, 0.8), cpu(1, MIB, 0.8),
                cpu(2, MIB, Double.NaN)), List.of());
        Decision out = new ScalingDecider(p).decide(partial, 3, 1, T0);
        assertEquals(5, out.desiredBrokers(), "2.4 CPUs (the unreported broker at the mean) over 0.5: " + out);
    }

    @Test
    void simulation_stepFrom100MiBTo1GiB_oneDecisionOutThenOneBrokerPerCooldownIn() throws Exception {
        // 35 MiB/s per broker: 100 MiB/s needs 3 brokers, 1 GiB/s needs 30 (the maximum).
        Policy p = policy(3, 30, "targetTracking: [{metric: bytesInPerBroker, target: 35MiB}]\n");
        IntToDoubleFunction load = i -> i >= 10 && i < 40 ? 1024 * MIB : 100 * MIB;
        List<Decision> decisions = run(new ScalingDecider(p), 3, T0, 100, load);
        List<Integer> when = IntStream.range(0, decisions.size()).filter(i -> decisions.get(i).action() != NONE)
                .boxed().toList();
        assertEquals(new Decision(SCALE_OUT, 3, 30, "targetTracking[0]", "bytesInPerBroker 341.3 MiB/s per broker"
                + " on 3 (target 35.0 MiB/s, total 1.00 GiB/s): needs 30 brokers"), decisions.get(10),
                "the whole step at the first evaluation that sees it");
        // Back to 100 MiB/s at evaluation 40: the stabilization window (300s, evaluations 40-50) then
        // one broker per 300s scale-in cooldown.
        assertEquals(List.of(10, 50, 60, 70, 80, 90), when);
        assertEquals(25, decisions.get(99).currentBrokers());
    }
}
