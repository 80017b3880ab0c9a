package io.aloft.broker.group.consumer.assignor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class RangeAssignorTest {

    private final RangeAssignor assignor = new RangeAssignor();

    @Test
    void assign_perTopic_contiguousRangesFirstMembersGetTheRemainder() {
        Map<String, PartitionAssignor.MemberSpec> members = new TreeMap<>();
        members.put("b", UniformAssignorTest.spec(Set.of(UniformAssignorTest.T1), Map.of()));
        members.put("a", UniformAssignorTest.spec(Set.of(UniformAssignorTest.T1), Map.of()));
        members.put("c", UniformAssignorTest.spec(Set.of(UniformAssignorTest.T1), Map.of()));
        Map<String, Map<Uuid, Set<Integer>>> result = assignor.assign(members, Map.of(UniformAssignorTest.T1, 7));
        assertEquals(Set.of(0, 1, 2), result.get("a").get(UniformAssignorTest.T1));
        assertEquals(Set.of(3, 4), result.get("b").get(UniformAssignorTest.T1));
        assertEquals(Set.of(5, 6), result.get("c").get(UniformAssignorTest.T1));
    }

    @Test
    void assign_coPartitionedTopics_sameNumbersForTheSameMember() {
        Set<Uuid> both = Set.of(UniformAssignorTest.T1, UniformAssignorTest.T2);
        Map<String, PartitionAssignor.MemberSpec> members = new TreeMap<>();
        members.put("a", UniformAssignorTest.spec(both, Map.of()));
        members.put("b", UniformAssignorTest.spec(both, Map.of()));
        Map<Uuid, Integer> counts = Map.of(UniformAssignorTest.T1, 4, UniformAssignorTest.T2, 4);
        Map<String, Map<Uuid, Set<Integer>>> result = assignor.assign(members, counts);
        UniformAssignorTest.assertCompleteAndValid(members, counts, result);
        for (String m : members.keySet()) {
            assertEquals(result.get(m).get(UniformAssignorTest.T1), result.get(m).get(UniformAssignorTest.T2));
        }
    }

    @Test
    void assign_onlySubscribersOfATopicShareIt() {
        Map<String, PartitionAssignor.MemberSpec> members = new TreeMap<>();
        members.put("a", UniformAssignorTest.spec(Set.of(UniformAssignorTest.T1), Map.of()));
        members.put("b", UniformAssignorTest.spec(Set.of(UniformAssignorTest.T2), Map.of()));
        Map<Uuid, Integer> counts = Map.of(UniformAssignorTest.T1, 2, UniformAssignorTest.T2, 3);
        Map<String, Map<Uuid, Set<Integer>>> result = assignor.assign(members, counts);
        assertEquals(Map.of(UniformAssignorTest.T1, Set.of(0, 1)), result.get("a"));
        assertEquals(Map.of(UniformAssignorTest.T2, Set.of(0, 1, 2)), result.get("b"));
    }
}
