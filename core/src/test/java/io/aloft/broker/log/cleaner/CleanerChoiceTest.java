package io.aloft.broker.log.cleaner;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.log.CleaningPlan;
import io.aloft.broker.log.LogConfig;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class CleanerChoiceTest {
    private static final long NOW = 1_000_000;
    private static final LogConfig COMPACT = LogConfig.from(Map.of("cleanup.policy", "compact"));
    private static final LogConfig COMPACT_MAX_LAG = LogConfig.from(Map.of("cleanup.policy", "compact",
            "max.compaction.lag.ms", "1000"));
    private static final LogConfig DELETE = LogConfig.from(Map.of());

    private static CleaningPlan plan(String topic, LogConfig config, long clean, long dirty, long firstDirtyTs) {
        return new CleaningPlan(new TopicPartition(topic, 0), config, 0, 0, clean, clean + dirty, clean, dirty,
                firstDirtyTs, Map.of());
    }

    @Test
    void pick_theDirtiestAboveItsRatio() {
        CleaningPlan third = plan("third", COMPACT, 700, 300, NOW);
        CleaningPlan half = plan("half", COMPACT, 500, 500, NOW);
        CleaningPlan most = plan("most", COMPACT, 100, 900, NOW);

        assertEquals(Optional.of(most), CleanerChoice.pick(List.of(third, half, most), NOW));
        assertEquals(Optional.of(half), CleanerChoice.pick(List.of(third, half), NOW));
        assertEquals(Optional.empty(), CleanerChoice.pick(List.of(third), NOW), "below min.cleanable.dirty.ratio");
    }

    @Test
    void pick_overdueLogsFirst_evenBelowTheirRatio() {
        CleaningPlan dirty = plan("dirty", COMPACT_MAX_LAG, 100, 900, NOW - 10);
        CleaningPlan overdue = plan("overdue", COMPACT_MAX_LAG, 900, 100, NOW - 5_000);
        CleaningPlan older = plan("older", COMPACT_MAX_LAG, 900, 100, NOW - 9_000);

        assertEquals(Optional.of(older), CleanerChoice.pick(List.of(dirty, overdue, older), NOW));
        assertEquals(Optional.of(overdue), CleanerChoice.pick(List.of(dirty, overdue), NOW));
    }

    @Test
    void pick_neverALogThatIsNotCompacted_orHasNothingDirty() {
        assertEquals(Optional.empty(), CleanerChoice.pick(List.of(plan("delete", DELETE, 0, 1000, NOW),
                plan("clean", COMPACT, 1000, 0, NOW)), NOW));
    }
}
