package io.aloft.controller.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.TestQuorum;
import io.aloft.controller.codec.NextLevelSchemas;
import io.aloft.controller.model.FeatureLevel;
import io.aloft.controller.server.ControllerServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code controller.sh features}: describe, upgrade, refusals and bad arguments. */
class FeaturesToolTest {
    @TempDir
    Path dir;

    /** One run's exit status and output. */
    private record Run(int status, String out, String err) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = FeaturesTool.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Describes until the voter's own report is in (it reports right after it starts). */
    private static Run describeOnceReported(String quorum) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Run r = null;
        while (System.nanoTime() < deadline) {
            r = run("describe", "--quorum", quorum);
            if (r.status() == 0 && !r.out().contains("has not reported")) {
                return r;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the voter never reported: " + r);
    }

    @Test
    void describeShowsTheLevels_andAnUpgradeBeyondWhatVotersSupportIsRefused() throws Exception {
        try (TestQuorum q = new TestQuorum(dir, 1)) {
            q.awaitLeader();
            Run describe = describeOnceReported(q.voters());
            int latest = FeatureLevel.LATEST;
            assertTrue(describe.out().contains("Finalized feature level: " + latest + "\n"), describe.out());
            assertTrue(describe.out().contains("  voter 1: supports 1.." + latest + "\n"), describe.out());
            assertTrue(describe.out().contains("Highest level every voter and unfenced broker supports: " + latest
                    + "\n"), describe.out());

            Run same = run("upgrade", "--level", String.valueOf(latest), "--quorum", q.voters());
            assertEquals(new Run(0, "Finalized feature level: " + latest + "\n", ""), same);
            Run refused = run("upgrade", "--level", String.valueOf(latest + 1), "--quorum", q.voters());
            assertEquals(1, refused.status());
            assertTrue(refused.err().startsWith("Refused: INVALID_FEATURE_UPDATE")
                    && refused.err().contains("voter 1 supports 1.." + latest), refused.err());
        }
    }

    @Test
    void upgradeRaisesTheLevel_whenEveryVoterSupportsIt() throws Exception {
        ControllerServer.Options next = new ControllerServer.Options(NextLevelSchemas.REGISTRY, true);
        try (TestQuorum q = new TestQuorum(dir, 1, b -> b, id -> next)) {
            q.awaitLeader();
            String level = String.valueOf(NextLevelSchemas.LEVEL);
            assertTrue(describeOnceReported(q.voters()).out().contains("every voter and unfenced broker supports: "
                    + level));
            assertEquals(new Run(0, "Finalized feature level: " + level + "\n", ""), run("upgrade", "--level", level,
                    "--quorum", q.voters()));
            assertTrue(run("describe", "--quorum", q.voters()).out().contains("Finalized feature level: " + level
                    + "\n"));
        }
    }

    @Test
    void badArgumentsExitWithTwo_andNoAnswerWithOne() {
        for (String[] args : new String[][] {{}, {"list"}, {"describe"}, {"upgrade", "--quorum", "1@h:1"},
                {"upgrade", "--level", "x", "--quorum", "1@h:1"}, {"describe", "--quorum", "not-a-voter"},
                {"describe", "--quorum", "1@h:1", "--level", "2"}, {"describe", "--quorum"}}) {
            Run r = run(args);
            assertEquals(2, r.status(), String.join(" ", args) + ": " + r);
            assertTrue(r.err().contains("usage:"), r.err());
        }
        Run unreachable = run("describe", "--quorum", "1@127.0.0.1:" + TestQuorum.freePort(), "--timeout-ms", "1000");
        assertEquals(1, unreachable.status(), unreachable.toString());
        assertTrue(unreachable.err().startsWith("Failed: "), unreachable.err());
    }
}
