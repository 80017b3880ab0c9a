package io.aloft.broker.log.cleaner;

import io.aloft.broker.log.CleaningPlan;
import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;

/**
 * Which partition a free cleaner thread cleans next, among those that need it
 * ({@link CleaningPlan#needsCleaning}): first any whose uncleaned records are older than their
 * {@code max.compaction.lag.ms} (the oldest first), then the dirtiest by ratio, as Kafka's cleaner
 * picks its "filthiest" log.
 *
 * <p>Stateless.
 */
final class CleanerChoice {
    private CleanerChoice() {
    }

    static Optional<CleaningPlan> pick(Collection<CleaningPlan> plans, long nowMs) {
        Comparator<CleaningPlan> order = Comparator
                .comparing((CleaningPlan p) -> !p.overdue(nowMs))
                .thenComparingLong(p -> p.overdue(nowMs) ? p.firstDirtyTimestamp() : 0)
                .thenComparing(Comparator.comparingDouble(CleaningPlan::dirtyRatio).reversed())
                .thenComparing(p -> p.tp().toString());
        return plans.stream().filter(p -> p.needsCleaning(nowMs)).min(order);
    }
}
