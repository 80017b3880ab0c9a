package io.aloft.broker.group.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.group.consumer.Assignment;
import io.aloft.broker.group.consumer.TopicMetadata;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class SimpleShareAssignorTest {

    static final TopicMetadata A = new TopicMetadata(new Uuid(0, 1), "a", 6);
    static final TopicMetadata B = new TopicMetadata(new Uuid(0, 2), "b", 1);

    @Test
    void fewerMembersThanPartitions_eachPartitionOnce_evenly() {
        Map<String, Assignment> out = SimpleShareAssignor.assign(Map.of("m1", Set.of("a"), "m2", Set.of("a"),
                "m3", Set.of("a"), "m4", Set.of("a")), Map.of("a", A));
        Map<Integer, Integer> owners = new HashMap<>();
        out.values().forEach(x -> x.partitions(A.id()).forEach(p -> owners.merge(p, 1, Integer::sum)));
        assertEquals(6, owners.size());
        assertTrue(owners.values().stream().allMatch(n -> n == 1));
        out.values().forEach(x -> assertTrue(x.size() == 1 || x.size() == 2, x.toString()));
    }

    @Test
    void loadEvensOutAcrossTopics_andNonSubscribersGetNothing() {
        Map<String, Set<String>> subs = new TreeMap<>(Map.of("m1", Set.of("a", "b"), "m2", Set.of("a"),
                "m3", Set.of("c")));
        Map<String, Assignment> out = SimpleShareAssignor.assign(subs, Map.of("a", A, "b", B));
        assertEquals(Assignment.EMPTY, out.get("m3"));
        assertEquals(7, out.get("m1").size() + out.get("m2").size());
        assertTrue(Math.abs(out.get("m1").size() - out.get("m2").size()) <= 1, out.toString());
    }

    @Test
    void moreMembersThanPartitions_everyMemberGetsOne() {
        Map<String, Set<String>> subs = new TreeMap<>();
        for (int i = 0; i < 5; i++) {
            subs.put("m" + i, Set.of("b"));
        }
        Map<String, Assignment> out = SimpleShareAssignor.assign(subs, Map.of("b", B));
        out.values().forEach(x -> assertEquals(Set.of(0), x.partitions(B.id())));
    }

    @Test
    void sameInput_sameOutput() {
        Map<String, Set<String>> subs = Map.of("x", Set.of("a", "b"), "y", Set.of("a", "b"));
        assertEquals(SimpleShareAssignor.assign(subs, Map.of("a", A, "b", B)),
                SimpleShareAssignor.assign(new TreeMap<>(subs), new TreeMap<>(Map.of("a", A, "b", B))));
    }
}
