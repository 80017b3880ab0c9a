package io.aloft.broker.metrics;

import static io.aloft.broker.metrics.WalMeters.counter;

import io.aloft.broker.log.cleaner.CleanerStats;
import io.aloft.broker.partition.PartitionManager;
import io.aloft.stream.compaction.CompactionStats;
import io.aloft.stream.store.StreamStoreStats;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The stream store's meters ({@code aloft_stream_*}: log cache, uploads, block cache, readahead,
 * compaction), the log cleaner's ({@code aloft_log_cleaner_*}) and partition opens
 * ({@code aloft_partition_open_*}). Counters and levels are read from the components' stats;
 * histograms are fed through their hooks. Stateless; registration only.
 */
final class StreamStoreMeters {

    private StreamStoreMeters() {
    }

    static void bind(MeterRegistry registry, StreamStoreStats store) {
        Gauge.builder("aloft.stream.log.cache", store, StreamStoreStats::logCacheBytes).baseUnit("bytes")
                .description("Bytes the log cache holds (recent appends, uploaded or not)").register(registry);
        Gauge.builder("aloft.stream.log.cache.unuploaded", store, StreamStoreStats::unuploadedBytes).baseUnit("bytes")
                .description("Bytes of the log cache not committed to object storage yet (held in the WAL too)")
                .register(registry);
        Gauge.builder("aloft.stream.open.streams", store, StreamStoreStats::openStreams)
                .description("Streams open on this broker (a partition has several)").register(registry);
        counter(registry, "aloft.stream.uploads", store, StreamStoreStats::uploads, null,
                "Objects uploaded from the log cache or a WAL recovery (compaction's are counted apart)");
        counter(registry, "aloft.stream.upload", store, StreamStoreStats::uploadBytes, "bytes",
                "Bytes of the objects uploaded");
        counter(registry, "aloft.stream.upload.failures", store, StreamStoreStats::uploadFailures, null,
                "Object uploads that failed (each is retried)");
        Timer latency = Timer.builder("aloft.stream.upload.latency")
                .description("Time to upload one object (encoding and PUT or multipart upload), before its commit")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(120)).register(registry);
        DistributionSummary sizes = DistributionSummary.builder("aloft.stream.object.size").baseUnit("bytes")
                .description("Sizes of the objects uploaded").register(registry);
        store.uploadLatencyTo(nanos -> latency.record(nanos, TimeUnit.NANOSECONDS));
        store.objectSizeTo(sizes::record);
        counter(registry, "aloft.stream.block.cache.hits", store, StreamStoreStats::blockCacheHits, null,
                "Data blocks fetches found in the block cache or prefetched by readahead");
        counter(registry, "aloft.stream.block.cache.misses", store, StreamStoreStats::blockCacheMisses, null,
                "Data blocks fetches had to read from object storage");
        Gauge.builder("aloft.stream.block.cache", store, StreamStoreStats::blockCacheBytes).baseUnit("bytes")
                .description("Bytes of the data blocks the block cache holds").register(registry);
        counter(registry, "aloft.stream.readahead.requests", store, StreamStoreStats::readaheadRequests, null,
                "Ranged GETs readahead issued for sequential readers");
        counter(registry, "aloft.stream.readahead", store, StreamStoreStats::readaheadBytes, "bytes",
                "Bytes of the data blocks readahead requested");
        bindCompaction(registry, store.compaction());
    }

    private static void bindCompaction(MeterRegistry registry, CompactionStats c) {
        counter(registry, "aloft.stream.compaction.rounds", c, CompactionStats::rounds, null,
                "Compaction rounds run");
        counter(registry, "aloft.stream.compaction.merges", c, CompactionStats::merges, null,
                "Merges of small objects committed");
        counter(registry, "aloft.stream.compaction.abandoned", c, CompactionStats::abandoned, null,
                "Merges whose commit metadata rejected (their output is deleted later)");
        counter(registry, "aloft.stream.compaction.objects.merged", c, CompactionStats::objectsMerged, null,
                "Objects replaced by committed merges");
        counter(registry, "aloft.stream.compaction.objects.deleted", c, CompactionStats::objectsDeleted, null,
                "Released objects (compacted, trimmed, deleted streams) deleted from object storage");
        counter(registry, "aloft.stream.compaction.read", c, CompactionStats::bytesRead, "bytes",
                "Bytes of the objects merges read");
        counter(registry, "aloft.stream.compaction.written", c, CompactionStats::bytesWritten, "bytes",
                "Bytes of the objects merges wrote");
        Gauge.builder("aloft.stream.objects", c, s -> s.hasSeen() ? s.seenObjects() : Double.NaN)
                .description("Live objects this broker is responsible for, as its last compaction round listed "
                        + "them (its stream-set objects, its open streams' stream objects); NaN before the first")
                .register(registry);
    }

    static void bindCleaner(MeterRegistry registry, CleanerStats c) {
        counter(registry, "aloft.log.cleaner.cleanings", c, CleanerStats::cleanings, null,
                "Log cleanings (key compaction of a partition's dirty range) committed");
        counter(registry, "aloft.log.cleaner.failures", c, CleanerStats::failures, null,
                "Log cleanings that failed (retried later)");
        counter(registry, "aloft.log.cleaner.read", c, CleanerStats::bytesRead, "bytes",
                "Bytes the log cleaner read (both passes)");
        counter(registry, "aloft.log.cleaner.cleaned", c, CleanerStats::bytesBefore, "bytes",
                "Bytes of the ranges the log cleaner rewrote, before cleaning");
        counter(registry, "aloft.log.cleaner.written", c, CleanerStats::bytesAfter, "bytes",
                "Bytes of the ranges the log cleaner rewrote, after cleaning (recopy ratio: written over cleaned)");
        counter(registry, "aloft.log.cleaner.records.read", c, CleanerStats::recordsIn, null,
                "Records in the ranges the log cleaner rewrote");
        counter(registry, "aloft.log.cleaner.records.kept", c, CleanerStats::recordsOut, null,
                "Records the log cleaner kept");
        counter(registry, "aloft.log.cleaner.time", c, s -> s.nanos() / 1e9, "seconds",
                "Time spent cleaning, all cleaner threads together");
        counter(registry, "aloft.log.cleaner.map.allocated", c, CleanerStats::mapBytes, "bytes",
                "Heap allocated for the cleaner threads' key maps");
    }

    static void bindPartitions(MeterRegistry registry, PartitionManager partitions) {
        Timer open = Timer.builder("aloft.partition.open.latency")
                .description("Time to open a partition's log here (after a move, a new leader epoch or a start), "
                        + "the wait for the previous owner's handoff included")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(60)).register(registry);
        partitions.recordOpenLatencyTo(nanos -> open.record(nanos, TimeUnit.NANOSECONDS));
        counter(registry, "aloft.partition.open.failures", partitions, PartitionManager::openFailures, null,
                "Partition opens that failed (the next request tries again)");
    }
}
