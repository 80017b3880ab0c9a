package io.aloft.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A long-running child is killed at its hard limit, stops on request, and a failed wait shows its output. */
class ChildServiceTest {

    @TempDir
    Path dir;

    @Test
    void awaitLine_childHangs_killedAtHardLimitAndWaitFailsWithItsOutput() throws Exception {
        try (ChildService child = ChildService.start("hangs", List.of("bash", "-c",
                "echo step: starting; sleep 60 & echo child $!; wait"), Map.of(), dir, Duration.ofSeconds(2))) {
            AssertionError e = assertThrows(AssertionError.class,
                    () -> child.awaitLine("ready line", 0, "READY"::equals, Duration.ofSeconds(30)));
            assertTrue(e.getMessage().contains("no ready line before it ended"), e.getMessage());
            assertTrue(e.getMessage().contains("killed at its hard time limit of 2 s"), e.getMessage());
            assertTrue(child.describe().contains("step: starting"), child.describe());
            long grandchild = Long.parseLong(child.lines().stream().filter(l -> l.startsWith("child ")).findFirst()
                    .orElseThrow().substring("child ".length()));
            assertFalse(ProcessHandle.of(grandchild).map(ProcessHandle::isAlive).orElse(false),
                    "grandchild " + grandchild + " alive");
        }
    }

    @Test
    void stop_childHandlesSigterm_returnsItsExitStatus() throws Exception {
        ChildService child = ChildService.start("traps", List.of("bash", "-c",
                "trap 'echo stopping; exit 7' TERM; echo READY; while true; do sleep 0.1; done"), Map.of(), dir,
                Duration.ofSeconds(30));
        child.awaitLine("ready line", 0, "READY"::equals, Duration.ofSeconds(10));
        assertEquals(Optional.of(7), child.stop(Duration.ofSeconds(10)));
        assertTrue(child.lines().contains("stopping"), child.describe());
    }

    @Test
    void stop_childIgnoresSigterm_killedAfterGrace() throws Exception {
        ChildService child = ChildService.start("ignores", List.of("bash", "-c",
                "trap '' TERM; echo READY; while true; do sleep 0.1; done"), Map.of(), dir, Duration.ofSeconds(30));
        child.awaitLine("ready line", 0, "READY"::equals, Duration.ofSeconds(10));
        assertEquals(Optional.empty(), child.stop(Duration.ofSeconds(1)));
        assertFalse(child.isAlive());
    }

    @Test
    void send_lineOnStdin_reachesTheChild() throws Exception {
        try (ChildService child = ChildService.start("echoes", List.of("bash", "-c",
                "read line; echo \"got $line\""), Map.of(), dir, Duration.ofSeconds(30))) {
            child.send("counts");
            assertEquals("got counts", child.awaitLine("echo", 0, l -> l.startsWith("got"), Duration.ofSeconds(10)));
            assertEquals(Optional.of(0), child.awaitExit(Duration.ofSeconds(10)));
        }
    }
}
