package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.client.ControllerStreamMetadata;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three voters in their own JVMs ({@link ControllerVoterChild}); this JVM's client commits in a
 * loop while the leader's process is SIGKILLed and restarted, round after round. Then every voter
 * is SIGKILLed at once and restarted: a killed voter takes no snapshot, so it rebuilds its state by
 * replaying its log. Every acknowledged commit must be present exactly once, and the voters must
 * hold identical state before and after.
 *
 * <p>{@code -Daloft.controller.crash.rounds} sets the number of leader kills (default 2). On
 * failure the voters' output is copied under {@code target/voter-crash/}.
 */
class VoterCrashTest {
    private static final int ROUNDS = Integer.getInteger("aloft.controller.crash.rounds", 2);
    /** Commits acknowledged between steps. */
    private static final int STEP = 40;
    private static final int VOTERS = 3;

    @TempDir
    Path dir;

    private String voters;
    private final Process[] children = new Process[VOTERS + 1];
    private int statusRequests;

    /** A voter's answer to STATUS. */
    private record Status(long applied, boolean leader, String dump) {
    }

    @Test
    void leaderSigkilledRepeatedly_everyAcknowledgedCommitExactlyOnce() throws Exception {
        List<String> entries = new ArrayList<>();
        for (int id = 1; id <= VOTERS; id++) {
            entries.add(id + "@127.0.0.1:" + TestQuorum.freePort());
        }
        voters = String.join(",", entries);
        try {
            run();
        } catch (AssertionError | Exception e) {
            Path evidence = Files.createDirectories(Path.of("target", "voter-crash"));
            for (int id = 1; id <= VOTERS; id++) {
                Path log = dir.resolve("voter-" + id + ".log");
                if (Files.exists(log)) {
                    Files.copy(log, evidence.resolve("voter-" + id + ".log"), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            throw e;
        } finally {
            for (Process p : children) {
                if (p != null) {
                    p.destroyForcibly(); // whatever happened, no voter outlives the test
                }
            }
        }
    }

    private void run() throws Exception {
        for (int id = 1; id <= VOTERS; id++) {
            start(id);
        }
        ControllerConfig clientConfig = ControllerConfig.builder().nodeId(100).voters(voters)
                .dataDir(dir.resolve("client")).requestTimeoutMs(30_000).build();
        try (ControllerClient client = ControllerClient.create(clientConfig)) {
            ControllerStreamMetadata metadata = new ControllerStreamMetadata(client);
            List<CommitWriter.Ack> acks;
            Map<Long, Long> ends;
            try (CommitWriter writer = new CommitWriter(metadata, 2, 3, 7).start()) {
                for (int round = 0; round < ROUNDS; round++) {
                    writer.awaitAcked(writer.acked() + STEP, "before kill " + round);
                    int leader = awaitLeader();
                    kill(leader);
                    writer.awaitAcked(writer.acked() + STEP, "after SIGKILL of leader " + leader
                            + " (kill " + round + ")");
                    start(leader);
                }
                writer.awaitAcked(writer.acked() + STEP, "after the last restart");
                acks = writer.stop();
                ends = writer.ends();
            }
            Status before = awaitConverged(-1, "after " + ROUNDS + " leader kills");
            CommitCheck.verify(metadata, before.dump(), acks, ends);

            for (int id = 1; id <= VOTERS; id++) {
                kill(id);
            }
            for (int id = 1; id <= VOTERS; id++) {
                // Killed voters wrote no snapshot (the interval is far away), so restarting replays the log.
                try (java.util.stream.Stream<Path> files = Files.walk(dir.resolve("voter-" + id))) {
                    assertEquals(List.of(), files.filter(f -> f.getFileName().toString().startsWith("snapshot."))
                            .toList(), "snapshots of voter " + id);
                }
                start(id);
            }
            Status after = awaitConverged(before.applied(), "after every voter was SIGKILLed and restarted");
            assertEquals(before.dump(), after.dump(), "the state replayed from the logs is the state before");
            CommitCheck.verify(metadata, after.dump(), acks, ends);
            assertTrue(acks.size() >= (ROUNDS * 2 + 1) * STEP, acks.size() + " commits acknowledged");
        }
    }

    private void start(int id) throws IOException {
        Path log = dir.resolve("voter-" + id + ".log");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // Small and quick to start (C1 only, one compiler thread): it runs seconds on 2 shared cores.
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1",
                "-cp", System.getProperty("java.class.path"),
                ControllerVoterChild.class.getName(), Integer.toString(id), voters,
                dir.resolve("voter-" + id).toString());
        // A file, not a pipe: nothing has to drain it, and what a killed voter wrote is kept.
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        children[id] = pb.start();
    }

    private void kill(int id) throws InterruptedException {
        Process p = children[id];
        children[id] = null;
        p.destroyForcibly(); // SIGKILL on Unix
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "voter " + id + " exits after SIGKILL");
        assertEquals(137, p.exitValue(), "voter " + id + " was killed by SIGKILL");
    }

    /** Asks voter {@code id} for its status; waits (60 s at most, for a JVM start) for the answer. */
    private Status status(int id) throws Exception {
        Process p = children[id];
        Path file = dir.resolve("status-" + id + "-" + (statusRequests++));
        OutputStream stdin = p.getOutputStream();
        stdin.write(("STATUS " + file + "\n").getBytes(StandardCharsets.UTF_8));
        stdin.flush();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(file)) {
            if (!p.isAlive()) {
                fail("voter " + id + " died:\n" + Files.readString(dir.resolve("voter-" + id + ".log")));
            }
            if (System.nanoTime() > deadline) {
                fail("voter " + id + " did not answer STATUS within 60 s");
            }
            Thread.sleep(10);
        }
        String text = Files.readString(file);
        Files.delete(file);
        int newline = text.indexOf('\n');
        String[] head = text.substring(0, newline).split(" ");
        return new Status(Long.parseLong(head[0]), Boolean.parseBoolean(head[1]), text.substring(newline + 1));
    }

    private int awaitLeader() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            for (int id = 1; id <= VOTERS; id++) {
                if (children[id] != null && status(id).leader()) {
                    return id;
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no leader within 60 s");
    }

    /**
     * Waits until all voters have applied the same index, at least {@code minApplied}, and checks
     * that they then hold identical state; returns one voter's status.
     */
    private Status awaitConverged(long minApplied, String when) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            Status first = status(1);
            boolean same = first.applied() >= minApplied;
            for (int id = 2; id <= VOTERS && same; id++) {
                Status other = status(id);
                if (other.applied() == first.applied()) {
                    assertEquals(first.dump(), other.dump(), "voters 1 and " + id + " at index " + first.applied()
                            + ", " + when);
                } else {
                    same = false;
                }
            }
            if (same) {
                return first;
            }
            if (System.nanoTime() > deadline) {
                fail("voters did not converge within 60 s " + when);
            }
            Thread.sleep(50);
        }
    }
}
