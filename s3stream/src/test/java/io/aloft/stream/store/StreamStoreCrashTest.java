package io.aloft.stream.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.aloft.stream.FetchResult;
import io.aloft.stream.Stream;
import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.metadata.MemoryStreamMetadata;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorages;
import io.aloft.wal.BlockDeviceWal;
import io.aloft.wal.WriteAheadLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a process running a {@link StreamStore} ({@link StreamStoreCrashChild}) with SIGKILL while
 * it appends to several streams from several threads, then recovers its WAL in this JVM and
 * checks that every acknowledged append reads back at its offset, in order and byte for byte, and
 * that every batch that reads back at all is one the child really appended.
 *
 * <p>Each round starts fresh: a new WAL file, object directory and metadata. The child's metadata
 * dies with it, so the test rebuilds it by making the same create and open calls (the child
 * never uploads, so that is all its metadata ever held); recovery then uploads the WAL's records
 * into objects and commits them, and the streams are opened with epoch 2 and read back. A failed
 * round's WAL and child output are copied under {@code target/stream-crash-evidence/}.
 *
 * <p>{@code -Daloft.crash.rounds} and {@code -Daloft.crash.seed} override the round count and the
 * seed choosing when to kill.
 */
class StreamStoreCrashTest {
    private static final int ROUNDS = Integer.getInteger("aloft.crash.rounds", 10);

    @TempDir
    Path dir;

    /** One acknowledged append as the child reported it. */
    private record Ack(long streamId, long baseOffset, int count, long seed) {
    }

    @Test
    void sigkillDuringAppends_everyAcknowledgedAppendRecovered() throws Exception {
        long seed = Long.getLong("aloft.crash.seed", new Random().nextLong());
        Random random = new Random(seed);
        long totalAcked = 0;
        for (int round = 0; round < ROUNDS; round++) {
            Path roundDir = Files.createDirectories(dir.resolve("round-" + round));
            Path walPath = roundDir.resolve("crash.wal");
            Path objects = Files.createDirectories(roundDir.resolve("objects"));
            int killAfterAcks = 1 + random.nextInt(round % 3 == 0 ? 50 : 3000);
            List<String> lines = runAndKill(walPath, objects, roundDir.resolve("child.log"), round, killAfterAcks);
            String when = "round " + round + " (seed " + seed + ", -Daloft.crash.seed=" + seed + ")";
            try {
                totalAcked += verifyRecovery(walPath, objects, lines, round, when);
            } catch (AssertionError | RuntimeException e) {
                Path evidence = Files.createDirectories(Path.of("target", "stream-crash-evidence", "round-" + round));
                Files.copy(walPath, evidence.resolve("crash.wal"), StandardCopyOption.REPLACE_EXISTING);
                Files.write(evidence.resolve("child.log"), lines);
                throw e;
            }
        }
        assertTrue(totalAcked > ROUNDS * 100L, "the children made progress: " + totalAcked + " acknowledged appends");
    }

    /**
     * Runs the child until it has reported {@code killAfterAcks} acknowledgements, then SIGKILLs it
     * and returns its output. The output goes to a file, not a pipe, so every line written before
     * the kill is kept.
     */
    private static List<String> runAndKill(Path walPath, Path objects, Path out, int round, int killAfterAcks)
            throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), StreamStoreCrashChild.class.getName(), walPath.toString(),
                objects.toString(), Integer.toString(round));
        pb.redirectErrorStream(true).redirectOutput(out.toFile());
        Process child = pb.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            int acks = 0;
            int scanned = 0;
            while (acks < killAfterAcks) {
                assertTrue(child.isAlive(), () -> "child died before the kill: " + tail(readLines(out)));
                if (System.nanoTime() > deadline) {
                    fail("child reached " + acks + " of " + killAfterAcks + " acknowledgements in 60 s:\n"
                            + tail(readLines(out)));
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2)); // poll the other process's progress
                byte[] bytes = Files.readAllBytes(out);
                for (int i = scanned; i + 1 < bytes.length; i++) {
                    if (bytes[i] == '\n' && bytes[i + 1] == 'A') {
                        acks++;
                    }
                }
                scanned = Math.max(scanned, bytes.length - 1);
            }
            child.destroyForcibly(); // SIGKILL, mid-append
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            assertEquals(137, child.exitValue(), "killed by SIGKILL");
        } finally {
            child.destroyForcibly(); // whatever happened, the child never outlives the round
        }
        List<String> lines = readLines(out);
        Files.createDirectories(Path.of("target"));
        Files.write(Path.of("target", "stream-crash-child-round-" + round + ".log"), lines); // for diagnosis
        return lines;
    }

    /** Recovers the child's WAL into fresh objects and checks the streams; returns the acknowledgements checked. */
    private static int verifyRecovery(Path walPath, Path objects, List<String> lines, int round, String when)
            throws Exception {
        Map<Integer, Long> childIds = new HashMap<>();
        List<Ack> acks = new ArrayList<>();
        for (String line : lines) {
            String[] f = line.split(" ");
            if (f.length == 3 && f[0].equals("S")) {
                childIds.put(Integer.parseInt(f[1]), Long.parseLong(f[2]));
            } else if (f.length == 5 && f[0].equals("A")) {
                acks.add(new Ack(Long.parseLong(f[1]), Long.parseLong(f[2]), Integer.parseInt(f[3]),
                        Long.parseLong(f[4])));
            } else if (line.startsWith("E ")) {
                fail("child failed an append, " + when + ": " + line);
            }
            // Anything else is a line cut short by the kill, READY, or log output.
        }
        MemoryStreamMetadata metadata = new MemoryStreamMetadata();
        List<Long> ids = StreamStoreCrashChild.createAndOpen(metadata);
        for (int i = 0; i < ids.size(); i++) {
            assertEquals(childIds.get(i), ids.get(i), "the rebuilt metadata names the child's streams, " + when);
        }
        Map<Long, TreeMap<Long, Ack>> ackedByStream = new HashMap<>();
        for (Ack a : acks) {
            Ack previous = ackedByStream.computeIfAbsent(a.streamId, k -> new TreeMap<>()).put(a.baseOffset, a);
            assertEquals(null, previous, "two appends acknowledged at one offset: " + previous + ", " + a + ", " + when);
        }
        try (ObjectStorage storage = ObjectStorages.open(objects.toUri().toString());
                WriteAheadLog wal = BlockDeviceWal.open(StreamStoreCrashChild.walConfig(walPath));
                StreamStore store = StreamStore.open(StreamStoreCrashChild.storeConfig(), wal, storage, metadata)) {
            for (int i = 0; i < ids.size(); i++) {
                long id = ids.get(i);
                Stream stream = store.openStream(id, 2).get(10, TimeUnit.SECONDS);
                TreeMap<Long, Ack> acked = ackedByStream.getOrDefault(id, new TreeMap<>());
                long ackedEnd = acked.isEmpty() ? 0 : acked.lastEntry().getValue().baseOffset
                        + acked.lastEntry().getValue().count;
                assertTrue(stream.confirmOffset() >= ackedEnd, "stream " + id + " recovered to "
                        + stream.confirmOffset() + ", below the acknowledged end " + ackedEnd + ", " + when);
                Map<Long, StreamRecordBatch> read = readBack(stream, i, when);
                for (Ack a : acked.values()) {
                    StreamRecordBatch b = read.get(a.baseOffset);
                    assertNotNull(b, "acknowledged " + a + " lost (recovered to " + stream.confirmOffset() + "), "
                            + when);
                    assertEquals(a.count, b.count(), "count of " + a + ", " + when);
                    assertEquals(a.seed, b.payloadView().getLong(b.payloadView().position()), "batch at " + a.baseOffset + " of stream " + id
                            + " is not the acknowledged append " + a + ", " + when);
                }
                // The recovered data is what metadata now holds for the new owner.
                assertEquals(stream.confirmOffset(), metadata.describeStream(id).get().endOffset(), when);
            }
            assertEquals(0, store.pendingUploadBytes(), when);
        }
        return acks.size();
    }

    /**
     * Reads the whole stream from offset 0, checking that it is contiguous, that every batch is a
     * whole append of this stream (its payload and count match its seed) and that no append
     * appears twice; returns the batches by base offset.
     */
    private static Map<Long, StreamRecordBatch> readBack(Stream stream, int streamIndex, String when)
            throws Exception {
        Map<Long, StreamRecordBatch> byBase = new HashMap<>();
        Set<Long> seeds = new HashSet<>();
        long next = 0;
        while (next < stream.confirmOffset()) {
            FetchResult r = stream.fetch(next, Long.MAX_VALUE, 256 * 1024).get(10, TimeUnit.SECONDS);
            assertFalse(r.batches().isEmpty(), "no data at " + next + " of " + stream + ", " + when);
            for (StreamRecordBatch b : r.batches()) {
                assertEquals(next, b.baseOffset(), "contiguous: " + stream + ", " + when);
                ByteBuffer payload = b.payloadView();
                assertTrue(payload.remaining() >= 8, "payload of " + b + ", " + when);
                long seed = payload.getLong(payload.position());
                assertEquals(streamIndex, StreamStoreCrashChild.streamIndexOf(seed),
                        "batch at " + next + " of " + stream + " belongs to another stream, " + when);
                assertEquals(StreamStoreCrashChild.countOf(seed), b.count(), "count at " + next + ", " + when);
                assertEquals(StreamStoreCrashChild.payload(seed), payload,
                        "payload at " + next + " of " + stream + " (seed " + seed + "), " + when);
                assertTrue(seeds.add(seed), "append " + seed + " read twice, " + when);
                byBase.put(b.baseOffset(), b);
                next = b.lastOffsetExclusive();
            }
        }
        return byBase;
    }

    private static List<String> readLines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String tail(List<String> lines) {
        return lines.subList(Math.max(0, lines.size() - 20), lines.size()).stream()
                .collect(Collectors.joining("\n"));
    }
}
