package io.aloft.broker.metrics;

import io.aloft.broker.failover.WalFailover;
import io.aloft.broker.log.cleaner.LogCleaner;
import io.aloft.broker.partition.PartitionManager;
import io.aloft.metrics.CostConfig;
import io.aloft.stream.compaction.CompactionStats;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.store.StreamStore;
import io.aloft.wal.WriteAheadLog;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Registers the meters of a broker's storage (issue 17): the WAL and its failover, the stream
 * store (log cache, uploads, block cache, compaction), object storage with its estimated cost,
 * the log cleaner and partition opens. The README's "Storage meters" table lists them.
 *
 * <p>Meters read the components' lock-free stats when scraped, so nothing here runs per request;
 * latency histograms are fed through hooks the components call (plain {@code LongConsumer}s: the
 * WAL and s3stream modules depend on no metrics library). Histogram samples from before this call
 * (a WAL recovery's uploads at start) are not in the histograms; the counters have them.
 *
 * <p>Stateless; call once per broker, on the thread that starts it.
 */
public final class StorageMeters {

    private StorageMeters() {
    }

    /**
     * @param walStorage the object storage of a WAL in object storage, or null with a block WAL
     */
    public static void bind(MeterRegistry registry, CostConfig prices, WriteAheadLog wal, ObjectStorage walStorage,
            ObjectStorage storage, StreamStore store, WalFailover failover, PartitionManager partitions,
            LogCleaner cleaner) {
        ObjectStorageCost cost = new ObjectStorageCost(prices);
        WalMeters.bind(registry, wal, failover);
        StreamStoreMeters.bind(registry, store.stats());
        StreamStoreMeters.bindCleaner(registry, cleaner.stats());
        StreamStoreMeters.bindPartitions(registry, partitions);
        CompactionStats compaction = store.stats().compaction();
        ObjectStorageMeters.bind(registry, "data", storage.stats(), cost,
                () -> compaction.hasSeen() ? compaction.seenBytes() : Double.NaN,
                "an estimate, refreshed by each compaction round (s3.compaction.interval.ms): this broker's "
                        + "stream-set objects and its open streams' stream objects; objects awaiting deletion not "
                        + "included; NaN before the first round");
        if (walStorage != null) {
            ObjectStorageMeters.bind(registry, "wal", walStorage.stats(), cost, wal::usedBytes,
                    "the WAL's objects not trimmed yet");
        }
    }
}
