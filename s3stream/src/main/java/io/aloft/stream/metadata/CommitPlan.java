package io.aloft.stream.metadata;

import java.util.List;

/**
 * What an accepted commit changes, computed by {@link CommitPlanner} before anything is touched and
 * then applied by {@link StreamMetadataState} in one go. Immutable.
 *
 * @param markIds committed objects the commit replaces, to mark for deletion
 * @param objectUpdates committed objects that stay, with some of their ranges removed or shrunk (a
 *     range replacement took part of their data), applied before the new objects are indexed
 * @param streamUpdates streams with their new end offsets (empty for compaction)
 * @param commits the prepared objects in their committed form (a stream-set object with order key -1
 *     gets the next one when applied)
 */
record CommitPlan(List<Long> markIds, List<StoredObject> objectUpdates, List<StreamInfo> streamUpdates,
        List<StoredObject> commits) {
    CommitPlan {
        markIds = List.copyOf(markIds);
        objectUpdates = List.copyOf(objectUpdates);
        streamUpdates = List.copyOf(streamUpdates);
        commits = List.copyOf(commits);
    }
}
