package io.aloft.controller.query;

import java.util.List;
import java.util.Objects;

/**
 * Read-only requests, answered by a voter from its applied state once it has applied the asking
 * client's latest write (see {@code ControllerClient#query}), so a caller sees what it wrote.
 * Each is a record so it travels through the same codec as commands.
 */
public final class Queries {
    private Queries() {
    }

    /** Replies with a {@link io.aloft.controller.model.ClusterImage}. */
    public record DescribeCluster() {
    }

    /** Replies with a {@link io.aloft.controller.model.FeatureStatus}. */
    public record DescribeFeatures() {
    }

    /** Replies with the named topics that exist, in name order; all topics when {@code names} is empty. */
    public record GetTopics(List<String> names) {
        public GetTopics {
            names = List.copyOf(names);
        }
    }

    public record GetObjects(long streamId, long startOffset, long endOffset, int limit) {
    }

    public record GetStreamSetObjects(int nodeId) {
    }

    public record GetStreamObjects(long streamId, long startOffset, long endOffset, int limit) {
    }

    public record DescribeStream(long streamId) {
    }

    /** Replies with the value's bytes, or null. */
    public record GetKv(String key) {
        public GetKv {
            Objects.requireNonNull(key, "key"); // the key-value space has no null keys
        }
    }

    /** Replies with every entry whose key starts with {@code prefix}, as a key-ordered map of key to value bytes. */
    public record GetKvPrefix(String prefix) {
        public GetKvPrefix {
            Objects.requireNonNull(prefix, "prefix");
        }
    }

    /**
     * Long poll of the change feed: replies with a {@link io.aloft.controller.model.WatchResult} as
     * soon as there are events at or after {@code fromIndex}, or after {@code maxWaitMs} with none.
     * The controller currently caps the wait at 0: it answers at once (see
     * {@code ControllerStateMachine.MAX_WATCH_WAIT_MS}).
     */
    public record Watch(long fromIndex, long maxWaitMs) {
    }
}
