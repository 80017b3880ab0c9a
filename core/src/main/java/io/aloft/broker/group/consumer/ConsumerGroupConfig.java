package io.aloft.broker.group.consumer;

import io.aloft.broker.group.consumer.assignor.PartitionAssignor;
import java.util.List;
import java.util.Objects;

/**
 * The settings consumer groups run with, parsed and checked by the group coordinator's config
 * ({@code group.consumer.*}). Immutable.
 *
 * @param sessionTimeoutMs a member without a heartbeat this long is removed
 * @param heartbeatIntervalMs how often members are told to heartbeat
 * @param maxSize the most members a group may have
 * @param assignors the server-side assignors clients may choose; the first is the default
 */
public record ConsumerGroupConfig(int sessionTimeoutMs, int heartbeatIntervalMs, int maxSize,
                                  List<PartitionAssignor> assignors) {
    public ConsumerGroupConfig {
        assignors = List.copyOf(assignors);
        if (assignors.isEmpty()) {
            throw new IllegalArgumentException("at least one assignor");
        }
    }

    /** The assignor named {@code name}, or null if it is not one of {@link #assignors}. */
    public PartitionAssignor assignor(String name) {
        for (PartitionAssignor a : assignors) {
            if (Objects.equals(a.name(), name)) {
                return a;
            }
        }
        return null;
    }

    public PartitionAssignor defaultAssignor() {
        return assignors.get(0);
    }

    public List<String> assignorNames() {
        return assignors.stream().map(PartitionAssignor::name).toList();
    }
}
