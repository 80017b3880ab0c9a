package io.aloft.broker.log;

import java.util.ArrayList;
import java.util.List;

/**
 * A topic's {@code cleanup.policy}, with Kafka's values: {@code delete} (retention removes old
 * batches), {@code compact} (the log cleaner keeps the latest record of each key), or both
 * ({@code compact,delete}: compacted, and retention applies too).
 *
 * <p>Immutable.
 *
 * @param compact whether the log is compacted by key
 * @param delete whether retention ({@code retention.ms}, {@code retention.bytes}) and DeleteRecords apply
 */
public record CleanupPolicy(boolean compact, boolean delete) {
    public static final String COMPACT = "compact";
    public static final String DELETE = "delete";
    public static final CleanupPolicy DELETE_ONLY = new CleanupPolicy(false, true);

    public CleanupPolicy {
        if (!compact && !delete) {
            throw new IllegalArgumentException("a cleanup policy compacts, deletes, or both");
        }
    }

    /**
     * Parses a comma-separated list of {@code compact} and {@code delete} (spaces around items and
     * a repeated item allowed, as in Kafka).
     *
     * @throws IllegalArgumentException for an empty list or another value
     */
    public static CleanupPolicy parse(String text) {
        boolean compact = false;
        boolean delete = false;
        for (String item : text.split(",", -1)) {
            String v = item.trim();
            if (v.equals(COMPACT)) {
                compact = true;
            } else if (v.equals(DELETE)) {
                delete = true;
            } else {
                throw new IllegalArgumentException("'" + v + "' is not a cleanup policy; use " + COMPACT + ", " + DELETE
                        + " or both, comma-separated");
            }
        }
        return new CleanupPolicy(compact, delete);
    }

    /** The text Kafka shows: {@code delete}, {@code compact} or {@code compact,delete}. */
    @Override
    public String toString() {
        List<String> items = new ArrayList<>(2);
        if (compact) {
            items.add(COMPACT);
        }
        if (delete) {
            items.add(DELETE);
        }
        return String.join(",", items);
    }
}
