package io.aloft.broker.log;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * What the log cleaner needs to know of one partition to decide whether to clean it and what to
 * read: a consistent view taken under the log's lock by {@link PartitionLog#cleaningPlan}.
 *
 * <p>The log from {@code startOffset} to the high watermark is in three parts: the clean part
 * {@code [startOffset, cleanedUpTo)} (compacted before), the dirty part
 * {@code [cleanedUpTo, cleanableEnd)}, and the uncleanable tail from {@code cleanableEnd}: the
 * <em>active segment</em> and whatever else may not be compacted yet (see
 * {@link PartitionLog#cleaningPlan}).
 *
 * <p>Immutable.
 *
 * @param tp the partition
 * @param config its settings when the plan was made
 * @param startOffset first offset of the records stream (a batch boundary at or below the log
 *     start): a cleaning rewrites from here
 * @param logStartOffset the log start offset
 * @param cleanedUpTo first offset of the dirty part
 * @param cleanableEnd first offset the cleaner must not touch (a batch boundary)
 * @param cleanBytes bytes of the clean part (per time-index entry, so approximate)
 * @param dirtyBytes bytes of the dirty part (likewise)
 * @param firstDirtyTimestamp the largest timestamp of the first time-index entry of the dirty part,
 *     -1 if none: how old its oldest records are, at most
 * @param producerLastOffsets for each idempotent producer the log remembers, the last offset of
 *     its last batch: that batch is kept, emptied if need be, as Kafka keeps it
 * @param abortedTransactions the aborted transactions with records below {@code cleanableEnd}:
 *     their records must not enter the key map, or an aborted record would supersede a committed
 *     one of its key, and the rewrite removes them
 * @param producerMarkerEpochs for each producer the log remembers without a batch of data in its
 *     current epoch (a marker bumped it), that epoch: its marker of that epoch is kept, emptied if
 *     need be, as Kafka keeps it (the epoch fences the producer's zombies)
 */
public record CleaningPlan(TopicPartition tp, LogConfig config, long startOffset, long logStartOffset,
        long cleanedUpTo, long cleanableEnd, long cleanBytes, long dirtyBytes, long firstDirtyTimestamp,
        Map<Long, Long> producerLastOffsets, List<AbortedTxn> abortedTransactions,
        Map<Long, Short> producerMarkerEpochs) {

    public CleaningPlan {
        producerLastOffsets = Map.copyOf(producerLastOffsets);
        abortedTransactions = List.copyOf(abortedTransactions);
        producerMarkerEpochs = Map.copyOf(producerMarkerEpochs);
    }

    /** A plan without aborted transactions. */
    public CleaningPlan(TopicPartition tp, LogConfig config, long startOffset, long logStartOffset, long cleanedUpTo,
            long cleanableEnd, long cleanBytes, long dirtyBytes, long firstDirtyTimestamp,
            Map<Long, Long> producerLastOffsets) {
        this(tp, config, startOffset, logStartOffset, cleanedUpTo, cleanableEnd, cleanBytes, dirtyBytes,
                firstDirtyTimestamp, producerLastOffsets, List.of(), Map.of());
    }

    /** This plan with {@code aborted} as its aborted transactions and the producers' marker epochs. */
    CleaningPlan withTransactions(List<AbortedTxn> aborted, Map<Long, Short> markerEpochs) {
        return new CleaningPlan(tp, config, startOffset, logStartOffset, cleanedUpTo, cleanableEnd, cleanBytes,
                dirtyBytes, firstDirtyTimestamp, producerLastOffsets, aborted, markerEpochs);
    }

    /** Dirty bytes over cleanable bytes (clean plus dirty); 0 when there are none. */
    public double dirtyRatio() {
        long total = cleanBytes + dirtyBytes;
        return total == 0 ? 0 : (double) dirtyBytes / total;
    }

    /**
     * Whether the log should be cleaned now: it is compacted, has a dirty part, and either that part
     * is at least {@code min.cleanable.dirty.ratio} of what may be cleaned, or it holds records
     * older than {@code max.compaction.lag.ms}.
     */
    public boolean needsCleaning(long nowMs) {
        if (!config.compact() || cleanableEnd <= cleanedUpTo || dirtyBytes == 0) {
            return false;
        }
        return dirtyRatio() >= config.minCleanableDirtyRatio() || overdue(nowMs);
    }

    /** Whether the dirty part holds records older than {@code max.compaction.lag.ms}. */
    public boolean overdue(long nowMs) {
        return firstDirtyTimestamp >= 0 && nowMs - firstDirtyTimestamp > config.maxCompactionLagMs();
    }
}
