package io.aloft.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Where the cleanable part of a log ends (the active segment, the lags) and how dirty it is. */
class CleaningPlannerTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final long NOW = 10_000_000;
    private static final int MIB = 1 << 20;

    /** Ten entries of 1 MiB, ten offsets each, the i-th with largest timestamp {@code timestamps[i]}. */
    private static LogIndex index(long... timestamps) {
        LogIndex index = new LogIndex(0);
        for (int i = 0; i < timestamps.length; i++) {
            index.add(i * 10L, 10, timestamps[i], MIB, MIB);
        }
        return index;
    }

    private static LogIndex oldEntries(int n) {
        long[] ts = new long[n];
        java.util.Arrays.fill(ts, 1_000);
        return index(ts);
    }

    private static CleaningPlan plan(LogIndex index, long committed, long cleanedUpTo, Map<String, String> extra) {
        Map<String, String> config = new HashMap<>(Map.of("cleanup.policy", "compact"));
        config.putAll(extra);
        CleanerState cleaner = new CleanerState();
        cleaner.cleanedUpTo = cleanedUpTo;
        return CleaningPlanner.plan(TP, LogConfig.from(config), index, 0, 0, committed, cleaner, Map.of(), NOW);
    }

    @Test
    void activeSegment_isTheNewestSegmentBytes() {
        CleaningPlan p = plan(oldEntries(10), 100, 0, Map.of("segment.bytes", Integer.toString(3 * MIB)));
        assertEquals(70, p.cleanableEnd(), "the last 3 MiB stay as the active segment");
        assertEquals(7L * MIB, p.dirtyBytes());
        assertEquals(0, p.cleanBytes());
        assertEquals(1.0, p.dirtyRatio());
        assertTrue(p.needsCleaning(NOW));
    }

    @Test
    void activeSegment_startsAtTheFirstRecordYoungerThanSegmentMs() {
        long young = NOW - 500;
        CleaningPlan p = plan(index(1_000, 1_000, 1_000, young, 1_000, young), 60, 0, Map.of("segment.ms", "1000"));
        assertEquals(30, p.cleanableEnd());
    }

    @Test
    void aSmallLogWithDefaultSegmentMs_isAllActive() {
        long recent = NOW - 60_000;
        assertEquals(0, plan(index(recent, recent), 20, 0, Map.of()).cleanableEnd());
    }

    @Test
    void notYetInObjectStorage_isNotCleanable_andTheEndFallsOnAnEntry() {
        CleaningPlan p = plan(oldEntries(10), 45, 0, Map.of("segment.ms", "1"));
        assertEquals(40, p.cleanableEnd(), "the data from 45 is only in the WAL; 40 is the entry boundary below");
    }

    @Test
    void minCompactionLag_holdsBackYoungRecords() {
        long recent = NOW - 5_000;
        CleaningPlan p = plan(index(1_000, 1_000, recent, 1_000), 40, 0, Map.of("segment.ms", "1",
                "min.compaction.lag.ms", "60000"));
        assertEquals(20, p.cleanableEnd());
    }

    @Test
    void maxCompactionLag_makesOldRecordsCleanable_inTheActiveSegmentToo() {
        long old = NOW - 100_000;
        long recent = NOW - 10;
        Map<String, String> config = Map.of("max.compaction.lag.ms", "50000", "min.cleanable.dirty.ratio", "0.99");
        CleaningPlan p = plan(index(old, old, recent), 30, 10, config);
        assertEquals(20, p.cleanableEnd(), "segment.ms (7 days) would keep it all active");
        assertTrue(p.overdue(NOW));
        assertTrue(p.needsCleaning(NOW), "overdue records go whatever the ratio (0.5 here)");
    }

    @Test
    void dirtyRatio_countsFromTheCleanedUpToOffset() {
        CleaningPlan p = plan(oldEntries(10), 100, 60, Map.of("segment.ms", "1"));
        assertEquals(60, p.cleanedUpTo());
        assertEquals(6L * MIB, p.cleanBytes());
        assertEquals(4L * MIB, p.dirtyBytes());
        assertEquals(0.4, p.dirtyRatio(), 1e-9);
        assertFalse(p.needsCleaning(NOW), "below min.cleanable.dirty.ratio 0.5");
        assertEquals(1_000, p.firstDirtyTimestamp());
    }

    @Test
    void replaceHead_splicesTheCompactedEntries_andTheNextAppendStartsItsOwn() {
        LogIndex index = oldEntries(4);
        LogIndex compacted = new LogIndex(0);
        compacted.add(0, 25, 900, 100, 4096);
        compacted.add(25, 5, 950, 50, 4096);

        index.replaceHead(compacted, 30);

        assertEquals(2, index.size());
        assertEquals(0, index.base(0));
        assertEquals(30, index.base(1));
        assertEquals(150 + MIB, index.totalBytes());
        assertEquals(40, index.endOffset());

        LogIndex whole = oldEntries(2);
        whole.replaceHead(compacted, 30);
        whole.add(30, 10, 1_000, 10, 4096);
        assertEquals(2, whole.size(), "the append did not join the compacted entry");
        assertEquals(30, whole.base(1));
    }
}
