package io.aloft.broker.metrics;

import io.aloft.stream.storage.ObjectStorageStats;
import io.aloft.stream.storage.ObjectStorageStats.Operation;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.DoubleSupplier;

/**
 * Object storage meters ({@code aloft_object_storage_*}) of one store, labelled
 * {@code store="data"} (the stream store's objects) or {@code store="wal"} (a WAL in object
 * storage): requests, failures, retries and payload bytes by operation, read from its
 * {@link ObjectStorageStats}, and the estimated cost ({@link ObjectStorageCost}). Stateless;
 * registration only.
 */
final class ObjectStorageMeters {
    /**
     * Request latency buckets: a dozen fixed ones per operation rather than a full percentile
     * histogram each (nine operations, two stores), from a cached small GET to a slow big PUT.
     */
    private static final Duration[] LATENCY_BUCKETS = {Duration.ofMillis(5), Duration.ofMillis(10),
        Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
        Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5),
        Duration.ofSeconds(10), Duration.ofSeconds(30)};

    private ObjectStorageMeters() {
    }

    /**
     * @param storedBytes bytes the store holds now, or NaN while unknown
     * @param storedHelp how {@code storedBytes} is known, for its help text
     */
    static void bind(MeterRegistry registry, String store, ObjectStorageStats stats, ObjectStorageCost cost,
            DoubleSupplier storedBytes, String storedHelp) {
        for (Operation op : Operation.values()) {
            Tags tags = Tags.of("store", store, "operation", op.name());
            FunctionCounter.builder("aloft.object.storage.requests", stats, s -> s.requests(op)).tags(tags)
                    .description(ObjectStorageStats.REQUESTS_HELP + ", as billed (DeleteObjects per 1,000 keys, "
                            + "ListObjectsV2 per page)")
                    .register(registry);
            FunctionCounter.builder("aloft.object.storage.failures", stats, s -> s.failures(op)).tags(tags)
                    .description(ObjectStorageStats.FAILURES_HELP).register(registry);
            FunctionCounter.builder("aloft.object.storage.retries", stats, s -> s.retries(op)).tags(tags)
                    .description(ObjectStorageStats.RETRIES_HELP).register(registry);
            FunctionCounter.builder("aloft.object.storage.payload", stats, s -> s.bytes(op)).tags(tags)
                    .baseUnit("bytes").description(ObjectStorageStats.BYTES_HELP).register(registry);
        }
        // Registered at an operation's first timed request: only the S3 backend times its requests,
        // so a file:// store shows no empty histograms. Later samples find the timer in the array.
        AtomicReferenceArray<Timer> timers = new AtomicReferenceArray<>(Operation.values().length);
        stats.requestLatencyTo((op, nanos) -> {
            Timer timer = timers.get(op.ordinal());
            if (timer == null) {
                timer = Timer.builder("aloft.object.storage.request.latency")
                        .tags(Tags.of("store", store, "operation", op.name()))
                        .description("Time from issuing a successful object storage request until its answer (a "
                                + "GET's whole body) arrived, retries included")
                        .serviceLevelObjectives(LATENCY_BUCKETS).register(registry); // the same timer if raced
                timers.set(op.ordinal(), timer);
            }
            timer.record(nanos, TimeUnit.NANOSECONDS);
        });
        FunctionCounter.builder("aloft.object.storage.cost.usd", stats, cost::requestsUsd)
                .tags(Tags.of("store", store, "kind", "requests"))
                .description("Estimated US dollars spent on object storage requests: requests by S3 price class times "
                        + "aloft.cost.s3.put.per.1000.usd or aloft.cost.s3.get.per.1000.usd (DELETE free; retries "
                        + "not counted)")
                .register(registry);
        Gauge.builder("aloft.object.storage.stored", storedBytes, DoubleSupplier::getAsDouble).strongReference(true)
                .tag("store", store).baseUnit("bytes").description("Bytes stored in object storage: " + storedHelp)
                .register(registry);
        Gauge.builder("aloft.object.storage.cost.usd.per.month", storedBytes,
                s -> cost.storageUsdPerMonth(s.getAsDouble())).strongReference(true)
                .tags(Tags.of("store", store, "kind", "storage"))
                .description("Estimated US dollars per month of keeping aloft_object_storage_stored_bytes stored, at "
                        + "aloft.cost.s3.storage.gb.month.usd")
                .register(registry);
    }
}
