package io.aloft.omb.compare;

import io.aloft.omb.runner.RunResult;
import io.aloft.servers.BenchServer;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The orchestration of {@code compare}: for each step of the plan, for each repeat, each system
 * started fresh, the workload run against it, the system stopped — whatever happened — before the
 * next one starts. Systems alternate: odd repeats run them in the given order (Kafka first), even
 * repeats in reverse, so neither side always runs on a warmer machine.
 *
 * <p>A step with {@code rateFrom} runs at {@code rateFraction} x the reference Kafka's median
 * {@value #RATE_FIGURE} in that earlier step, passed to the executor as the {@code producerRate}
 * override: "50% load" means half of what Kafka sustained on this machine in this run.
 *
 * <p>A failed run (server start, workload, or time limit) is recorded with its error and the
 * comparison goes on; its figures are left out of the medians. Confined to the calling thread,
 * apart from one worker thread per run so a hung workload can be abandoned at the time limit.
 */
final class CompareRun {
    /** The figure whose Kafka median sets the rate of a {@code rateFrom} step. */
    static final String RATE_FIGURE = "publishRateMsgs";
    static final String THROUGHPUT_FIGURE = "publishMBps";
    static final String P99_BEFORE_DRAIN = "publishLatencyP99BeforeDrainMs";
    static final String P99_DURING_DRAIN = "publishLatencyP99DuringDrainMs";
    /** Derived per run: the drain target is this ratio ≤ 1.2. */
    static final String P99_DRAIN_RATIO = "publishLatencyP99DuringOverBeforeDrain";

    private final List<ComparePlan.Step> steps;
    private final List<SystemKind> systems;
    private final int repeats;
    private final Map<String, String> quickOverrides;
    private final boolean quick;
    private final Map<String, String> durationOverrides;
    private final ServerFactory servers;
    private final WorkloadExecutor executor;
    private final Duration runTimeout;
    private final PrintStream progress;
    private final Map<SystemKind, String> descriptions = new EnumMap<>(SystemKind.class);

    /**
     * @param steps the plan's steps to run, in plan order
     * @param quickOverrides the plan's {@code --quick} overrides, or null without {@code --quick}
     * @param durationOverrides durations given on the command line, applied to every step last
     */
    CompareRun(List<ComparePlan.Step> steps, List<SystemKind> systems, int repeats, Map<String, String> quickOverrides,
            Map<String, String> durationOverrides, ServerFactory servers, WorkloadExecutor executor, Duration runTimeout, PrintStream progress) {
        this.steps = List.copyOf(steps);
        this.systems = List.copyOf(systems);
        this.repeats = repeats;
        this.quick = quickOverrides != null;
        this.quickOverrides = quickOverrides == null ? Map.of() : Map.copyOf(quickOverrides);
        this.durationOverrides = Map.copyOf(durationOverrides);
        this.servers = servers;
        this.executor = executor;
        this.runTimeout = runTimeout;
        this.progress = progress;
    }

    /** The systems in the order repeat {@code repeat} (from 1) runs them. */
    static List<SystemKind> order(List<SystemKind> systems, int repeat) {
        List<SystemKind> order = new ArrayList<>(systems);
        if (repeat % 2 == 0) {
            Collections.reverse(order);
        }
        return order;
    }

    CompareResult run(MachineInfo machine) {
        SystemKind reference = systems.stream().filter(SystemKind::isKafka).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no Kafka system to compare against"));
        Map<String, CompareResult.StepResult> done = new LinkedHashMap<>();
        for (int i = 0; i < steps.size(); i++) {
            ComparePlan.Step step = steps.get(i);
            progress.printf("== step %d/%d: %s (%s, %s)%n", i + 1, steps.size(), step.name(),
                    step.workload().getFileName(), step.driver().getFileName());
            done.put(step.name(), runStep(step, reference, done));
        }
        return new CompareResult(machine, systems, descriptions, repeats, quick, List.copyOf(done.values()));
    }

    private CompareResult.StepResult runStep(ComparePlan.Step step, SystemKind reference,
            Map<String, CompareResult.StepResult> done) {
        Map<String, String> overrides = new LinkedHashMap<>(step.overrides());
        if (quick) {
            overrides.putAll(quickOverrides);
            overrides.putAll(step.quickOverrides());
        }
        overrides.putAll(durationOverrides);
        Long rate = null;
        String rateNote = null;
        String rateError = null;
        if (step.derivesRate()) {
            Double max = done.get(step.rateFrom()).medians().getOrDefault(reference, Map.of()).get(RATE_FIGURE);
            if (max == null || !(max > 0)) {
                rateError = "no " + reference.label() + " " + RATE_FIGURE + " from step '" + step.rateFrom()
                        + "' to derive the rate from";
                rateNote = rateError;
            } else {
                rate = Math.max(1, Math.round(step.rateFraction() * max));
                overrides.put("producerRate", Long.toString(rate));
                rateNote = String.format("producerRate = %.2f x %s max %s in '%s' (%.0f msg/s) = %d msg/s",
                        step.rateFraction(), reference.label(), RATE_FIGURE, step.rateFrom(), max, rate);
            }
            progress.println("   " + rateNote);
        }
        List<CompareResult.Run> runs = new ArrayList<>();
        for (int r = 1; r <= repeats; r++) {
            List<SystemKind> order = order(systems, r);
            for (int pos = 0; pos < order.size(); pos++) {
                SystemKind system = order.get(pos);
                progress.printf("   repeat %d/%d, %d/%d: %s%n", r, repeats, pos + 1, order.size(), system.cliName());
                CompareResult.Run run = rateError != null
                        ? new CompareResult.Run(step.name(), r, pos + 1, system, Map.copyOf(overrides), Map.of(),
                                rateError, 0)
                        : runOnce(step, r, pos + 1, system, Map.copyOf(overrides));
                if (!run.ok()) {
                    progress.println("   FAILED: " + run.error());
                }
                runs.add(run);
            }
        }
        Map<SystemKind, Map<String, Double>> medians = medians(runs, systems);
        if (step.relativeTo() != null) {
            addRelative(medians, done.get(step.relativeTo()));
        }
        return new CompareResult.StepResult(step, rate, rateNote, runs, medians);
    }

    private CompareResult.Run runOnce(ComparePlan.Step step, int repeat, int position, SystemKind system,
            Map<String, String> overrides) {
        long start = System.nanoTime();
        BenchServer server = null;
        try {
            server = servers.create(system);
            descriptions.putIfAbsent(system, server.description());
            server.start();
            RunResult result = execute(step, server.bootstrap(), server.clientProperties(), overrides);
            return new CompareResult.Run(step.name(), repeat, position, system, overrides,
                    withDerived(result.figures()), null, seconds(start));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new CompareResult.Run(step.name(), repeat, position, system, overrides, Map.of(),
                    "interrupted", seconds(start));
        } catch (Exception e) {
            return new CompareResult.Run(step.name(), repeat, position, system, overrides, Map.of(),
                    e.toString(), seconds(start));
        } finally {
            if (server != null) {
                server.stop();
            }
        }
    }

    /** Runs the workload on a worker thread, so a run that hangs is abandoned at {@link #runTimeout}. */
    private RunResult execute(ComparePlan.Step step, String bootstrap, Map<String, String> clientProperties,
            Map<String, String> overrides) throws Exception {
        FutureTask<RunResult> task = new FutureTask<>(
                () -> executor.run(step.workload(), step.driver(), bootstrap, clientProperties, overrides));
        Thread worker = new Thread(task, "omb-compare-run-" + step.name());
        worker.setDaemon(true);
        worker.start();
        try {
            return task.get(runTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            task.cancel(true);
            throw new TimeoutException("the run exceeded the time limit of " + runTimeout.toMinutes()
                    + " min (--run-timeout)");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    /** The runner's figures plus the ratios the targets are stated in. */
    static Map<String, Double> withDerived(Map<String, Double> figures) {
        Map<String, Double> out = new LinkedHashMap<>(figures);
        Double before = figures.get(P99_BEFORE_DRAIN);
        Double during = figures.get(P99_DURING_DRAIN);
        if (before != null && during != null && before > 0) {
            out.put(P99_DRAIN_RATIO, during / before);
        }
        return out;
    }

    /** Per system, the median of each figure over its finished runs; figures in first-seen order. */
    static Map<SystemKind, Map<String, Double>> medians(List<CompareResult.Run> runs, List<SystemKind> systems) {
        Map<SystemKind, Map<String, Double>> out = new EnumMap<>(SystemKind.class);
        for (SystemKind system : systems) {
            Map<String, List<Double>> values = new LinkedHashMap<>();
            for (CompareResult.Run run : runs) {
                if (run.system() == system && run.ok()) {
                    run.figures().forEach((k, v) -> values.computeIfAbsent(k, x -> new ArrayList<>()).add(v));
                }
            }
            Map<String, Double> medians = new LinkedHashMap<>();
            values.forEach((k, v) -> medians.put(k, median(v)));
            out.put(system, medians);
        }
        return out;
    }

    /** The median; for an even count the mean of the two middle values (so 2 repeats give their mean). */
    static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        if (n == 0) {
            throw new IllegalArgumentException("no values");
        }
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** Adds {@code publishMBps/<step>}: this step's throughput as a fraction of the other step's. */
    private static void addRelative(Map<SystemKind, Map<String, Double>> medians, CompareResult.StepResult base) {
        medians.forEach((system, figures) -> {
            Double mine = figures.get(THROUGHPUT_FIGURE);
            Double theirs = base.medians().getOrDefault(system, Map.of()).get(THROUGHPUT_FIGURE);
            if (mine != null && theirs != null && theirs > 0) {
                figures.put(THROUGHPUT_FIGURE + "/" + base.step().name(), mine / theirs);
            }
        });
    }

    private static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }
}
