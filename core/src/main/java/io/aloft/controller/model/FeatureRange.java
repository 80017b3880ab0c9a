package io.aloft.controller.model;

/**
 * The feature levels a voter or broker build supports, both ends inclusive. Immutable.
 *
 * @param minLevel the lowest supported level, at least {@link FeatureLevel#INITIAL}
 * @param maxLevel the highest supported level, at least {@code minLevel}
 */
public record FeatureRange(int minLevel, int maxLevel) {
    /** Exactly {@link FeatureLevel#INITIAL}: what a node supports that predates feature levels. */
    public static final FeatureRange INITIAL_ONLY = new FeatureRange(FeatureLevel.INITIAL, FeatureLevel.INITIAL);

    public FeatureRange {
        if (minLevel < FeatureLevel.INITIAL || maxLevel < minLevel) {
            throw new IllegalArgumentException("feature range " + minLevel + ".." + maxLevel + " is not within ["
                    + FeatureLevel.INITIAL + ", ...] with min <= max");
        }
    }

    public boolean contains(int level) {
        return level >= minLevel && level <= maxLevel;
    }

    @Override
    public String toString() {
        return minLevel + ".." + maxLevel;
    }
}
