package io.aloft.autoscaler.service;

import io.aloft.autoscaler.backend.ScalingBackend;
import io.aloft.autoscaler.balance.Plan;
import io.aloft.autoscaler.model.ClusterSnapshot;
import io.aloft.autoscaler.model.PartitionLoad;
import io.aloft.autoscaler.scaling.Decision;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The autoscaler's control loop: every interval it takes a snapshot of the cluster, asks the scaling
 * policies for a decision and acts on it, or else balances.
 *
 * <ul>
 *   <li><b>Scale out:</b> the backend starts brokers one at a time; each must register before the
 *       next; the balancer then moves partitions onto them in the same evaluation (a new broker is
 *       the least loaded, so the network and partition-count goals fill it).
 *   <li><b>Scale in:</b> the backend names the broker that may go (never a controller voter); the
 *       balancer drains it (every partition moved by reassignment, rate-limited like any plan); only
 *       when a fresh snapshot shows it serving nothing does the backend stop it. A drain that does
 *       not finish leaves the broker running and is retried at the next evaluation.
 *   <li><b>Otherwise</b> the balancer's plan, if any, runs; for the next {@code settleEvaluations}
 *       evaluations after moves nothing is balanced, because rates measured across a move describe
 *       neither placement.
 * </ul>
 *
 * <p>Decisions are logged with their reasons: every action at INFO, an unchanged "no change" only
 * when its rule changes (DEBUG otherwise), so a steady cluster does not fill the log.
 *
 * <p>Owned by one thread (the service's main thread, or a test's); not thread-safe.
 */
public final class ControlLoop {
    private static final Logger log = LoggerFactory.getLogger(ControlLoop.class);

    /** Takes a snapshot (rates since the previous one). */
    @FunctionalInterface
    public interface Sampler {
        ClusterSnapshot sample() throws IOException, InterruptedException;
    }

    /** The scaling policies. */
    public interface Decider {
        Decision decide(ClusterSnapshot snapshot, int currentBrokers, int voterFloor, Instant now);

        void scaled(Decision done, Instant at);
    }

    /** The balancer: a plan that drains {@code draining} and balances the rest. */
    @FunctionalInterface
    public interface Planner {
        Plan plan(ClusterSnapshot snapshot, Set<Integer> draining);
    }

    /** Runs a plan as reassignments (or only prints it in a dry run). */
    @FunctionalInterface
    public interface Mover {
        Outcome execute(Plan plan, boolean dryRun) throws InterruptedException;
    }

    /** What running a plan did. */
    public record Outcome(int done, int failed, int deferred) {}

    /** Whether broker {@code id} is registered and serving. */
    @FunctionalInterface
    public interface BrokerWatch {
        boolean serving(int id) throws IOException, InterruptedException;
    }

    /**
     * Settings of the loop.
     *
     * @param interval time between evaluations
     * @param balancing whether to balance at all (scale-in drains run regardless)
     * @param dryRun print plans and decisions, change nothing
     * @param settleEvaluations evaluations without balancing after moves
     * @param brokerStartTimeout how long a new broker may take to register
     */
    public record Settings(Duration interval, boolean balancing, boolean dryRun, int settleEvaluations,
            Duration brokerStartTimeout) {}

    private final Sampler sampler;
    private final Decider decider;
    private final Planner planner;
    private final Mover mover;
    private final ScalingBackend backend;
    private final BrokerWatch watch;
    private final Settings settings;
    private final AutoscalerMetrics metrics;
    private final Clock clock;
    private int settling;
    private String lastQuietRule = "";

    public ControlLoop(Sampler sampler, Decider decider, Planner planner, Mover mover, ScalingBackend backend,
            BrokerWatch watch, Settings settings, AutoscalerMetrics metrics, Clock clock) {
        this.sampler = Objects.requireNonNull(sampler);
        this.decider = Objects.requireNonNull(decider);
        this.planner = Objects.requireNonNull(planner);
        this.mover = Objects.requireNonNull(mover);
        this.backend = Objects.requireNonNull(backend);
        this.watch = Objects.requireNonNull(watch);
        this.settings = Objects.requireNonNull(settings);
        this.metrics = Objects.requireNonNull(metrics);
        this.clock = Objects.requireNonNull(clock);
    }

    /**
     * Evaluates until {@code stop} answers true (checked between evaluations and while waiting for the
     * next) or the thread is interrupted.
     */
    public void run(BooleanSupplier stop) throws InterruptedException {
        while (!stop.getAsBoolean()) {
            long started = System.nanoTime();
            try {
                evaluate();
            } catch (IOException e) {
                // A failed scrape or backend call is logged and retried at the next evaluation.
                log.warn("Evaluation failed: {}", e.toString());
            }
            // Waits in short steps so a stop request ends the wait, never an evaluation under way.
            long end = started + settings.interval().toNanos();
            while (!stop.getAsBoolean() && System.nanoTime() < end) {
                Thread.sleep(Math.max(1, Math.min(200, (end - System.nanoTime()) / 1_000_000)));
            }
        }
    }

    /** One evaluation: snapshot, decision, action. */
    public void evaluate() throws IOException, InterruptedException {
        long started = System.nanoTime();
        try {
            ClusterSnapshot snapshot = sampler.sample();
            metrics.snapshot(snapshot);
            List<Integer> running = backend.brokers();
            int voterFloor = backend.protectedBrokers().size();
            Decision decision = decider.decide(snapshot, running.size(), voterFloor, clock.instant());
            metrics.decision(decision);
            if (decision.action() != Decision.Action.NONE) {
                lastQuietRule = "";
            }
            switch (decision.action()) {
                case SCALE_OUT -> scaleOut(decision, running.size());
                case SCALE_IN -> scaleIn(decision, snapshot);
                case NONE -> {
                    logQuiet(decision);
                    balance(snapshot);
                }
            }
        } finally {
            metrics.evaluation().record(Duration.ofNanos(System.nanoTime() - started));
        }
    }

    private void scaleOut(Decision decision, int running) throws IOException, InterruptedException {
        log.info("Scale out {} -> {} brokers ({})", decision.currentBrokers(), decision.desiredBrokers(),
                why(decision));
        if (settings.dryRun()) {
            return;
        }
        Instant started = clock.instant();
        // All brokers are started first, then awaited together: a scale-out by 20 brokers takes one
        // start-up time, not twenty (a StatefulSet starts pods in parallel with Parallel pod management).
        List<Integer> added = new ArrayList<>();
        for (int n = running; n < decision.desiredBrokers(); n++) {
            added.add(backend.addBroker());
        }
        for (int id : added) {
            boolean serving = awaitServing(id, started);
            metrics.scaling("out", serving, Duration.between(started, clock.instant()));
            if (serving) {
                log.info("Broker {} serves, {} after the decision", id, since(started));
            } else {
                log.warn("Broker {} did not register within {} of the decision; balancing onto those that did", id,
                        settings.brokerStartTimeout());
            }
        }
        decider.scaled(decision, clock.instant());
        // Fill the new brokers now rather than an interval later: a snapshot taken now shows them empty.
        settling = 0;
        balance(sampler.sample());
    }

    private void scaleIn(Decision decision, ClusterSnapshot snapshot) throws IOException, InterruptedException {
        int id = backend.removalCandidate();
        if (id < 0) {
            log.info("Scale in wanted ({}) but no broker may be removed (the rest embed controller voters)",
                    why(decision));
            return;
        }
        log.info("Scale in {} -> {} brokers: draining broker {} ({})", decision.currentBrokers(),
                decision.desiredBrokers(), id, why(decision));
        Instant started = clock.instant();
        Plan drain = planner.plan(snapshot, Set.of(id));
        run(drain);
        if (settings.dryRun()) {
            return;
        }
        List<PartitionLoad> left = sampler.sample().partitionsByBroker().getOrDefault(id, List.of());
        if (!left.isEmpty()) {
            log.warn("Broker {} still serves {} partitions (e.g. {}); it stays until a later evaluation drains it",
                    id, left.size(), left.get(0).name());
            metrics.scaling("in", false, Duration.between(started, clock.instant()));
            return;
        }
        backend.removeBroker(id);
        decider.scaled(decision, clock.instant());
        metrics.scaling("in", true, Duration.between(started, clock.instant()));
        log.info("Broker {} drained and removed, {} after the decision", id, since(started));
        settling = settings.settleEvaluations();
    }

    private void balance(ClusterSnapshot snapshot) throws InterruptedException {
        if (!settings.balancing()) {
            return;
        }
        if (settling > 0) {
            settling--;
            log.debug("Not balancing: rates still settle after the last moves ({} more evaluations)", settling);
            return;
        }
        run(planner.plan(snapshot, Set.of()));
    }

    private void run(Plan plan) throws InterruptedException {
        if (plan.isEmpty()) {
            metrics.moves(0, 0, 0, 0);
            return;
        }
        plan.findings().forEach(f -> log.info("Balance: {}", f));
        Outcome outcome = mover.execute(plan, settings.dryRun());
        metrics.moves(plan.moves().size(), outcome.done(), outcome.failed(), outcome.deferred());
        if (outcome.done() > 0) {
            settling = settings.settleEvaluations();
        }
    }

    private boolean awaitServing(int id, Instant since) throws IOException, InterruptedException {
        Instant deadline = since.plus(settings.brokerStartTimeout());
        while (clock.instant().isBefore(deadline)) {
            if (watch.serving(id)) {
                return true;
            }
            Thread.sleep(250);
        }
        return false;
    }

    private void logQuiet(Decision decision) {
        if (!decision.rule().equals(lastQuietRule)) {
            log.info("No scaling ({})", why(decision));
            lastQuietRule = decision.rule();
        } else {
            log.debug("No scaling ({})", why(decision));
        }
    }

    /** "rule: reason", unless the reason already starts with its rule. */
    private static String why(Decision d) {
        return d.reason().startsWith(d.rule()) ? d.reason() : d.rule() + ": " + d.reason();
    }

    private String since(Instant start) {
        return String.format("%.1f s", Duration.between(start, clock.instant()).toMillis() / 1000.0);
    }
}
