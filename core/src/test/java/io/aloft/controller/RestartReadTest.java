package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.command.PutKv;
import io.aloft.controller.query.Queries;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression, found by {@code io.aloft.broker.BrokerCrashTest}: the first read of a new client,
 * right after a SIGKILLed single voter restarted, was answered as a stale read with minimum index 0
 * by a state machine still replaying its log, so it saw the state of some earlier moment. A
 * restarted broker reads stream epochs that way during WAL recovery; seeing an old epoch, it took
 * its own acknowledged records for an earlier owner's and dropped them.
 *
 * <p>The voter runs in its own JVM ({@link ControllerVoterChild}) because a clean close takes a
 * snapshot, and a restart from a snapshot has nothing to replay.
 */
class RestartReadTest {
    /** Log entries the restarted voter replays; enough that replay outlasts a new client's first read. */
    private static final int WRITES = 3000;

    @TempDir
    Path dir;

    @Test
    void freshClientAfterVoterSigkilledAndRestarted_firstReadSeesLastCommittedWrite() throws Exception {
        String voters = "1@127.0.0.1:" + TestQuorum.freePort();
        ControllerConfig clientConfig = ControllerConfig.builder().nodeId(100).voters(voters)
                .dataDir(dir.resolve("client")).requestTimeoutMs(30_000).build();
        Process voter = start(voters);
        try {
            try (ControllerClient client = ControllerClient.create(clientConfig)) {
                // Writers in parallel (batched into fewer entries), 16 at a time so they stay separate entries.
                List<CompletableFuture<Object>> window = new ArrayList<>();
                for (int i = 0; i < WRITES; i++) {
                    window.add(client.submit(new PutKv("key-" + i, value(i))));
                    if (window.size() == 16) {
                        CompletableFuture.allOf(window.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
                        window.clear();
                    }
                }
                CompletableFuture.allOf(window.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
                // Acknowledged after every other write: the entry with the highest index.
                client.submit(new PutKv("last", value(WRITES))).get(60, TimeUnit.SECONDS);
            }
            voter.destroyForcibly(); // SIGKILL: no snapshot, the restart replays the whole log
            assertTrue(voter.waitFor(30, TimeUnit.SECONDS));
            assertEquals(137, voter.exitValue(), "the voter was killed by SIGKILL");
            voter = start(voters);
            try (ControllerClient fresh = ControllerClient.create(clientConfig)) {
                byte[] last = fresh.query(new Queries.GetKv("last"), byte[].class).get(60, TimeUnit.SECONDS);
                assertArrayEquals(value(WRITES), last, "the first read of a new client after the restart sees the "
                        + "last write acknowledged before the kill (null: a state from before it)");
                assertArrayEquals(value(WRITES - 1), fresh.query(new Queries.GetKv("key-" + (WRITES - 1)),
                        byte[].class).get(60, TimeUnit.SECONDS));
            }
        } finally {
            voter.destroyForcibly();
            voter.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static byte[] value(int i) {
        return ("value-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private Process start(String voters) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1",
                "-cp", System.getProperty("java.class.path"),
                ControllerVoterChild.class.getName(), "1", voters, dir.resolve("voter-1").toString());
        // Standard input stays open (the child halts at its end, so it never outlives this JVM).
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("voter.log").toFile()));
        return pb.start();
    }
}
