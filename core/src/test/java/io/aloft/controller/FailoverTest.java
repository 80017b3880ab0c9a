package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.client.ControllerStreamMetadata;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three in-process voters under a committing client: the leader is stopped mid-loop and later
 * restarted, then the whole quorum is restarted from its directories. Every acknowledged commit
 * must be present exactly once, and the voters must hold identical state.
 */
class FailoverTest {
    /** Commits acknowledged between steps: enough that each step's writes span real traffic. */
    private static final int STEP = 60;

    @TempDir
    Path dir;

    @Test
    void leaderStoppedAndRestarted_everyAcknowledgedCommitExactlyOnce() throws Exception {
        List<CommitWriter.Ack> acks;
        Map<Long, Long> ends;
        String before;
        long applied;
        try (TestQuorum q = new TestQuorum(dir, 3); ControllerClient client = q.newClient()) {
            q.awaitLeader();
            CommitWriter writer = new CommitWriter(new ControllerStreamMetadata(client), 2, 3, 42).start();
            try (writer) {
                writer.awaitAcked(STEP, "before the leader stops");
                int oldLeader = q.awaitLeader();
                q.stop(oldLeader);
                writer.awaitAcked(writer.acked() + STEP, "after voter " + oldLeader + " (leader) stopped");
                int newLeader = q.awaitLeader();
                assertNotEquals(oldLeader, newLeader, "a stopped voter cannot lead");
                q.start(oldLeader);
                writer.awaitAcked(writer.acked() + STEP, "after voter " + oldLeader + " restarted");
                acks = writer.stop();
                ends = writer.ends();
            }
            applied = q.maxApplied();
            q.awaitApplied(applied);
            before = q.server(1).state().dump();
            assertEquals(before, q.server(2).state().dump(), "voters 1 and 2 hold the same state");
            assertEquals(before, q.server(3).state().dump(), "voters 1 and 3 hold the same state");
            CommitCheck.verify(new ControllerStreamMetadata(client), before, acks, ends);
        }

        try (TestQuorum q = new TestQuorum(dir, 3); ControllerClient client = q.newClient()) {
            q.awaitLeader();
            q.awaitApplied(applied);
            for (int id = 1; id <= 3; id++) {
                assertEquals(before, q.server(id).state().dump(), "voter " + id + " after the quorum restarted");
            }
            CommitCheck.verify(new ControllerStreamMetadata(client), before, acks, ends);
        }
    }
}
