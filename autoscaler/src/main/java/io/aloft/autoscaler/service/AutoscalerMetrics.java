package io.aloft.autoscaler.service;

import io.aloft.autoscaler.model.ClusterSnapshot;
import io.aloft.autoscaler.scaling.Decision;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.DoubleAdder;

/**
 * The autoscaler's own meters, served on {@code /metrics} (and {@code /-/healthy}) by the Prometheus
 * client's HTTP server when a listener is given: what it decided, what it moved, what it saw.
 *
 * <p>Meters are updated by the control thread and read by the HTTP server's thread; Micrometer's
 * meters and the atomics here are thread-safe.
 */
public final class AutoscalerMetrics implements AutoCloseable {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final AtomicLong brokers = new AtomicLong();
    private final AtomicLong readyBrokers = new AtomicLong();
    private final AtomicLong lastPlanMoves = new AtomicLong();
    private final DoubleAdder clusterBytesIn = new DoubleAdder();
    private final Timer evaluation;
    private HTTPServer server;

    public AutoscalerMetrics() {
        Gauge.builder("aloft_autoscaler_brokers", brokers, AtomicLong::get)
                .description("Brokers registered in the last snapshot").register(registry);
        Gauge.builder("aloft_autoscaler_ready_brokers", readyBrokers, AtomicLong::get)
                .description("Brokers whose /readyz answered 200 in the last snapshot").register(registry);
        Gauge.builder("aloft_autoscaler_plan_moves", lastPlanMoves, AtomicLong::get)
                .description("Moves in the last balancing plan (0: balanced)").register(registry);
        Gauge.builder("aloft_autoscaler_cluster_bytes_in_per_second", clusterBytesIn, DoubleAdder::sum)
                .description("Sum of the brokers' ingress in the last snapshot, bytes per second").register(registry);
        evaluation = Timer.builder("aloft_autoscaler_evaluation").description("One control-loop evaluation,"
                + " moves and scaling included").register(registry);
    }

    /** Starts serving on {@code listener} ({@code http://host:port}; port 0 = any). Returns the bound port. */
    public int serve(String listener) throws IOException {
        URI uri = URI.create(listener);
        if (!"http".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new IOException("--metrics-listener must be http://host:port, was " + listener);
        }
        server = HTTPServer.builder().hostname(uri.getHost()).port(Math.max(uri.getPort(), 0))
                .registry(registry.getPrometheusRegistry()).buildAndStart();
        return server.getPort();
    }

    /** Records what a snapshot showed. */
    void snapshot(ClusterSnapshot snapshot) {
        brokers.set(snapshot.brokers().size());
        readyBrokers.set(snapshot.brokers().stream().filter(b -> b.ready()).count());
        clusterBytesIn.reset();
        clusterBytesIn.add(snapshot.totalBytesInPerSec());
    }

    /** Counts a scaling decision by action and rule. */
    void decision(Decision decision) {
        Counter.builder("aloft_autoscaler_decisions").description("Scaling decisions by action and deciding rule")
                .tag("action", decision.action().name()).tag("rule", ruleFamily(decision.rule()))
                .register(registry).increment();
    }

    /** Counts broker additions and removals that completed or failed. */
    void scaling(String direction, boolean succeeded, Duration took) {
        Timer.builder("aloft_autoscaler_scaling").description("Broker additions (out) and removals (in),"
                + " from the decision until the broker serves or has gone")
                .tag("direction", direction).tag("result", succeeded ? "done" : "failed")
                .register(registry).record(took);
    }

    /** Records a balancing plan's size and the outcome of its moves. */
    void moves(int planned, int done, int failed, int deferred) {
        lastPlanMoves.set(planned);
        count("done", done);
        count("failed", failed);
        count("deferred", deferred);
    }

    /** Decisions of {@code action} counted so far (tests, the step-load benchmark). */
    public double decisions(Decision.Action action) {
        return registry.find("aloft_autoscaler_decisions").tag("action", action.name()).counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    Timer evaluation() {
        return evaluation;
    }

    PrometheusMeterRegistry registry() {
        return registry;
    }

    private void count(String result, int n) {
        Counter.builder("aloft_autoscaler_moves").description("Partition moves by outcome")
                .tag("result", result).register(registry).increment(n);
    }

    /** "targetTracking[0]" -> "targetTracking": bounded label values. */
    private static String ruleFamily(String rule) {
        int bracket = rule.indexOf('[');
        return bracket < 0 ? rule : rule.substring(0, bracket);
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
        registry.close();
    }
}
