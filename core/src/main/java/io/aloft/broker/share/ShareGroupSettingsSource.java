package io.aloft.broker.share;

/**
 * Where a share partition finds its group's settings. The broker's implementation reads the
 * group's configs (GROUP config resources) over the broker defaults; it answers from memory and
 * is thread-safe, so a share partition may ask on every acquisition.
 */
@FunctionalInterface
public interface ShareGroupSettingsSource {
    ShareGroupSettings settings(String groupId);

    /** Every group gets {@code settings} (tests; a broker before group configs exist). */
    static ShareGroupSettingsSource fixed(ShareGroupSettings settings) {
        return groupId -> settings;
    }
}
