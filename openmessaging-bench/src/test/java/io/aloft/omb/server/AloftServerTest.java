package io.aloft.omb.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.aloft.servers.AloftServer;
import io.aloft.servers.RoundTrip;
import java.nio.file.Files;
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
        String props = RoundTrip.startRoundTripAndStop(aloft);
        assertTrue(props.contains("aloft.data.dir="), props);
        assertFalse(props.contains("s3.url"), props);
    }

    /** WAL, metadata and objects survive a clean stop: the records come back from the new process. */
    @Test
    void restart_fileObjectStore_keepsDataAndAddress() throws Exception {
        RoundTrip.startWriteRestartAndRead(new AloftServer("512m", false, RoundTrip.scratch(), SMALL,
                Duration.ofSeconds(60)));
    }

    /** Skipped where versitygw is not built (scripts/s3-server.sh versitygw builds it, minutes). */
    @Test
    void start_onVersitygw_roundTripsRecordsAndStopsGatewayToo() throws Exception {
        boolean haveGateway;
        try {
            AloftServer.versitygwBinary();
            haveGateway = true;
        } catch (java.io.IOException e) {
            haveGateway = false;
        }
        assumeTrue(haveGateway, "versitygw not built");
        AloftServer aloft = new AloftServer("512m", true, RoundTrip.scratch(), SMALL, Duration.ofSeconds(60));
        String props = RoundTrip.startRoundTripAndStop(aloft);
        assertTrue(props.contains("s3.url=s3://aloft-omb?endpoint=http://127.0.0.1:"), props);
        assertTrue(ProcessHandle.current().children()
                .noneMatch(p -> p.info().command().orElse("").endsWith("versitygw")), "versitygw still running");
    }

    @Test
    void start_childExitsAtOnce_failsWithTheLogTailAndLeavesNothing() {
        AloftServer aloft = new AloftServer("256m", false, RoundTrip.scratch(), Map.of("num.partitions", "0"),
                Duration.ofSeconds(60));
        java.io.IOException e = assertThrows(java.io.IOException.class, aloft::start);
        assertTrue(e.getMessage().contains("exited with status 2"), e.getMessage());
        assertTrue(e.getMessage().contains("Invalid configuration: num.partitions"), e.getMessage());
        assertFalse(aloft.process().isAlive());
        assertFalse(Files.exists(aloft.directory()), "temp dir left behind");
    }
}
