package io.aloft.omb.runner;

import java.time.Duration;

/**
 * How a run is carried out, apart from the workload and driver. Immutable.
 *
 * @param reportInterval time between progress lines
 * @param maxClients the most producer clients, and the most consumer clients, a run creates (see
 *     {@link ClientLayout}); OMB's one client per logical producer/consumer holds up to this many
 * @param setupTimeout limit for creating topics and for consumers to receive their partitions
 * @param finalDrainTimeout after producers stop, how long consumers may take to read what is left
 */
public record RunnerOptions(Duration reportInterval, int maxClients, Duration setupTimeout,
        Duration finalDrainTimeout) {
    public static final Duration REPORT_INTERVAL_DEFAULT = Duration.ofSeconds(10);
    public static final int MAX_CLIENTS_DEFAULT = 16;
    public static final Duration SETUP_TIMEOUT_DEFAULT = Duration.ofSeconds(120);
    public static final Duration FINAL_DRAIN_TIMEOUT_DEFAULT = Duration.ofSeconds(30);

    public static final RunnerOptions DEFAULTS = new RunnerOptions(REPORT_INTERVAL_DEFAULT, MAX_CLIENTS_DEFAULT,
            SETUP_TIMEOUT_DEFAULT, FINAL_DRAIN_TIMEOUT_DEFAULT);

    public RunnerOptions {
        if (reportInterval == null || reportInterval.toMillis() < 100) {
            throw new IllegalArgumentException("report interval must be at least 100 ms, got " + reportInterval);
        }
        if (maxClients < 1) {
            throw new IllegalArgumentException("max clients must be at least 1, got " + maxClients);
        }
        if (setupTimeout == null || setupTimeout.isNegative() || setupTimeout.isZero()) {
            throw new IllegalArgumentException("setup timeout must be positive, got " + setupTimeout);
        }
        if (finalDrainTimeout == null || finalDrainTimeout.isNegative()) {
            throw new IllegalArgumentException("final drain timeout must be 0 or more, got " + finalDrainTimeout);
        }
    }

    public RunnerOptions withReportInterval(Duration interval) {
        return new RunnerOptions(interval, maxClients, setupTimeout, finalDrainTimeout);
    }

    public RunnerOptions withMaxClients(int max) {
        return new RunnerOptions(reportInterval, max, setupTimeout, finalDrainTimeout);
    }
}
