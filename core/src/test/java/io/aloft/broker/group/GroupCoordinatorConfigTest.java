package io.aloft.broker.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.config.ConfigException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GroupCoordinatorConfigTest {

    @Test
    void defaults_kafkaValues() {
        GroupCoordinatorConfig c = GroupCoordinatorConfig.defaults();
        assertEquals(3000, c.initialRebalanceDelayMs());
        assertEquals(6000, c.minSessionTimeoutMs());
        assertEquals(1_800_000, c.maxSessionTimeoutMs());
        assertEquals(Integer.MAX_VALUE, c.maxSize());
        assertEquals(50, c.offsetsTopicPartitions());
        assertEquals(10_080L * 60_000L, c.offsetsRetentionMs());
        assertEquals(1, c.coordinatorThreads());
    }

    @Test
    void coordinatorThreads_readAndBounded() {
        assertEquals(8, GroupCoordinatorConfig.fromProperties(Map.of("group.coordinator.threads", "8"))
                .coordinatorThreads());
        assertKeyNamed("group.coordinator.threads", Map.of("group.coordinator.threads", "0"));
        assertKeyNamed("group.coordinator.threads", Map.of("group.coordinator.threads", "65"));
    }

    @Test
    void fromProperties_stringValuesAndUnknownKeys_parsedAndIgnored() {
        GroupCoordinatorConfig c = GroupCoordinatorConfig.fromProperties(Map.of(
                "group.initial.rebalance.delay.ms", "0", "group.max.size", " 10 ", "log.dirs", "/tmp/x"));
        assertEquals(0, c.initialRebalanceDelayMs());
        assertEquals(10, c.maxSize());
    }

    @Test
    void fromProperties_badValues_rejectedNamingTheKey() {
        assertKeyNamed("group.max.size", Map.of("group.max.size", "0"));
        assertKeyNamed("offsets.topic.num.partitions", Map.of("offsets.topic.num.partitions", "many"));
        assertKeyNamed("group.initial.rebalance.delay.ms", Map.of("group.initial.rebalance.delay.ms", "-1"));
        assertKeyNamed("group.min.session.timeout.ms", Map.of("group.min.session.timeout.ms", "20000",
                "group.max.session.timeout.ms", "10000"));
    }

    private static void assertKeyNamed(String key, Map<String, String> props) {
        ConfigException e = assertThrows(ConfigException.class, () -> GroupCoordinatorConfig.fromProperties(props));
        assertEquals(key, e.key());
        assertTrue(e.getMessage().startsWith(key + ": "), e.getMessage());
    }
}
