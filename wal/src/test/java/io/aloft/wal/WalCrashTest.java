package io.aloft.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a process that is appending to the WAL with SIGKILL at random moments, and checks after
 * each kill that recovery returns every record whose append had completed (and was not trimmed),
 * byte for byte, and nothing corrupt. The WAL carries over from round to round, so records must
 * also survive later incarnations' recoveries and writes.
 */
class WalCrashTest {
    private static final int ROUNDS = Integer.getInteger("aloft.crash.rounds", 20);

    @TempDir
    Path dir;

    @Test
    void sigkillDuringAppends_everyAcknowledgedRecordRecovered() throws Exception {
        Path walPath = dir.resolve("crash.wal");
        Random random = new Random();
        long seed = Long.getLong("aloft.crash.seed", random.nextLong());
        random.setSeed(seed);
        Map<Long, Long> ackedIdByOffset = new HashMap<>();
        long trimmedBelow = 0;
        long trimRequested = 0;
        long totalAcked = 0;
        for (int round = 0; round < ROUNDS; round++) {
            int killAfterAcks = 100 + random.nextInt(3000);
            ChildRun run = runAndKill(walPath, round, killAfterAcks);
            for (String line : run.lines) {
                String[] f = line.split(" ");
                if (f.length == 3 && f[0].equals("A")) {
                    ackedIdByOffset.put(Long.parseLong(f[1]), Long.parseLong(f[2]));
                    totalAcked++;
                } else if (f.length == 2 && f[0].equals("T")) {
                    trimmedBelow = Math.max(trimmedBelow, Long.parseLong(f[1]));
                } else if (f.length == 2 && f[0].equals("R")) {
                    trimRequested = Math.max(trimRequested, Long.parseLong(f[1]));
                } else if (line.startsWith("E ")) {
                    fail("child failed an append in round " + round + ": " + line);
                }
            }
            // A trim requested but not seen completing may or may not have become durable:
            // recovery must land between the last completed trim and the last requested one.
            Path evidence = Path.of("target", "crash-evidence");
            Files.createDirectories(evidence);
            Files.copy(walPath, evidence.resolve("before-verify.wal"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            long durableTrim;
            try {
                durableTrim = verifyRecovery(walPath, ackedIdByOffset, trimmedBelow, trimRequested,
                        "round " + round + " (seed " + seed + ")");
            } catch (AssertionError e) {
                Files.copy(walPath, evidence.resolve("after-verify.wal"),
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                throw e;
            }
            trimmedBelow = durableTrim;
            ackedIdByOffset.keySet().removeIf(offset -> offset < durableTrim);
        }
        assertTrue(totalAcked > ROUNDS * 100L, "the child made progress: " + totalAcked);
        assertTrue(trimmedBelow > 2 * WalCrashChild.CAPACITY, "the ring wrapped around: trimmed to " + trimmedBelow);
    }

    private record ChildRun(List<String> lines) {
    }

    /**
     * Runs the child until it has reported {@code killAfterAcks} acknowledgements, then SIGKILLs it.
     * Its output goes to a file, not a pipe, so every line it wrote before dying is kept whatever
     * the JVM's process reaper does with a dead child's pipe.
     */
    private ChildRun runAndKill(Path walPath, int round, int killAfterAcks) throws Exception {
        Path out = dir.resolve("child-" + round + ".log");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), WalCrashChild.class.getName(), walPath.toString(),
                Integer.toString(round));
        pb.redirectErrorStream(true).redirectOutput(out.toFile());
        Process child = pb.start();
        try {
            return awaitAcksAndKill(child, out, round, killAfterAcks);
        } finally {
            child.destroyForcibly(); // whatever happened above, the child never outlives the round
        }
    }

    private ChildRun awaitAcksAndKill(Process child, Path out, int round, int killAfterAcks) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        int acks = 0;
        long scanned = 0;
        while (acks < killAfterAcks) {
            assertTrue(child.isAlive(), () -> "child died before the kill: " + tail(readLines(out)));
            if (System.nanoTime() > deadline) {
                fail("child reached " + acks + " of " + killAfterAcks + " acknowledgements in 120 s; its last lines:\n"
                        + tail(readLines(out)));
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // poll the child's progress
            byte[] bytes = Files.readAllBytes(out);
            for (long i = scanned; i + 1 < bytes.length; i++) {
                if (bytes[(int) i] == '\n' && bytes[(int) i + 1] == 'A') {
                    acks++;
                }
            }
            scanned = Math.max(scanned, bytes.length - 1);
        }
        child.destroyForcibly(); // SIGKILL
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertEquals(137, child.exitValue(), "killed by SIGKILL");
        // A line cut short by the kill is not a complete event; the parser drops it.
        List<String> all = readLines(out);
        Files.write(Path.of("target", "crash-child-round-" + round + ".log"), all); // kept for diagnosis
        return new ChildRun(all);
    }

    private static List<String> readLines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String tail(List<String> lines) {
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    }

    /** Recovers the log, checks it against the model, and returns its durable trim point. */
    private static long verifyRecovery(Path walPath, Map<Long, Long> ackedIdByOffset, long trimCompleted,
            long trimRequested, String when) throws Exception {
        Map<Long, ByteBuffer> recovered = new HashMap<>();
        long trim;
        try (BlockDeviceWal wal = BlockDeviceWal.open(WalCrashChild.config(walPath))) {
            trim = wal.trimOffset();
            assertTrue(trim >= trimCompleted, "a completed trim is durable, " + when);
            assertTrue(trim <= Math.max(trimRequested, trimCompleted), "never trimmed beyond a request: trim " + trim
                    + ", requested " + trimRequested + ", completed " + trimCompleted + ", " + when);
            long previous = -1;
            for (Iterator<WalRecord> it = wal.recover(); it.hasNext(); ) {
                WalRecord r = it.next();
                assertTrue(r.offset() > previous, "offsets increase");
                assertTrue(r.offset() >= trim, "records below the trim point are not returned");
                previous = r.offset();
                long id = WalTestSupport.idOf(r.body());
                assertEquals(WalTestSupport.record(id, WalCrashChild.sizeOf(id)), r.body(),
                        "recovered record at " + r.offset() + " is intact, " + when);
                recovered.put(r.offset(), r.body());
            }
        }
        for (Map.Entry<Long, Long> e : ackedIdByOffset.entrySet()) {
            if (e.getKey() < trim) {
                continue;
            }
            ByteBuffer body = recovered.get(e.getKey());
            if (body == null) {
                java.util.TreeMap<Long, ByteBuffer> sorted = new java.util.TreeMap<>(recovered);
                fail("acknowledged record " + e.getValue() + " at offset " + e.getKey() + " lost (trim point " + trim
                        + "; recovered neighbours " + sorted.lowerKey(e.getKey()) + " and "
                        + sorted.higherKey(e.getKey()) + ", " + recovered.size() + " records), " + when);
            }
            assertEquals(e.getValue(), WalTestSupport.idOf(body), "record at " + e.getKey() + ", " + when);
        }
        return trim;
    }
}
