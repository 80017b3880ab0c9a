package io.aloft.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.config.ConfigException;
import java.util.Map;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class LogConfigTest {
    @Test
    void defaults_areKafka4s() {
        LogConfig c = LogConfig.defaults();
        assertEquals(1048588, c.maxMessageBytes());
        assertEquals(TimestampType.CREATE_TIME, c.timestampType());
        assertEquals(Long.MAX_VALUE, c.timestampBeforeMaxMs());
        assertEquals(3_600_000L, c.timestampAfterMaxMs());
        assertEquals(604_800_000L, c.retentionMs());
        assertEquals(-1L, c.retentionBytes());
        assertEquals(4096, c.indexIntervalBytes());
    }

    @Test
    void fromTopicOverrides_laysOverridesOverBrokerDefaults_ignoringOtherKeys() {
        LogConfig broker = LogConfig.from(Map.of(LogConfig.RETENTION_MS_CONFIG, "1000",
                LogConfig.MAX_MESSAGE_BYTES_CONFIG, "5000"));
        LogConfig topic = LogConfig.fromTopicOverrides(Map.of(LogConfig.RETENTION_MS_CONFIG, "-1",
                LogConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "LogAppendTime", "cleanup.policy", "delete"), broker);
        assertEquals(-1L, topic.retentionMs());
        assertEquals(5000, topic.maxMessageBytes());
        assertEquals(TimestampType.LOG_APPEND_TIME, topic.timestampType());
        assertEquals("LogAppendTime", topic.toMap().get(LogConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG));
    }

    @Test
    void badValues_areRejectedNamingTheKey() {
        Map<String, String> bad = Map.of(
                LogConfig.RETENTION_MS_CONFIG, "-2",
                LogConfig.RETENTION_BYTES_CONFIG, "lots",
                LogConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "WallTime",
                LogConfig.MAX_MESSAGE_BYTES_CONFIG, "-1",
                LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, "-5");
        bad.forEach((key, value) -> {
            ConfigException e = assertThrows(ConfigException.class,
                    () -> LogConfig.fromTopicOverrides(Map.of(key, value), LogConfig.defaults()));
            assertTrue(e.getMessage().contains(key), e.getMessage());
        });
    }
}
