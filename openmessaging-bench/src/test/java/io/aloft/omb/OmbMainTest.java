package io.aloft.omb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Argument errors, which never reach a broker. */
class OmbMainTest {
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return OmbMain.run(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void run_noArguments_printsUsageAndExits2() {
        assertEquals(2, run());
        assertTrue(err().contains("usage"), err());
    }

    @Test
    void run_unknownCommand_exits2() {
        assertEquals(2, run("benchmark"));
        assertTrue(err().contains("unknown command 'benchmark'"), err());
    }

    @Test
    void run_missingOption_namesIt() {
        assertEquals(2, run("run", "--workload", "workloads/smoke.yaml", "--driver", "drivers/kafka-latency.yaml"));
        assertTrue(err().contains("--bootstrap is required"), err());
    }

    @Test
    void run_badOptions_nameThem() {
        assertEquals(2, run("run", "--workload", "workloads/smoke.yaml", "--driver", "drivers/kafka-latency.yaml",
                "--bootstrap", "127.0.0.1:1", "--duration-minutes", "soon"));
        assertTrue(err().contains("--duration-minutes must be a number"), err());
        assertEquals(2, run("run", "--workload", "nope.yaml"));
        assertTrue(err().contains("--workload: no such file"), err());
        assertEquals(2, run("run", "--wokload", "x"));
        assertTrue(err().contains("unknown option --wokload"), err());
        assertEquals(2, run("run", "--workload", "workloads/smoke.yaml", "--driver", "drivers/kafka-latency.yaml",
                "--bootstrap", "localhost"));
        assertTrue(err().contains("--bootstrap must be HOST:PORT"), err());
    }

    @Test
    void run_badWorkloadFile_namesTheField(@TempDir Path dir) throws IOException {
        Path w = dir.resolve("w.yaml");
        Files.writeString(w, Files.readString(Path.of("workloads/smoke.yaml")).replace("topics: 1", "topics: 0"));
        assertEquals(2, run("run", "--workload", w.toString(), "--driver", "drivers/kafka-latency.yaml",
                "--bootstrap", "127.0.0.1:1"));
        assertTrue(err().contains("w.yaml") && err().contains("'topics' must be at least 1"), err());
    }
}
