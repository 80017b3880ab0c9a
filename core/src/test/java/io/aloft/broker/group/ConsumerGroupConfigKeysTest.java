package io.aloft.broker.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.config.ConfigException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The group.consumer.* and group.coordinator.rebalance.protocols keys (KIP-848). */
class ConsumerGroupConfigKeysTest {

    @Test
    void defaults_areKafkas() {
        GroupCoordinatorConfig c = GroupCoordinatorConfig.defaults();
        assertTrue(c.consumerProtocolEnabled());
        assertEquals(45_000, c.consumerGroupConfig().sessionTimeoutMs());
        assertEquals(5_000, c.consumerGroupConfig().heartbeatIntervalMs());
        assertEquals(Integer.MAX_VALUE, c.consumerGroupConfig().maxSize());
        assertEquals(List.of("uniform", "range"), c.consumerGroupConfig().assignorNames());
    }

    @Test
    void protocols_withoutConsumer_disablesIt_withoutClassic_refused() {
        assertFalse(GroupCoordinatorConfig.fromProperties(Map.of("group.coordinator.rebalance.protocols", "classic"))
                .consumerProtocolEnabled());
        ConfigException e = assertThrows(ConfigException.class, () -> GroupCoordinatorConfig.fromProperties(
                Map.of("group.coordinator.rebalance.protocols", "consumer")));
        assertTrue(e.getMessage().startsWith("group.coordinator.rebalance.protocols"), e.getMessage());
        assertThrows(ConfigException.class, () -> GroupCoordinatorConfig.fromProperties(
                Map.of("group.coordinator.rebalance.protocols", "classic,share")));
    }

    @Test
    void assignors_byName_firstIsDefault_unknownRefused() {
        GroupCoordinatorConfig c = GroupCoordinatorConfig.fromProperties(Map.of("group.consumer.assignors",
                "Range, uniform"));
        assertEquals("range", c.consumerGroupConfig().defaultAssignor().name());
        ConfigException e = assertThrows(ConfigException.class, () -> GroupCoordinatorConfig.fromProperties(
                Map.of("group.consumer.assignors", "uniform,org.example.MyAssignor")));
        assertTrue(e.getMessage().startsWith("group.consumer.assignors"), e.getMessage());
    }

    @Test
    void sessionAndHeartbeat_outsideTheirBoundsOrHeartbeatNotShorter_refused() {
        assertThrows(ConfigException.class, () -> GroupCoordinatorConfig.fromProperties(
                Map.of("group.consumer.session.timeout.ms", 10_000)));
        assertThrows(ConfigException.class, () -> GroupCoordinatorConfig.fromProperties(
                Map.of("group.consumer.heartbeat.interval.ms", 20_000)));
        ConfigException e = assertThrows(ConfigException.class, () -> GroupCoordinatorConfig.fromProperties(Map.of(
                "group.consumer.min.session.timeout.ms", 1_000, "group.consumer.session.timeout.ms", 4_000,
                "group.consumer.heartbeat.interval.ms", 5_000)));
        assertTrue(e.getMessage().startsWith("group.consumer.heartbeat.interval.ms"), e.getMessage());
        GroupCoordinatorConfig small = GroupCoordinatorConfig.fromProperties(Map.of(
                "group.consumer.min.session.timeout.ms", 1_000, "group.consumer.session.timeout.ms", 4_000,
                "group.consumer.min.heartbeat.interval.ms", 100, "group.consumer.heartbeat.interval.ms", 500));
        assertEquals(4_000, small.consumerGroupConfig().sessionTimeoutMs());
    }
}
