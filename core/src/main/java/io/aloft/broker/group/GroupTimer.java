package io.aloft.broker.group;

import io.aloft.broker.coordinator.CoordinatorTimer;

/**
 * The coordinator's time and delayed tasks under the group package's name: a
 * {@link CoordinatorTimer} (the group tests drive one by hand). Implementations are thread-safe.
 */
public interface GroupTimer extends CoordinatorTimer {
}
