package io.aloft.broker.log;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Works out a {@link CleaningPlan} from a partition's time index. Stateless; called under the
 * owning log's lock.
 *
 * <h2>What the cleaner may not touch</h2>
 * Aloft has no segment files, so Kafka's "active segment, never cleaned" is defined on the time
 * index (entries of about {@code index.interval.bytes}, each with its largest record timestamp).
 * The cleanable part ends at the time-index entry boundary at or below the earliest of:
 * <ul>
 *   <li>the data not yet committed to object storage (still only in the WAL and log cache), and
 *       the last stable offset ({@code committedOffset} is the smaller of the two);</li>
 *   <li>the active segment: the longest tail of entries holding at most {@code segment.bytes}, cut
 *       further to start at the first entry with a record younger than {@code segment.ms}: so, as
 *       in Kafka, the newest data stays uncompacted until there is more than {@code segment.bytes}
 *       of it or it is older than {@code segment.ms}. Entries whose records are all older than
 *       {@code max.compaction.lag.ms} are never part of it (Kafka rolls the segment for them);</li>
 *   <li>the first entry with a record younger than {@code min.compaction.lag.ms}.</li>
 * </ul>
 * Record timestamps are the producer's (CreateTime) or the broker's (LogAppendTime), as in Kafka.
 */
final class CleaningPlanner {
    private CleaningPlanner() {
    }

    static CleaningPlan plan(TopicPartition tp, LogConfig config, LogIndex index, long streamStart, long logStart,
            long committedOffset, CleanerState cleaner, Map<Long, Long> producers, long nowMs) {
        int n = index.size();
        long end = Math.min(committedOffset, index.endOffset());

        // The active segment by size: the longest tail of whole entries within segment.bytes.
        long sizeStart = index.endOffset();
        long tailBytes = 0;
        for (int i = n - 1; i >= 0 && tailBytes + index.bytes(i) <= config.segmentBytes(); i--) {
            tailBytes += index.bytes(i);
            sizeStart = index.base(i);
        }
        long activeStart = Math.max(sizeStart, firstYoungerThan(index, nowMs - config.segmentMs()));
        // Records older than the max lag must become cleanable: the active segment starts after them.
        long overdueBefore = nowMs - config.maxCompactionLagMs();
        for (int i = n - 1; i >= 0; i--) {
            long ts = index.maxTimestamp(i);
            if (ts >= 0 && ts < overdueBefore) {
                activeStart = Math.max(activeStart, index.end(i));
                break;
            }
        }
        long lagStart = firstYoungerThan(index, nowMs - config.minCompactionLagMs());
        // At an entry boundary, so a compacted range replaces whole entries of the index.
        long cleanableEnd = floorBase(index, Math.min(end, Math.min(activeStart, lagStart)));

        long dirtyFrom = Math.max(cleaner.cleanedUpTo, streamStart);
        long cleanBytes = 0;
        long dirtyBytes = 0;
        long firstDirtyTs = -1;
        for (int i = 0; i < n && index.base(i) < cleanableEnd; i++) {
            // An entry reaching past the cleaned-up-to offset counts as dirty: appends may have
            // joined the entry a compaction ended with.
            if (index.end(i) <= dirtyFrom) {
                cleanBytes += index.bytes(i);
            } else {
                if (dirtyBytes == 0) {
                    firstDirtyTs = index.maxTimestamp(i);
                }
                dirtyBytes += index.bytes(i);
            }
        }
        return new CleaningPlan(tp, config, streamStart, logStart, dirtyFrom, Math.max(cleanableEnd, streamStart),
                cleanBytes, dirtyBytes, firstDirtyTs, producers);
    }

    /** The largest entry boundary (an entry's base, or the index's end) at or below {@code offset}. */
    static long floorBase(LogIndex index, long offset) {
        if (offset >= index.endOffset()) {
            return index.endOffset();
        }
        int i = index.entryOf(offset);
        return i < 0 ? Math.min(offset, index.size() > 0 ? index.base(0) : offset) : index.base(i);
    }

    /** Base of the first entry with a record timestamp above {@code threshold}, or the index's end. */
    private static long firstYoungerThan(LogIndex index, long threshold) {
        for (int i = 0; i < index.size(); i++) {
            if (index.maxTimestamp(i) > threshold) {
                return index.base(i);
            }
        }
        return index.endOffset();
    }
}
