package io.aloft.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.config.ConfigException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WalConfigTest {
    @TempDir
    Path dir;

    private static void assertRejected(String key, Runnable build) {
        ConfigException e = assertThrows(ConfigException.class, build::run);
        assertEquals(key, e.key());
        assertTrue(e.getMessage().startsWith(key + ": "), e.getMessage());
    }

    @Test
    void build_capacityNotMultipleOf4KiB_namesKey() {
        assertRejected(WalConfig.CAPACITY_CONFIG,
                () -> WalConfig.builder().path(dir.resolve("w")).capacityBytes((1 << 20) + 100).build());
    }

    @Test
    void build_capacityTooSmall_namesKey() {
        assertRejected(WalConfig.CAPACITY_CONFIG,
                () -> WalConfig.builder().path(dir.resolve("w")).capacityBytes(4096).build());
    }

    @Test
    void build_missingPath_namesKey() {
        assertRejected(WalConfig.PATH_CONFIG, () -> WalConfig.builder().build());
    }

    @Test
    void build_batchOutOfRange_namesKey() {
        assertRejected(WalConfig.MAX_BATCH_CONFIG,
                () -> WalConfig.builder().path(dir.resolve("w")).maxBatchBytes(100).build());
        assertRejected(WalConfig.MAX_BATCH_CONFIG, () -> WalConfig.builder().path(dir.resolve("w"))
                .capacityBytes(1 << 20).maxBatchBytes(1 << 19).build());
    }

    @Test
    void build_inflightOutOfRange_namesKey() {
        assertRejected(WalConfig.MAX_INFLIGHT_CONFIG,
                () -> WalConfig.builder().path(dir.resolve("w")).maxInflightWrites(0).build());
        assertRejected(WalConfig.MAX_INFLIGHT_CONFIG,
                () -> WalConfig.builder().path(dir.resolve("w")).maxInflightWrites(65).build());
    }

    @Test
    void build_negativeTimeout_namesKey() {
        assertRejected(WalConfig.APPEND_TIMEOUT_CONFIG,
                () -> WalConfig.builder().path(dir.resolve("w")).appendTimeoutMs(-1).build());
    }

    @Test
    void fromProperties_parsesEveryKey() {
        WalConfig c = WalConfig.fromProperties(Map.of(
                "wal.path", dir.resolve("w").toString(),
                "wal.capacity.bytes", "2097152",
                "wal.direct.io", "false",
                "wal.max.batch.bytes", 65536,
                "wal.max.inflight.writes", " 4 ",
                "wal.append.timeout.ms", "250",
                "unrelated.key", "ignored"));
        assertEquals(dir.resolve("w"), c.path());
        assertEquals(2097152, c.capacityBytes());
        assertEquals(false, c.directIo());
        assertEquals(65536, c.maxBatchBytes());
        assertEquals(4, c.maxInflightWrites());
        assertEquals(250, c.appendTimeoutMs());
    }

    @Test
    void fromProperties_unparsableValues_nameKey() {
        String path = dir.resolve("w").toString();
        assertRejected(WalConfig.CAPACITY_CONFIG,
                () -> WalConfig.fromProperties(Map.of("wal.path", path, "wal.capacity.bytes", "1GB")));
        assertRejected(WalConfig.DIRECT_IO_CONFIG,
                () -> WalConfig.fromProperties(Map.of("wal.path", path, "wal.direct.io", "yes")));
        assertRejected(WalConfig.MAX_INFLIGHT_CONFIG,
                () -> WalConfig.fromProperties(Map.of("wal.path", path, "wal.max.inflight.writes", "99999999999")));
    }

    @Test
    void open_directoryMissing_namesPathKey() {
        WalConfig c = WalConfig.builder().path(dir.resolve("no/such/dir/w.wal")).capacityBytes(1 << 20).build();
        assertRejected(WalConfig.PATH_CONFIG, () -> open(c));
    }

    @Test
    void open_parentIsAFile_namesPathKey() throws Exception {
        Path file = Files.createFile(dir.resolve("plain"));
        WalConfig c = WalConfig.builder().path(file.resolve("w.wal")).capacityBytes(1 << 20).build();
        assertRejected(WalConfig.PATH_CONFIG, () -> open(c));
    }

    @Test
    void open_pathIsADirectory_namesPathKey() {
        WalConfig c = WalConfig.builder().path(dir).capacityBytes(1 << 20).build();
        assertRejected(WalConfig.PATH_CONFIG, () -> open(c));
    }

    @Test
    void open_fileSmallerThanCapacity_namesCapacityKey() throws Exception {
        // Stands for a block device smaller than the configured capacity: same check, same message.
        Path small = dir.resolve("small.wal");
        try (FileChannel ch = FileChannel.open(small, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(64 * 1024), 0);
        }
        WalConfig c = WalConfig.builder().path(small).capacityBytes(1 << 20).build();
        assertRejected(WalConfig.CAPACITY_CONFIG, () -> open(c));
    }

    @Test
    void open_capacityDiffersFromFormattedLog_namesCapacityKey() throws Exception {
        Path p = dir.resolve("w.wal");
        BlockDeviceWal.open(WalConfig.builder().path(p).capacityBytes(1 << 20).build()).close();
        WalConfig smaller = WalConfig.builder().path(p).capacityBytes(512 * 1024).build();
        assertRejected(WalConfig.CAPACITY_CONFIG, () -> open(smaller));
    }

    @Test
    void open_foreignFile_refusesToOverwrite() throws Exception {
        Path p = dir.resolve("notes.txt");
        Files.write(p, new byte[2 << 20]);
        Files.write(p, "precious text".getBytes(), StandardOpenOption.WRITE);
        WalConfig c = WalConfig.builder().path(p).capacityBytes(1 << 20).build();
        assertRejected(WalConfig.PATH_CONFIG, () -> open(c));
        assertTrue(new String(Files.readAllBytes(p), 0, 13).equals("precious text"), "file left untouched");
    }

    @Test
    void open_zeroFilledFile_isFormatted() throws Exception {
        Path p = dir.resolve("zeros.wal");
        Files.write(p, new byte[1 << 20]);
        WalConfig c = WalConfig.builder().path(p).capacityBytes(1 << 20).build();
        try (BlockDeviceWal wal = BlockDeviceWal.open(c)) {
            wal.append(ByteBuffer.wrap(new byte[] {1, 2, 3})).get();
        }
    }

    private static void open(WalConfig c) {
        try {
            BlockDeviceWal.open(c).close();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
