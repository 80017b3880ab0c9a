package io.aloft.stream.compaction;

import java.util.List;

/**
 * What one compaction round did. Immutable.
 *
 * @param compactedObjectIds objects replaced by committed merges (now marked for deletion)
 * @param newObjectIds objects those merges committed
 * @param abandonedObjectIds objects written by merges whose commit was rejected or failed; they stay
 *     prepared until their ttl, then metadata marks them for deletion
 * @param deletedObjectIds objects deleted from object storage and forgotten by metadata
 */
public record CompactionRound(List<Long> compactedObjectIds, List<Long> newObjectIds, List<Long> abandonedObjectIds,
        List<Long> deletedObjectIds) {

    public CompactionRound {
        compactedObjectIds = List.copyOf(compactedObjectIds);
        newObjectIds = List.copyOf(newObjectIds);
        abandonedObjectIds = List.copyOf(abandonedObjectIds);
        deletedObjectIds = List.copyOf(deletedObjectIds);
    }

    /** Whether the round changed anything or tried to. */
    public boolean didSomething() {
        return !compactedObjectIds.isEmpty() || !newObjectIds.isEmpty() || !abandonedObjectIds.isEmpty()
                || !deletedObjectIds.isEmpty();
    }
}
