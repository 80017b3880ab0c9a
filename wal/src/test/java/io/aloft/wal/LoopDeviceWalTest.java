package io.aloft.wal;

import static io.aloft.wal.WalTestSupport.recoverAll;
import static io.aloft.wal.WalTestSupport.record;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.config.ConfigException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The WAL on a real block device: a loop device over an 8 MiB image. Needs {@code losetup} and
 * the right to use it (root here); skipped where the machine does not allow it.
 */
class LoopDeviceWalTest {
    @TempDir
    Path dir;

    private Path device;

    @BeforeEach
    void attachLoopDevice() throws Exception {
        Path image = dir.resolve("disk.img");
        try (RandomAccessFile f = new RandomAccessFile(image.toFile(), "rw")) {
            f.setLength(8L << 20);
        }
        String attached = run("losetup", "-f", "--show", image.toString());
        Assumptions.assumeTrue(attached != null && attached.startsWith("/dev/loop"),
                "no loop device available: " + attached);
        device = Path.of(attached);
    }

    @AfterEach
    void detach() throws Exception {
        if (device != null) {
            run("losetup", "-d", device.toString());
        }
    }

    /** Runs a command; returns its trimmed output, or null if it could not run or failed. */
    private static String run(String... command) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0 ? out : null;
        } catch (IOException e) {
            return null;
        }
    }

    @Test
    void open_blockDevice_formatsAppendsAndRecovers() throws Exception {
        WalConfig config = WalConfig.builder().path(device).capacityBytes(4L << 20).build();
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            assertTrue(wal.directIo());
            for (int i = 0; i < 50; i++) {
                wal.append(record(i, 5000)).get(5, TimeUnit.SECONDS);
            }
        }
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            List<WalRecord> recovered = recoverAll(wal);
            assertEquals(50, recovered.size());
            for (int i = 0; i < 50; i++) {
                assertEquals(record(i, 5000), recovered.get(i).body());
            }
        }
    }

    @Test
    void open_deviceSmallerThanCapacity_namesCapacityKey() {
        WalConfig config = WalConfig.builder().path(device).capacityBytes(16L << 20).build();
        ConfigException e = assertThrows(ConfigException.class, () -> BlockDeviceWal.open(config));
        assertEquals(WalConfig.CAPACITY_CONFIG, e.key());
        assertTrue(e.getMessage().contains("device " + device), e.getMessage());
    }
}
