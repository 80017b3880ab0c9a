package io.aloft.autoscaler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line without a cluster: usage errors and invalid policies exit 2 naming what is
 * wrong, {@code validate} accepts the examples, {@code simulate} prints the step's timeline.
 * ({@code plan} and {@code run} against brokers: AutoscalerStepLoadTest.)
 */
class AutoscalerMainTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return AutoscalerMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void noCommand_unknownCommand_missingOption_exit2WithUsage() {
        assertEquals(2, run());
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("usage: aloft-autoscaler run"));
        assertEquals(2, run("scale"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown command scale"));
        assertEquals(2, run("run", "--policy", "examples/local.yaml"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--bootstrap is required"));
        assertEquals(2, run("plan", "--policy"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--policy needs a value"));
    }

    @Test
    void validate_example_ok_invalidPolicy_namesEveryField() throws Exception {
        assertEquals(0, run("validate", "--policy", "examples/kubernetes.yaml"));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("valid"));
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "maxBrokers: 2\nminBrokers: 3\nscaling:\n  cooldown:\n    scaleOut: soon\n");
        assertEquals(2, run("validate", "--policy", bad.toString()));
        String e = err.toString(StandardCharsets.UTF_8);
        assertTrue(e.contains("maxBrokers"), e);
        assertTrue(e.contains("scaling.cooldown.scaleOut"), e);
        assertEquals(2, run("validate", "--policy", dir.resolve("missing.yaml").toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("cannot read"));
    }

    @Test
    void simulate_printsTheTimeline() {
        assertEquals(0, run("simulate", "--policy", "examples/burst-to-1gib.yaml", "--boot", "45s"));
        String o = out.toString(StandardCharsets.UTF_8);
        assertTrue(o.contains("scale out 3 -> 30"), o);
        assertTrue(o.contains("brokers serving 75 s"), o);
        assertEquals(2, run("simulate", "--policy", "examples/burst-to-1gib.yaml", "--brokers", "three"));
    }
}
