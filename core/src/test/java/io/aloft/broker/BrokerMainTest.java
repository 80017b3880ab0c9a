package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.TestQuorum;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/** The broker process refuses a bad setting with exit status 2 and a message naming the key. */
class BrokerMainTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "listeners=PLAINTEXT://127.0.0.1                        | listeners",
        "num.partitions=zero                                     | num.partitions",
        "controller.quorum.voters=1@127.0.0.1                    | controller.quorum.voters",
        "log.retention.hours=forever                             | log.retention.hours",
        "message.max.bytes=-5                                    | message.max.bytes",
        "group.min.session.timeout.ms=9000000                    | group.min.session.timeout.ms",
        "wal.capacity.bytes=12345                                | wal.capacity.bytes",
        "s3.log.cache.size.bytes=lots                            | s3.log.cache.size.bytes",
    })
    void badSettingExitsWithTheKeyNamed(String setting, String key) throws Exception {
        Path props = dir.resolve("server.properties");
        Files.writeString(props, "node.id=1\nlisteners=PLAINTEXT://127.0.0.1:" + TestQuorum.freePort()
                + "\ncontroller.quorum.voters=1@127.0.0.1:" + TestQuorum.freePort() + "\naloft.data.dir="
                + dir.resolve("data") + "\n" + setting.trim() + "\n");
        Path out = dir.resolve("out.txt");
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", System.getProperty("java.class.path"), BrokerMain.class.getName(), props.toString()))
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the broker did not exit on a bad setting: " + setting);
        }
        String output = Files.readString(out, StandardCharsets.UTF_8);
        assertEquals(2, p.exitValue(), output);
        assertTrue(output.contains(key.trim()), "the message names " + key + ": " + output);
    }
}
