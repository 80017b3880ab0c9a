package io.aloft.stream.compaction;

import io.aloft.stream.metadata.S3Object;
import io.aloft.stream.metadata.StreamMetadata;
import io.aloft.stream.metadata.StreamMetadataException;
import io.aloft.stream.object.ObjectKeys;
import io.aloft.stream.storage.ObjectStorage;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes objects that metadata has had marked for deletion for at least the delay: asks metadata
 * which ({@code getObjectsToDelete}), deletes their keys from object storage, then tells metadata
 * ({@code objectsDeleted}). Only ids metadata returns as marked are ever deleted, so an object
 * metadata still references is never touched. If the storage delete fails, metadata is not told and
 * the same objects come back next round. Deleting a key twice is harmless, so a crash between the two
 * steps only repeats work.
 *
 * <p>Confined to the compaction thread.
 */
final class ObjectDeleter {
    private static final Logger log = LoggerFactory.getLogger(ObjectDeleter.class);

    /** Most objects deleted per round, bounding one round's requests. */
    static final int MAX_PER_ROUND = 10_000;

    private final StreamMetadata metadata;
    private final ObjectStorage storage;
    private final LongSupplier clock;
    private final long delayMs;

    ObjectDeleter(StreamMetadata metadata, ObjectStorage storage, LongSupplier clock, long delayMs) {
        this.metadata = metadata;
        this.storage = storage;
        this.clock = clock;
        this.delayMs = delayMs;
    }

    /**
     * Deletes what is due.
     *
     * @return the ids deleted and forgotten
     * @throws RuntimeException if metadata or storage fails; nothing is forgotten that was not deleted
     */
    List<Long> deleteDue() {
        List<Long> ids = new ArrayList<>();
        for (S3Object o : Await.of(metadata.getObjectsToDelete(clock.getAsLong(), delayMs))) {
            if (o.state() == S3Object.State.MARKED_FOR_DELETION && ids.size() < MAX_PER_ROUND) {
                ids.add(o.objectId());
            }
        }
        if (ids.isEmpty()) {
            return List.of();
        }
        Await.of(storage.delete(ids.stream().map(ObjectKeys::key).toList()));
        try {
            Await.of(metadata.objectsDeleted(ids));
            return ids;
        } catch (StreamMetadataException e) {
            // Another deleter forgot some of them first; forget the rest one by one.
            log.debug("Forgetting {} deleted objects at once failed ({}); retrying one by one", ids.size(),
                    e.getMessage());
            List<Long> forgotten = new ArrayList<>();
            for (long id : ids) {
                try {
                    Await.of(metadata.objectsDeleted(List.of(id)));
                    forgotten.add(id);
                } catch (StreamMetadataException one) {
                    if (one.code() != StreamMetadataException.Code.OBJECT_NOT_FOUND) {
                        throw one;
                    }
                }
            }
            return forgotten;
        }
    }
}
