package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerConfigTest {
    @TempDir
    Path dir;

    private Map<String, String> props(String... keyValues) {
        Map<String, String> p = new HashMap<>();
        p.put("aloft.data.dir", dir.resolve("data").toString());
        for (int i = 0; i < keyValues.length; i += 2) {
            p.put(keyValues[i], keyValues[i + 1]);
        }
        return p;
    }

    @Test
    void fromProperties_pathsFollowTheDataDir_unlessSet() {
        ServerConfig c = ServerConfig.fromProperties(props());
        assertEquals(dir.resolve("data/wal"), c.wal().path());
        assertEquals(dir.resolve("data/metadata"), c.controller().dataDir());
        assertEquals(dir.resolve("data/wal").toString(), c.properties().get("wal.path"));
        assertTrue(c.broker().objectStorageUrl().startsWith("file:"), c.broker().objectStorageUrl());
        c = ServerConfig.fromProperties(props("wal.path", "/dev/null-ish", "metadata.log.dir", "/m"));
        assertEquals(Path.of("/dev/null-ish"), c.wal().path());
        assertEquals(Path.of("/m"), c.controller().dataDir());
    }

    @Test
    void fromProperties_logCacheNotBelowTheWal_namesBothKeys() {
        ConfigException e = assertThrows(ConfigException.class, () -> ServerConfig.fromProperties(props(
                "wal.capacity.bytes", "67108864", "s3.log.cache.size.bytes", "67108864",
                "s3.wal.upload.threshold.bytes", "4194304")));
        assertEquals("s3.log.cache.size.bytes", e.key());
        assertTrue(e.getMessage().contains("wal.capacity.bytes=67108864"), e.getMessage());
    }

    @Test
    void fromProperties_everyModuleIsRead() {
        ServerConfig c = ServerConfig.fromProperties(props("num.partitions", "3", "node.id", "4",
                "controller.quorum.voters", "4@127.0.0.1:1", "wal.capacity.bytes", "2147483648",
                "s3.compaction.interval.ms", "5", "group.coordinator.threads", "2", "log.retention.hours", "1"));
        assertEquals(3, c.broker().numPartitions());
        assertEquals(4, c.controller().nodeId());
        assertEquals(4, c.store().nodeId(), "the store's node id is the controller's node.id");
        assertEquals(2L << 30, c.wal().capacityBytes());
        assertEquals(5, c.store().compaction().intervalMs());
        assertEquals(2, c.groups().coordinatorThreads());
        assertEquals(3_600_000L, c.logDefaults().retentionMs());
    }

    @Test
    void unknownKeyWarnings_hintAtTheKeyMeant() {
        assertEquals(List.of("Unknown configuration key 'num.partition' is ignored; did you mean 'num.partitions'?"),
                ServerConfig.unknownKeyWarnings(props("num.partition", "3", "log.retention.minutes", "5")));
    }

    @Test
    void checkPaths_creatablePaths_passWithoutCreatingThem() {
        ServerConfig.fromProperties(props()).checkPaths();
        assertFalse(Files.exists(dir.resolve("data")));
    }

    @Test
    void checkPaths_unusablePaths_nameTheirKey() throws Exception {
        Path file = Files.writeString(dir.resolve("plain"), "x");
        assertPathRefused("aloft.data.dir", props("aloft.data.dir", file.toString()));
        assertPathRefused("metadata.log.dir", props("metadata.log.dir", file.resolve("m").toString()));
        assertPathRefused("wal.path", props("wal.path", dir.resolve("missing/wal").toString()));
        assertPathRefused("wal.path", props("wal.path", dir.toString()));
        assertPathRefused("s3.url", props("s3.url", file.resolve("objects").toUri().toString()));
        // A node that is not a voter keeps no metadata log: its directory is not checked.
        ServerConfig.fromProperties(props("metadata.log.dir", file.resolve("m").toString(), "node.id", "2",
                "controller.quorum.voters", "1@127.0.0.1:1")).checkPaths();
    }

    private static void assertPathRefused(String key, Map<String, String> props) {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ServerConfig.fromProperties(props).checkPaths(), props::toString);
        assertEquals(key, e.key(), e.getMessage());
    }
}
