package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.server.ControllerMain;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The stand-alone voter process refuses bad settings with a message naming the key. */
class ControllerMainTest {
    @TempDir
    Path dir;

    private record Outcome(int exitCode, String output) {
    }

    private Outcome run(String properties) throws Exception {
        Path file = dir.resolve("controller.properties");
        Files.writeString(file, properties);
        Path out = dir.resolve("out.txt");
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), ControllerMain.class.getName(), file.toString()))
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("ControllerMain did not exit");
        }
        return new Outcome(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    }

    @Test
    void malformedVotersNameTheKey() throws Exception {
        Outcome o = run("node.id=1\ncontroller.quorum.voters=1@127.0.0.1\nmetadata.log.dir=" + dir.resolve("m") + "\n");
        assertEquals(2, o.exitCode(), o.output());
        assertTrue(o.output().contains("controller.quorum.voters"), o.output());
    }

    @Test
    void nodeThatIsNotAVoterIsRefused() throws Exception {
        Outcome o = run("node.id=7\ncontroller.quorum.voters=1@127.0.0.1:" + TestQuorum.freePort()
                + "\nmetadata.log.dir=" + dir.resolve("m") + "\n");
        assertEquals(2, o.exitCode(), o.output());
        assertTrue(o.output().contains("node.id"), o.output());
    }

    @Test
    void metadataDirUnderAFile_refusedBeforeStarting_typoWarned() throws Exception {
        Path file = Files.writeString(dir.resolve("plain"), "x");
        Outcome o = run("node.id=1\ncontroller.quorum.voters=1@127.0.0.1:" + TestQuorum.freePort()
                + "\nmetadata.log.dir=" + file.resolve("m") + "\ncontroller.snapshot.interval.entrys=500\n");
        assertEquals(2, o.exitCode(), o.output());
        assertTrue(o.output().contains("metadata.log.dir: cannot create directory"), o.output());
        assertTrue(o.output().contains("did you mean 'controller.snapshot.interval.entries'?"), o.output());
    }

    @Test
    void nonNumericTimeoutNamesTheKey() throws Exception {
        Outcome o = run("broker.session.timeout.ms=soon\n");
        assertEquals(2, o.exitCode(), o.output());
        assertTrue(o.output().contains("broker.session.timeout.ms"), o.output());
    }

    @Test
    void dedicatedVoter_servesReadinessAndQuorumMeters() throws Exception {
        int metricsPort = TestQuorum.freePort();
        Path file = dir.resolve("controller.properties");
        Files.writeString(file, "node.id=1\ncontroller.quorum.voters=1@127.0.0.1:" + TestQuorum.freePort()
                + "\nmetadata.log.dir=" + dir.resolve("m") + "\nmetrics.listener=http://127.0.0.1:" + metricsPort + "\n");
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), ControllerMain.class.getName(), file.toString()))
                .redirectErrorStream(true).redirectOutput(dir.resolve("out.txt").toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            String metrics = "";
            while (System.nanoTime() < deadline
                    && !metrics.contains("kafka_controller_kafkacontroller_activecontrollercount 1.0")) {
                TimeUnit.MILLISECONDS.sleep(200);
                try {
                    metrics = io.aloft.metrics.Http.get(metricsPort, "/metrics").body();
                } catch (java.io.IOException notYet) {
                    // the endpoint is not bound yet
                }
            }
            assertTrue(metrics.contains("kafka_controller_kafkacontroller_activecontrollercount 1.0"),
                    "a lone voter becomes the active controller; output: "
                            + Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8));
            assertEquals(200, io.aloft.metrics.Http.get(metricsPort, "/readyz").statusCode());
            assertEquals(200, io.aloft.metrics.Http.get(metricsPort, "/healthz").statusCode());
        } finally {
            p.destroy(); // SIGTERM: the voter's shutdown hook closes it and the endpoint
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }
}
