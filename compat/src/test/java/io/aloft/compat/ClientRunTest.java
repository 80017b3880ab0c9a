package io.aloft.compat;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The harness fails a client that hangs or fails, within its limit, and shows what it printed. */
class ClientRunTest {

    @TempDir
    Path dir;

    @Test
    void run_clientHangs_killedAtLimitAndFailsWithItsOutput() throws Exception {
        ClientRun run = ClientRun.run("hangs", List.of("bash", "-c", "echo step: waiting for records; exec sleep 60"),
                Map.of(), dir, Duration.ofSeconds(2));
        assertTrue(run.timedOut());
        assertTrue(run.elapsed().compareTo(Duration.ofSeconds(15)) < 0, "took " + run.elapsed());
        AssertionError e = assertThrows(AssertionError.class, run::assertPassed);
        assertTrue(e.getMessage().contains("killed after the hard time limit of 2 s"), e.getMessage());
        assertTrue(e.getMessage().contains("step: waiting for records"), e.getMessage());
    }

    @Test
    void run_clientHangsWithChildren_killsThemToo() throws Exception {
        ClientRun run = ClientRun.run("forks", List.of("bash", "-c", "sleep 60 & echo child $!; wait"), Map.of(), dir,
                Duration.ofSeconds(2));
        long child = Long.parseLong(run.output().lines().filter(l -> l.startsWith("child ")).findFirst().orElseThrow()
                .substring("child ".length()));
        assertFalse(ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false), "child " + child + " alive");
    }

    @Test
    void assertPassed_nonZeroStatus_failsWithStatusAndOutput() throws Exception {
        ClientRun run = ClientRun.run("fails", List.of("bash", "-c", "echo 'FAILED: at step x' >&2; exit 1"),
                Map.of(), dir, Duration.ofSeconds(10));
        AssertionError e = assertThrows(AssertionError.class, run::assertPassed);
        assertTrue(e.getMessage().contains("exited with status 1"), e.getMessage());
        assertTrue(e.getMessage().contains("FAILED: at step x"), e.getMessage());
    }

    @Test
    void assertPassed_statusZeroWithoutOkLine_fails() throws Exception {
        ClientRun run = ClientRun.run("silent", List.of("bash", "-c", "echo step: one"), Map.of(), dir,
                Duration.ofSeconds(10));
        AssertionError e = assertThrows(AssertionError.class, run::assertPassed);
        assertTrue(e.getMessage().contains("never printed its OK line"), e.getMessage());
    }

    @Test
    void run_separateStderr_outputIsStdoutAloneAndDescribeQuotesBoth() throws Exception {
        ClientRun run = ClientRun.run("split", List.of("bash", "-c", "echo data; echo '% note' >&2; echo more"),
                Map.of(), dir, Duration.ofSeconds(10), true);
        assertTrue(run.output().equals("data\nmore\n"), run.output());
        assertTrue(run.describe().contains("% note"), run.describe());
    }

    @Test
    void assertPassed_okLineAndStatusZero_passes() throws Exception {
        ClientRun.run("passes", List.of("bash", "-c", "echo step: one; echo OK done"), Map.of(), dir,
                Duration.ofSeconds(10)).assertPassed();
    }
}
