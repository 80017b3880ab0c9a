package io.aloft.broker.group.consumer.assignor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class UniformAssignorTest {

    static final Uuid T1 = new Uuid(0, 1);
    static final Uuid T2 = new Uuid(0, 2);
    static final Uuid T3 = new Uuid(0, 3);
    private final UniformAssignor assignor = new UniformAssignor();

    static PartitionAssignor.MemberSpec spec(Set<Uuid> topics, Map<Uuid, Set<Integer>> current) {
        return new PartitionAssignor.MemberSpec(topics, current);
    }

    /** Every partition of {@code counts} assigned once, only to members subscribed to its topic. */
    static void assertCompleteAndValid(Map<String, PartitionAssignor.MemberSpec> members, Map<Uuid, Integer> counts,
                                       Map<String, Map<Uuid, Set<Integer>>> result) {
        Set<String> seen = new HashSet<>();
        result.forEach((member, topics) -> topics.forEach((topic, parts) -> {
            assertTrue(members.get(member).topics().contains(topic), member + " got unsubscribed " + topic);
            for (int p : parts) {
                assertTrue(p >= 0 && p < counts.get(topic), "no partition " + p + " of " + topic);
                assertTrue(seen.add(topic + "-" + p), topic + "-" + p + " assigned twice");
            }
        }));
        counts.forEach((topic, n) -> {
            boolean anySubscriber = members.values().stream().anyMatch(m -> m.topics().contains(topic));
            for (int p = 0; anySubscriber && p < n; p++) {
                assertTrue(seen.contains(topic + "-" + p), topic + "-" + p + " unassigned");
            }
        });
        assertEquals(members.keySet(), result.keySet());
    }

    static int count(Map<Uuid, Set<Integer>> a) {
        return a.values().stream().mapToInt(Set::size).sum();
    }

    @Test
    void assign_sameSubscription_countsDifferByAtMostOne() {
        Map<String, PartitionAssignor.MemberSpec> members = new TreeMap<>();
        for (String m : List.of("a", "b", "c")) {
            members.put(m, spec(Set.of(T1, T2), Map.of()));
        }
        Map<Uuid, Integer> counts = Map.of(T1, 7, T2, 3);
        Map<String, Map<Uuid, Set<Integer>>> result = assignor.assign(members, counts);
        assertCompleteAndValid(members, counts, result);
        int min = result.values().stream().mapToInt(UniformAssignorTest::count).min().orElseThrow();
        int max = result.values().stream().mapToInt(UniformAssignorTest::count).max().orElseThrow();
        assertTrue(max - min <= 1, "unbalanced: " + result);
    }

    @Test
    void assign_memberJoins_othersKeepAllButWhatTheNewMemberTakes() {
        Map<String, PartitionAssignor.MemberSpec> members = new TreeMap<>();
        members.put("a", spec(Set.of(T1), Map.of()));
        members.put("b", spec(Set.of(T1), Map.of()));
        Map<Uuid, Integer> counts = Map.of(T1, 6);
        Map<String, Map<Uuid, Set<Integer>>> first = assignor.assign(members, counts);
        members.put("a", spec(Set.of(T1), first.get("a")));
        members.put("b", spec(Set.of(T1), first.get("b")));
        members.put("c", spec(Set.of(T1), Map.of()));
        Map<String, Map<Uuid, Set<Integer>>> second = assignor.assign(members, counts);
        assertCompleteAndValid(members, counts, second);
        assertEquals(2, count(second.get("c")));
        // Sticky: a and b each give up exactly one partition and keep the rest.
        for (String m : List.of("a", "b")) {
            Set<Integer> kept = new HashSet<>(first.get(m).get(T1));
            kept.retainAll(second.get(m).get(T1));
            assertEquals(2, kept.size(), m + " moved more than it had to: " + first + " -> " + second);
        }
    }

    @Test
    void assign_memberLeaves_survivorsKeepTheirPartitions() {
        Map<String, PartitionAssignor.MemberSpec> members = new TreeMap<>();
        members.put("a", spec(Set.of(T1), Map.of(T1, Set.of(0, 1))));
        members.put("b", spec(Set.of(T1), Map.of(T1, Set.of(2, 3))));
        Map<String, Map<Uuid, Set<Integer>>> result = assignor.assign(members, Map.of(T1, 6));
        assertTrue(result.get("a").get(T1).containsAll(Set.of(0, 1)));
        assertTrue(result.get("b").get(T1).containsAll(Set.of(2, 3)));
        assertEquals(3, count(result.get("a")));
        assertEquals(3, count(result.get("b")));
    }

    @Test
    void assign_heterogeneousSubscriptions_eachGetsOnlyItsTopicsAndLoadIsSpread() {
        Map<String, PartitionAssignor.MemberSpec> members = new TreeMap<>();
        members.put("a", spec(Set.of(T1), Map.of()));
        members.put("b", spec(Set.of(T1, T2), Map.of()));
        members.put("c", spec(Set.of(T2, T3), Map.of()));
        Map<Uuid, Integer> counts = Map.of(T1, 4, T2, 4, T3, 1);
        Map<String, Map<Uuid, Set<Integer>>> result = assignor.assign(members, counts);
        assertCompleteAndValid(members, counts, result);
        // 9 partitions over 3 members: 3 each is possible (a: 3 of T1, b: 1 of T1 + 2 of T2, c: 2 of T2 + T3).
        for (String m : members.keySet()) {
            assertEquals(3, count(result.get(m)), "unbalanced: " + result);
        }
    }

    @Test
    void assign_stickyPartitionOfUnsubscribedOrDeletedTopic_dropped() {
        Map<String, PartitionAssignor.MemberSpec> members = new TreeMap<>();
        members.put("a", spec(Set.of(T1), Map.of(T2, Set.of(0), T1, Set.of(9))));
        Map<String, Map<Uuid, Set<Integer>>> result = assignor.assign(members, Map.of(T1, 2));
        assertEquals(Map.of(T1, Set.of(0, 1)), result.get("a"));
    }

    @Test
    void assign_sameInputDifferentMapOrder_sameResult() {
        Map<String, PartitionAssignor.MemberSpec> sorted = new TreeMap<>();
        Map<String, PartitionAssignor.MemberSpec> hashed = new HashMap<>();
        for (String m : List.of("m3", "m1", "m2", "m10")) {
            sorted.put(m, spec(Set.of(T1, T2), Map.of()));
            hashed.put(m, spec(Set.of(T2, T1), Map.of()));
        }
        assertEquals(assignor.assign(sorted, Map.of(T1, 5, T2, 5)), assignor.assign(hashed, Map.of(T2, 5, T1, 5)));
    }
}
