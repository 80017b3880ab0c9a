package io.aloft.omb.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AloftServerTest {
    /** Small WAL and caches: the test checks wiring, not capacity, and shares 2 cores and the disk. */
    private static final Map<String, String> SMALL = Map.of(
            "wal.capacity.bytes", String.valueOf(128L << 20),
            "s3.log.cache.size.bytes", String.valueOf(64L << 20),
            "s3.wal.upload.threshold.bytes", String.valueOf(16L << 20),
            "s3.block.cache.size.bytes", String.valueOf(16L << 20));

    @Test
    void start_fileObjectStore_roundTripsRecordsAndStopsClean() throws Exception {
        AloftServer aloft = new AloftServer("512m", false, RoundTrip.scratch(), SMALL, Duration.ofSeconds(60));
        Process process;
        Path dir;
        String bootstrap;
        try {
            aloft.start();
            process = aloft.process();
            dir = aloft.directory();
            bootstrap = aloft.bootstrap();
            String props = Files.readString(dir.resolve("attempt-1/server.properties"));
            assertTrue(props.contains("aloft.data.dir=" + dir.resolve("attempt-1/data")), props);
            assertFalse(props.contains("s3.url"), props);
            RoundTrip.produceAndConsume(bootstrap, 200);
        } finally {
            aloft.stop();
        }
        RoundTrip.assertStoppedClean(aloft, process, dir, bootstrap);
    }
}
