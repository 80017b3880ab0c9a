package io.aloft.broker.group.consumer;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;

/**
 * A set of partitions by topic id, as KIP-848 names them: what a member owns, is assigned, must
 * revoke, or is the target of. Topics without partitions are left out, so two assignments with the
 * same partitions are equal. Sorted, so records and responses are the same every time. Immutable.
 */
public final class Assignment {

    public static final Assignment EMPTY = new Assignment(Map.of());

    private final Map<Uuid, SortedSet<Integer>> partitions;

    private Assignment(Map<Uuid, ? extends Set<Integer>> source) {
        TreeMap<Uuid, SortedSet<Integer>> copy = new TreeMap<>();
        source.forEach((topic, parts) -> {
            if (!parts.isEmpty()) {
                copy.put(topic, Collections.unmodifiableSortedSet(new TreeSet<>(parts)));
            }
        });
        this.partitions = Collections.unmodifiableMap(copy);
    }

    /** The partitions of {@code source}; empty topics are dropped. */
    public static Assignment of(Map<Uuid, ? extends Set<Integer>> source) {
        return source.isEmpty() ? EMPTY : new Assignment(source);
    }

    /** Topic id to its partitions, sorted; no topic maps to an empty set. */
    public Map<Uuid, SortedSet<Integer>> partitions() {
        return partitions;
    }

    public Set<Integer> partitions(Uuid topicId) {
        return partitions.getOrDefault(topicId, Collections.emptySortedSet());
    }

    public boolean contains(Uuid topicId, int partition) {
        return partitions(topicId).contains(partition);
    }

    public boolean isEmpty() {
        return partitions.isEmpty();
    }

    public int size() {
        return partitions.values().stream().mapToInt(Set::size).sum();
    }

    /** The partitions of this assignment that {@code other} does not have. */
    public Assignment minus(Assignment other) {
        Map<Uuid, Set<Integer>> out = new TreeMap<>();
        partitions.forEach((topic, parts) -> {
            Set<Integer> left = new TreeSet<>(parts);
            left.removeAll(other.partitions(topic));
            out.put(topic, left);
        });
        return of(out);
    }

    /** The partitions both have. */
    public Assignment intersect(Assignment other) {
        Map<Uuid, Set<Integer>> out = new TreeMap<>();
        partitions.forEach((topic, parts) -> {
            Set<Integer> both = new TreeSet<>(parts);
            both.retainAll(other.partitions(topic));
            out.put(topic, both);
        });
        return of(out);
    }

    /** Whether any partition is in both. */
    public boolean overlaps(Assignment other) {
        for (Map.Entry<Uuid, SortedSet<Integer>> e : partitions.entrySet()) {
            for (int p : e.getValue()) {
                if (other.contains(e.getKey(), p)) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Assignment a && a.partitions.equals(partitions);
    }

    @Override
    public int hashCode() {
        return partitions.hashCode();
    }

    @Override
    public String toString() {
        return partitions.toString();
    }
}
