package io.aloft.broker.metrics;

import io.aloft.broker.failover.WalFailover;
import io.aloft.wal.WalStats;
import io.aloft.wal.WriteAheadLog;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The write-ahead log's meters ({@code aloft_wal_*}): counters read from its {@link WalStats}, the
 * append latency histogram fed through the stats' hook, the fill level, and the recoveries of
 * fenced brokers' WALs this broker ran. Stateless; registration only.
 */
final class WalMeters {
    /** Append latency buckets: a block WAL's fsync (well under a millisecond on NVMe) to a slow object WAL. */
    private static final Duration MIN_APPEND = Duration.ofNanos(50_000);
    private static final Duration MAX_APPEND = Duration.ofSeconds(30);

    private WalMeters() {
    }

    static void bind(MeterRegistry registry, WriteAheadLog wal, WalFailover failover) {
        WalStats stats = wal.stats();
        counter(registry, "aloft.wal.appends", stats, WalStats::appends, null,
                "Records appended to the write-ahead log (each produce batch of a partition is one)");
        counter(registry, "aloft.wal.append", stats, WalStats::appendBytes, "bytes",
                "Bytes of the records appended to the write-ahead log");
        counter(registry, "aloft.wal.writes", stats, WalStats::writes, null,
                "Writes to the WAL's medium: one per group commit (a device write and sync, or a PUT of a WAL in "
                        + "object storage)");
        counter(registry, "aloft.wal.write", stats, WalStats::writeBytes, "bytes",
                "Bytes written to the WAL's medium, record headers and padding included");
        counter(registry, "aloft.wal.header.writes", stats, WalStats::headerWrites, null,
                "Writes of the WAL's trim point");
        counter(registry, "aloft.wal.full.waits", stats, WalStats::fullWaits, null,
                "Appends that waited because the WAL was full (back-pressure: uploads are behind)");
        counter(registry, "aloft.wal.full.timeouts", stats, WalStats::fullTimeouts, null,
                "Appends that failed because the WAL stayed full past wal.append.timeout.ms");
        counter(registry, "aloft.wal.full.wait", stats, s -> s.fullWaitNanos() / 1e9, "seconds",
                "Time appends spent waiting for room in a full WAL, all appends together");
        Timer latency = Timer.builder("aloft.wal.append.latency")
                .description("Time from a WAL append until it is durable (acknowledgeable), waits for room included")
                .publishPercentileHistogram().minimumExpectedValue(MIN_APPEND).maximumExpectedValue(MAX_APPEND)
                .register(registry);
        stats.appendLatencyTo(nanos -> latency.record(nanos, TimeUnit.NANOSECONDS));
        Gauge.builder("aloft.wal.used", wal, WriteAheadLog::usedBytes).baseUnit("bytes")
                .description("Bytes of the WAL holding records not trimmed yet (not yet in object storage)")
                .register(registry);
        if (wal.capacity() < Long.MAX_VALUE) { // a WAL in object storage has no ring to fill
            Gauge.builder("aloft.wal.capacity", wal, WriteAheadLog::capacity).baseUnit("bytes")
                    .description("Bytes of the WAL's ring available to records; used over capacity is the fill level")
                    .register(registry);
        }
        counter(registry, "aloft.wal.failover.recoveries", failover, WalFailover::recoveries, null,
                "WALs of fenced brokers this broker recovered into object storage");
        Timer recovery = Timer.builder("aloft.wal.failover.recovery")
                .description("Time this broker took to recover a fenced broker's WAL (take-over, replay, commit)")
                .register(registry);
        failover.recordRecoveryTimeTo(nanos -> recovery.record(nanos, TimeUnit.NANOSECONDS));
    }

    static <T> void counter(MeterRegistry registry, String name, T source, ToDoubleFunction<T> value, String unit,
            String help) {
        FunctionCounter.builder(name, source, value).baseUnit(unit).description(help).register(registry);
    }
}
