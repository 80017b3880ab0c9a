package io.aloft.stream.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileTreeTest {
    @TempDir
    Path tmpRoot;

    /**
     * Brokers sharing a file:// store sweep its temp directory at open while others' puts come and
     * go inside it: a file that vanishes during the sweep's directory walk (reported by the walk's
     * iterator as an unchecked NoSuchFileException) must not fail the open. Seen in CI: a broker
     * restarted in BrokerFailoverTest failed to start on it.
     */
    @Test
    void sweepingWhileAnotherOpensPutsComeAndGoNeverFails() throws Exception {
        Path other = Files.createDirectories(tmpRoot.resolve("another-open"));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger churned = new AtomicInteger();
        Thread putter = new Thread(() -> {
            while (!stop.get()) {
                try {
                    Path f = Files.createDirectories(other).resolve(churned.incrementAndGet() + ".put");
                    Files.write(f, new byte[16]);
                    Files.deleteIfExists(f);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        });
        putter.start();
        try {
            long deadline = System.nanoTime() + 1_000_000_000L;
            int sweeps = 0;
            while (System.nanoTime() < deadline || sweeps < 200) {
                // The other open's directory is newer than the cut-off: looked at (walked), never removed.
                FileTree.removeAbandoned(tmpRoot, 0);
                sweeps++;
            }
            assertTrue(churned.get() > 0, "the other open's puts ran during the sweeps");
            assertTrue(Files.isDirectory(other), "a live open's directory is kept");
        } finally {
            stop.set(true);
            putter.join();
        }
    }

    @Test
    void anEntryNewerThanTheCutOffStaysAndAnOlderOneGoes() throws Exception {
        Path fresh = Files.createDirectories(tmpRoot.resolve("fresh"));
        Files.write(fresh.resolve("a.put"), new byte[1]);
        Path old = Files.createDirectories(tmpRoot.resolve("old"));
        Files.write(old.resolve("b.put"), new byte[1]);
        Files.setLastModifiedTime(old.resolve("b.put"), java.nio.file.attribute.FileTime.fromMillis(1_000));
        Files.setLastModifiedTime(old, java.nio.file.attribute.FileTime.fromMillis(1_000));
        FileTree.removeAbandoned(tmpRoot, 2_000);
        assertTrue(Files.exists(fresh.resolve("a.put")));
        assertEquals(false, Files.exists(old));
    }
}
