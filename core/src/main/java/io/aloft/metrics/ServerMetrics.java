package io.aloft.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The meter registry of one broker or controller process: components register their meters on
 * {@link #registry()}, and {@link MetricsHttpServer} serves them. Made whether or not the endpoint
 * is on, so components need no "metrics off" branch; a meter nobody scrapes costs an add to a
 * {@link java.util.concurrent.atomic.LongAdder}-like cell.
 *
 * <p>Each instance has its own Prometheus registry (not the client's default one), so several
 * brokers in one JVM (tests) keep their meters apart.
 *
 * <p>Thread-safe: meters are registered and updated from any thread.
 */
public final class ServerMetrics implements AutoCloseable {

    private final PrometheusMeterRegistry registry;
    private final JvmGcMetrics gc;

    private ServerMetrics(PrometheusMeterRegistry registry, JvmGcMetrics gc) {
        this.registry = registry;
        this.gc = gc;
    }

    /** A registry with the JVM's and the process's meters (memory, GC, threads, CPU, file descriptors, uptime). */
    public static ServerMetrics create() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT,
                new PrometheusRegistry(), io.micrometer.core.instrument.Clock.SYSTEM);
        // Two of Micrometer's JVM meters fail Prometheus' naming rules (promtool check metrics): CPU
        // time in nanoseconds under an abbreviated unit (process_cpu_usage covers it) and a gauge
        // ending in _count.
        registry.config().meterFilter(MeterFilter.deny(id -> id.getName().equals("process.cpu.time")));
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                return id.getName().equals("system.cpu.count") ? id.withName("system.cpus") : id;
            }
        });
        new ClassLoaderMetrics().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        JvmGcMetrics gc = new JvmGcMetrics();
        gc.bindTo(registry);
        return new ServerMetrics(registry, gc);
    }

    /** Where components register their meters. */
    public MeterRegistry registry() {
        return registry;
    }

    /**
     * Adds series computed at scrape time with label sets that change between scrapes (group lag,
     * per-partition offsets), which Micrometer's registered meters do not fit; {@code collector}
     * runs on the scraping thread and must bound its own time and series.
     */
    public void registerCollector(MultiCollector collector) {
        registry.getPrometheusRegistry().register(collector);
    }

    /** The Prometheus registry underneath, for the HTTP exporter. */
    PrometheusRegistry prometheusRegistry() {
        return registry.getPrometheusRegistry();
    }

    /** The exposition in Prometheus' text format, as {@code /metrics} serves it to a plain scraper (tests, tools). */
    public String scrape() {
        return registry.scrape();
    }

    @Override
    public void close() {
        gc.close(); // removes its GC notification listeners
        registry.close();
    }
}
