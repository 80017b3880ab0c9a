package io.aloft.controller.model;

import java.util.List;

/**
 * One answer of the change feed.
 *
 * @param image when non-null, the watcher's position was unknown (first call, or it fell behind
 *     the retained events, or the controller restarted): replace everything with this image and
 *     continue from {@code nextIndex}
 * @param events changes since the watcher's position, in log order
 * @param nextIndex the {@code fromIndex} of the next watch
 */
public record WatchResult(ClusterImage image, List<MetadataEvent> events, long nextIndex) {
    public WatchResult {
        events = List.copyOf(events);
    }
}
