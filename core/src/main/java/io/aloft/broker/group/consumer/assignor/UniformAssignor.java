package io.aloft.broker.group.consumer.assignor;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;

/**
 * {@code uniform}, the default: spreads partitions as evenly as the subscriptions allow, and keeps
 * each member's partitions where it can (sticky), so a rebalance moves as few partitions as it must.
 *
 * <ol>
 *   <li>Each member keeps the partitions of its previous target that still exist, that it still
 *       subscribes to, and that no member listed before it kept already.</li>
 *   <li>Partitions nobody kept go, the most constrained first (fewest eligible members), to the
 *       eligible member with the fewest partitions.</li>
 *   <li>Then, while some member has at least two partitions more than a member that could take one
 *       of them, one moves. With the same subscription everywhere this ends with counts that differ
 *       by at most one; with different subscriptions, with no move left that narrows a gap.</li>
 * </ol>
 * Ties go by member id and partition order, so the result does not depend on hash order. Stateless.
 */
public final class UniformAssignor implements PartitionAssignor {

    public static final String NAME = "uniform";

    private record TopicPartition(Uuid topic, int partition) {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Map<String, Map<Uuid, Set<Integer>>> assign(Map<String, MemberSpec> members,
                                                       Map<Uuid, Integer> partitionCounts) {
        Map<String, MemberSpec> sorted = new TreeMap<>(members);
        Map<String, Set<TopicPartition>> owned = new TreeMap<>();
        Map<TopicPartition, String> ownerOf = new HashMap<>();
        sorted.keySet().forEach(id -> owned.put(id, new TreeSet<>(ORDER)));
        // 1. Stickiness.
        sorted.forEach((id, spec) -> spec.current().forEach((topic, parts) -> {
            Integer count = partitionCounts.get(topic);
            if (count == null || !spec.topics().contains(topic)) {
                return;
            }
            for (int p : new TreeSet<>(parts)) {
                TopicPartition tp = new TopicPartition(topic, p);
                if (p < count && !ownerOf.containsKey(tp)) {
                    ownerOf.put(tp, id);
                    owned.get(id).add(tp);
                }
            }
        }));
        // 2. The rest, most constrained first.
        Map<Uuid, List<String>> eligible = new TreeMap<>();
        for (Uuid topic : new TreeSet<>(partitionCounts.keySet())) {
            List<String> ids = new ArrayList<>();
            sorted.forEach((id, spec) -> {
                if (spec.topics().contains(topic)) {
                    ids.add(id);
                }
            });
            eligible.put(topic, ids);
        }
        List<TopicPartition> unassigned = new ArrayList<>();
        eligible.forEach((topic, ids) -> {
            for (int p = 0; p < partitionCounts.get(topic); p++) {
                TopicPartition tp = new TopicPartition(topic, p);
                if (!ids.isEmpty() && !ownerOf.containsKey(tp)) {
                    unassigned.add(tp);
                }
            }
        });
        unassigned.sort(Comparator.comparingInt((TopicPartition tp) -> eligible.get(tp.topic()).size())
                .thenComparing(ORDER));
        for (TopicPartition tp : unassigned) {
            String least = null;
            for (String id : eligible.get(tp.topic())) {
                if (least == null || owned.get(id).size() < owned.get(least).size()) {
                    least = id;
                }
            }
            ownerOf.put(tp, least);
            owned.get(least).add(tp);
        }
        // 3. Balance.
        balance(owned, eligible);
        Map<String, Map<Uuid, Set<Integer>>> out = new TreeMap<>();
        owned.forEach((id, parts) -> {
            Map<Uuid, Set<Integer>> byTopic = new TreeMap<>();
            parts.forEach(tp -> byTopic.computeIfAbsent(tp.topic(), t -> new TreeSet<>()).add(tp.partition()));
            out.put(id, byTopic);
        });
        return out;
    }

    /**
     * Moves partitions from fuller to emptier members while that narrows a gap of two or more.
     * Each move lowers the sum of squared counts, so this ends.
     */
    private static void balance(Map<String, Set<TopicPartition>> owned, Map<Uuid, List<String>> eligible) {
        boolean moved = true;
        while (moved) {
            moved = false;
            List<String> byLoad = new ArrayList<>(owned.keySet());
            byLoad.sort(Comparator.comparingInt((String id) -> -owned.get(id).size()).thenComparing(id -> id));
            for (String from : byLoad) {
                TopicPartition pick = null;
                String to = null;
                // The emptiest eligible member for one of this member's partitions; the last
                // partition in order goes first, so members keep their lowest partitions.
                List<TopicPartition> candidates = new ArrayList<>(owned.get(from));
                for (int i = candidates.size() - 1; i >= 0; i--) {
                    TopicPartition tp = candidates.get(i);
                    for (String id : eligible.get(tp.topic())) {
                        if (owned.get(id).size() + 1 < owned.get(from).size()
                                && (to == null || owned.get(id).size() < owned.get(to).size())) {
                            to = id;
                            pick = tp;
                        }
                    }
                }
                if (pick != null) {
                    owned.get(from).remove(pick);
                    owned.get(to).add(pick);
                    moved = true;
                    break;
                }
            }
        }
    }

    private static final Comparator<TopicPartition> ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);
}
