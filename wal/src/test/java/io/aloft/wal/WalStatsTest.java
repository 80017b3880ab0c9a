package io.aloft.wal;

import static io.aloft.wal.WalTestSupport.record;
import static io.aloft.wal.WalTestSupport.smallConfig;
import static io.aloft.wal.WalTestSupport.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WalStatsTest {
    @TempDir
    Path dir;

    @Test
    void appendLatency_oneSamplePerDurableAppend_recordedBeforeItsFutureCompletes() throws Exception {
        try (BlockDeviceWal wal = BlockDeviceWal.open(smallConfig(dir).build())) {
            ConcurrentLinkedQueue<Long> samples = new ConcurrentLinkedQueue<>();
            wal.stats().appendLatencyTo(samples::add);
            for (int i = 0; i < 20; i++) {
                long before = System.nanoTime();
                wal.append(text("record-" + i)).get(5, TimeUnit.SECONDS);
                long elapsed = System.nanoTime() - before;
                assertEquals(i + 1, samples.size(), "the sample is in when the append completes");
                long sample = samples.stream().skip(i).findFirst().orElseThrow();
                assertTrue(sample >= 0 && sample <= elapsed, sample + " within the " + elapsed + " ns the caller saw");
            }
            assertEquals(20, wal.stats().appends());
        }
    }

    @Test
    void fullWaitNanos_countsTheWaitOfEveryAppendThatTimedOut_andTimedOutAppendsHaveNoLatency() throws Exception {
        long timeoutMs = 200;
        WalConfig config = smallConfig(dir).capacityBytes(128 * 1024).maxBatchBytes(16 * 1024)
                .appendTimeoutMs(timeoutMs).build();
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            ConcurrentLinkedQueue<Long> samples = new ConcurrentLinkedQueue<>();
            wal.stats().appendLatencyTo(samples::add);
            List<CompletableFuture<Long>> futures = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                futures.add(wal.append(record(i, 8000)));
            }
            int ok = 0;
            int full = 0;
            for (CompletableFuture<Long> f : futures) {
                try {
                    f.get(5, TimeUnit.SECONDS);
                    ok++;
                } catch (ExecutionException e) {
                    full++;
                }
            }
            assertTrue(ok > 0 && full > 0, "ok=" + ok + " full=" + full);
            assertEquals(ok, samples.size(), "only durable appends have a latency");
            assertEquals(full, wal.stats().fullTimeouts());
            // Each timed-out append waited at least the timeout before it was failed.
            assertTrue(wal.stats().fullWaitNanos() >= full * TimeUnit.MILLISECONDS.toNanos(timeoutMs),
                    wal.stats().toString());
        }
    }
}
