package io.aloft.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class ConfigDocsTest {
    private static final ConfigDefinition WAL = ConfigDefinition.of("wal",
            ConfigKey.pathKey("wal.path").required().doc("Where | the log is.").build(),
            ConfigKey.longKey("wal.capacity.bytes").defaultValue(1L << 30).validator(Validator.atLeast(65536L))
                    .doc("Bytes.").build(),
            ConfigKey.longKey("wal.append.timeout.ms").defaultValue(10_000L).doc("Wait.").build(),
            ConfigKey.intKey("wal.max.batch.bytes").defaultText("a quarter of `wal.capacity.bytes`").doc("Batch.")
                    .build());

    @Test
    void markdownTable_oneRowPerKey_defaultsHumanized_pipesEscaped() {
        assertEquals("""
                | key | type | default | valid values | meaning |
                |---|---|---|---|---|
                | `wal.path` | path | (required) |  | Where \\| the log is. |
                | `wal.capacity.bytes` | long | `1073741824` (1 GiB) | at least 65536 | Bytes. |
                | `wal.append.timeout.ms` | long | `10000` (10 s) |  | Wait. |
                | `wal.max.batch.bytes` | int | a quarter of `wal.capacity.bytes` |  | Batch. |
                """, ConfigDocs.markdownTable(WAL));
    }

    @Test
    void markdownTable_dynamicKeys_getAColumn() {
        ConfigDefinition d = ConfigDefinition.of("d",
                ConfigKey.longKey("log.retention.ms").defaultValue(604_800_000L).dynamic().doc("Keep.").build(),
                ConfigKey.intKey("num.x").defaultValue(3).doc("X.").build());
        assertEquals("""
                | key | type | default | valid values | dynamic | meaning |
                |---|---|---|---|---|---|
                | `log.retention.ms` | long | `604800000` (7 days) |  | yes | Keep. |
                | `num.x` | int | `3` |  | no | X. |
                """, ConfigDocs.markdownTable(d));
    }

    @Test
    void humanize_onlyExactUnits() {
        assertEquals("160 MiB", ConfigDocs.humanize("s.bytes", 160L << 20));
        assertEquals("1 h", ConfigDocs.humanize("s.ms", 3_600_000));
        assertEquals("1 day", ConfigDocs.humanize("s.ms", 86_400_000));
        assertNull(ConfigDocs.humanize("s.bytes", 1048588));
        assertNull(ConfigDocs.humanize("s.ms", Long.MAX_VALUE));
        assertNull(ConfigDocs.humanize("s.count", 4096));
    }

    @Test
    void replaceSection_replacesOnlyBetweenTheMarkers() {
        String doc = "intro\n<!-- config:wal -->\nold table\n<!-- /config:wal -->\nafter\n";
        assertEquals("intro\n<!-- config:wal -->\nnew\n<!-- /config:wal -->\nafter\n",
                ConfigDocs.replaceSection(doc, "wal", "new"));
        assertEquals(List.of("wal"), ConfigDocs.sections(doc));
        assertThrows(IllegalArgumentException.class, () -> ConfigDocs.replaceSection(doc, "s3stream", "x"));
        assertThrows(IllegalArgumentException.class, () -> ConfigDocs.replaceSection(doc + doc, "wal", "x"));
    }
}
