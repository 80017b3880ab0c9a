package io.aloft.omb.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.omb.workload.Workload;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ClientLayoutTest {
    private static Workload workload(int topics, int producersPerTopic, int subs, int consumersPerSub, int rate) {
        return new Workload("w", topics, 1, 100, null, subs, consumersPerSub, producersPerTopic, rate, 0, 1.0, 1, 0,
                "NO_KEY");
    }

    @Test
    void of_fewTopics_oneClientPerLogicalProducerAndConsumer() {
        ClientLayout l = ClientLayout.of(workload(2, 2, 2, 3, 4000), 16, "g");
        assertEquals(4, l.producers().size());
        l.producers().forEach(p -> assertEquals(1000.0, p.ratePerSecond(), 1e-9));
        assertEquals(2 * 2 * 3, l.consumers().size());
        Map<String, Set<List<Integer>>> topicsByGroup = new HashMap<>();
        l.consumers().forEach(c -> topicsByGroup.computeIfAbsent(c.groupId(), k -> new HashSet<>()).add(c.topicIndexes()));
        assertEquals(4, topicsByGroup.size(), "one group per subscription per topic");
        topicsByGroup.values().forEach(t -> assertEquals(1, t.size(), "a group's members read the same topics"));
    }

    @Test
    void of_manyTopics_sharesClientsAndKeepsTheTotalRate() {
        ClientLayout l = ClientLayout.of(workload(1000, 1, 1, 1, 10_000), 16, "g");
        assertEquals(16, l.producers().size());
        assertEquals(10_000, l.producers().stream().mapToDouble(ClientLayout.ProducerPlan::ratePerSecond).sum(), 1e-6);
        assertEquals(1000, l.producers().stream().mapToInt(p -> p.topicIndexes().size()).sum());
        assertEquals(16, l.consumers().size());
        Set<Integer> read = new HashSet<>();
        l.consumers().forEach(c -> c.topicIndexes().forEach(t -> assertEquals(true, read.add(t), "topic " + t)));
        assertEquals(1000, read.size(), "every topic is read exactly once per subscription");
    }

    @Test
    void of_noSubscriptions_hasNoConsumers() {
        assertEquals(0, ClientLayout.of(workload(3, 1, 0, 0, 0), 16, "g").consumers().size());
    }
}
