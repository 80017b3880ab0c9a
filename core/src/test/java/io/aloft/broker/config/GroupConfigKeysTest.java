package io.aloft.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.share.ShareGroupConfig;
import io.aloft.broker.share.ShareGroupSettings;
import io.aloft.broker.share.ShareGroupSettings.AutoOffsetReset;
import java.util.Map;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.junit.jupiter.api.Test;

class GroupConfigKeysTest {
    private final GroupConfigKeys keys = new GroupConfigKeys(ShareGroupConfig.defaults());

    @Test
    void settings_noOverrides_areTheBrokerDefaults() {
        assertEquals(ShareGroupConfig.defaults().brokerDefaults(), keys.settings(Map.of()));
    }

    @Test
    void settings_overrides_parsedOverDefaults() {
        ShareGroupSettings s = keys.settings(Map.of("share.record.lock.duration.ms", "20000",
                "share.auto.offset.reset", "by_duration:P1DT1S", "share.isolation.level", "read_committed",
                "share.renew.acknowledge.enable", "FALSE", "share.delivery.count.limit", " 3 "));
        assertEquals(20_000, s.recordLockDurationMs());
        assertEquals(3, s.deliveryCountLimit());
        assertEquals(new AutoOffsetReset(AutoOffsetReset.Kind.BY_DURATION, 86_401_000L), s.autoOffsetReset());
        assertTrue(s.readCommitted());
        assertFalse(s.renewAcknowledgeEnable());
        assertEquals(AutoOffsetReset.EARLIEST, keys.settings(Map.of("share.auto.offset.reset", "earliest"))
                .autoOffsetReset());
    }

    @Test
    void settings_storedValueOutsideTodaysBrokerBounds_heldToThem() {
        GroupConfigKeys narrower = new GroupConfigKeys(ShareGroupConfig.fromProperties(Map.of(
                "group.share.max.record.lock.duration.ms", "40000")));
        assertEquals(40_000, narrower.settings(Map.of("share.record.lock.duration.ms", "60000"))
                .recordLockDurationMs());
        assertEquals(30_000, narrower.settings(Map.of("share.record.lock.duration.ms", "x")).recordLockDurationMs());
    }

    @Test
    void autoOffsetReset_badForms_null() {
        assertNull(GroupConfigKeys.autoOffsetReset("by_duration:-PT1S"));
        assertNull(GroupConfigKeys.autoOffsetReset("by_duration:"));
        assertNull(GroupConfigKeys.autoOffsetReset("Latest"));
    }

    @Test
    void validate_brokerBounds_kafkasMessages() {
        GroupConfigKeys wider = new GroupConfigKeys(ShareGroupConfig.fromProperties(Map.of(
                "group.share.min.record.lock.duration.ms", "1", "group.share.record.lock.duration.ms", "30000")));
        // Kafka's static bound (1000) is checked before the broker's smaller minimum.
        assertEquals("Invalid value 999 for configuration share.record.lock.duration.ms: Value must be at least 1000",
                assertThrows(InvalidConfigurationException.class,
                        () -> wider.validate("share.record.lock.duration.ms", "999")).getMessage());
        wider.validate("share.record.lock.duration.ms", "1000");
        assertEquals("share.record.lock.duration.ms must be greater than or equal to "
                + "group.share.min.record.lock.duration.ms", assertThrows(InvalidConfigurationException.class,
                        () -> keys.validate("share.record.lock.duration.ms", "1000")).getMessage());
    }
}
