package io.aloft.autoscaler.model;

import java.util.Objects;
import java.util.Optional;

/**
 * One broker as the autoscaler sees it at one instant: rates computed from two scrapes of its
 * {@code /metrics} endpoint, identity from the Admin API. Rates are per second; a signal a broker
 * did not report (an older build, a failed scrape) is {@code NaN}, and goals and policies treat NaN
 * as "unknown", never as zero.
 *
 * <p>Immutable.
 *
 * @param id the broker's {@code node.id}
 * @param rack its {@code broker.rack}, empty when it has none
 * @param bytesInPerSec record bytes appended ({@code kafka_server_brokertopicmetrics_bytesin_total{topic=""}})
 * @param bytesOutPerSec record bytes fetched ({@code ..._bytesout_total{topic=""}})
 * @param cpuUsage the broker process's recent CPU use, 0 to 1 of the machine ({@code process_cpu_usage})
 * @param walAppendP99Seconds p99 of WAL append latency over the interval ({@code aloft_wal_append_latency_seconds})
 * @param produceP99Seconds p99 of Produce total time over the interval
 *     ({@code kafka_network_requestmetrics_totaltime_seconds{request="Produce"}})
 * @param walFullWaitsPerSec appends that waited for WAL room ({@code aloft_wal_full_waits_total}): back-pressure
 * @param walFillRatio WAL bytes in use over its capacity, 0 to 1 ({@code aloft_wal_used_bytes / aloft_wal_capacity_bytes})
 * @param ready whether its {@code /readyz} answered 200 (registered, serving); a broker not ready gets no moves
 */
public record BrokerLoad(
        int id,
        Optional<String> rack,
        double bytesInPerSec,
        double bytesOutPerSec,
        double cpuUsage,
        double walAppendP99Seconds,
        double produceP99Seconds,
        double walFullWaitsPerSec,
        double walFillRatio,
        boolean ready) {

    public BrokerLoad {
        Objects.requireNonNull(rack, "rack");
        if (id < 0) {
            throw new IllegalArgumentException("broker id " + id);
        }
    }

    /** A ready broker with only its network rates known; every other signal NaN (tests, simulations). */
    public static BrokerLoad ofNetwork(int id, String rack, double bytesInPerSec, double bytesOutPerSec) {
        return new BrokerLoad(id, Optional.ofNullable(rack), bytesInPerSec, bytesOutPerSec, Double.NaN,
                Double.NaN, Double.NaN, Double.NaN, Double.NaN, true);
    }
}
