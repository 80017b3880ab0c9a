package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.TestQuorum;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The broker process refuses a bad setting with exit status 2 and one line on stderr naming the
 * key, before it writes anything to disk, and warns about keys it does not read.
 */
class BrokerMainTest {
    @TempDir
    Path dir;

    private record Outcome(int exitCode, String stdout, String stderr) {
    }

    /** Runs BrokerMain on a valid single-node file plus {@code settings}, with data under {@code dataDir}. */
    private Outcome run(Path dataDir, String settings) throws Exception {
        Path props = dir.resolve("server.properties");
        Files.writeString(props, "node.id=1\nlisteners=PLAINTEXT://127.0.0.1:" + TestQuorum.freePort()
                + "\ncontroller.quorum.voters=1@127.0.0.1:" + TestQuorum.freePort() + "\naloft.data.dir="
                + dataDir + "\n" + settings + "\n");
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", System.getProperty("java.class.path"), BrokerMain.class.getName(), props.toString()))
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the broker did not exit on a bad setting: " + settings);
        }
        return new Outcome(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    /** Exit status 2, and stderr is one line naming the key (and what follows it, when given). */
    private static void assertRefused(Outcome o, String key, String... mentions) {
        String all = o.stdout() + o.stderr();
        assertEquals(2, o.exitCode(), all);
        List<String> lines = o.stderr().lines().toList();
        assertEquals(1, lines.size(), "one line on stderr: " + o.stderr());
        assertTrue(lines.get(0).startsWith("Invalid configuration: " + key + ": "), lines.get(0));
        for (String m : mentions) {
            assertTrue(lines.get(0).contains(m), "'" + m + "' in: " + lines.get(0));
        }
    }

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
        "group.coordinator.threads=0                             | group.coordinator.threads",
    })
    void badSettingExitsWithTheKeyNamed_beforeWritingAnything(String setting, String key) throws Exception {
        Path data = dir.resolve("data");
        Outcome o = run(data, setting);
        assertRefused(o, key, setting.substring(setting.indexOf('=') + 1));
        assertFalse(Files.exists(data), "nothing is created for a bad setting");
    }

    @Test
    void saslInterBrokerListener_withoutTheBrokersCredentials_orWithAnUnservedMechanism_refused() throws Exception {
        String key = "listener.name.internal.plain.sasl.jaas.config";
        String listener = "listeners=INTERNAL://127.0.0.1:" + TestQuorum.freePort()
                + "\nlistener.security.protocol.map=INTERNAL:SASL_PLAINTEXT\n";
        Outcome noCredentials = run(dir.resolve("data"), listener + key
                + "=org.apache.kafka.common.security.plain.PlainLoginModule required user_broker=\"s3cret\";");
        assertRefused(noCredentials, key, "username", "password");
        assertFalse(noCredentials.stderr().contains("s3cret"), noCredentials.stderr());
        Outcome scram = run(dir.resolve("data"), listener + key
                + "=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"broker\" "
                + "password=\"s3cret\" user_broker=\"s3cret\";\nsasl.mechanism.inter.broker.protocol=SCRAM-SHA-512");
        assertRefused(scram, "sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512");
    }

    @Test
    void badObjectStorageUrl_refusedBeforeTheWalOrTheMetadataLogExist() throws Exception {
        Path data = dir.resolve("data");
        Outcome o = run(data, "s3.url=gs://my-bucket/objects");
        assertRefused(o, "s3.url", "gs://my-bucket/objects", "unsupported scheme 'gs'");
        assertFalse(Files.exists(data.resolve("wal")), "no WAL file");
        assertFalse(Files.exists(data.resolve("metadata")), "no metadata log");
        assertFalse(Files.exists(data), "not even the data dir");

        o = run(data, "s3.url=s3://bucket?endpoint=http://127.0.0.1:1&colour=blue");
        assertRefused(o, "s3.url", "unknown parameter 'colour'");
        assertFalse(Files.exists(data));
    }

    @Test
    void dataDirUnderARegularFile_refusedNamingTheKey() throws Exception {
        Path file = Files.writeString(dir.resolve("not-a-dir"), "x");
        Outcome o = run(file.resolve("data"), "");
        assertRefused(o, "aloft.data.dir", file.toString(), "is not a directory");
    }

    @Test
    void walDirectoryMissing_refusedNamingTheKey() throws Exception {
        Path data = dir.resolve("data");
        Outcome o = run(data, "wal.path=" + dir.resolve("no/such/dir/wal"));
        assertRefused(o, "wal.path", dir.resolve("no/such/dir").toString(), "does not exist");
        assertFalse(Files.exists(data));
    }

    @Test
    void typoedKey_warnedWithTheKeyItResembles() throws Exception {
        // The typo leaves the log cache at its 512 MiB default, above this small WAL: the warning
        // says why the cross-key check that follows fails.
        Outcome o = run(dir.resolve("data"), "wal.capacity.bytes=67108864\ns3.log.cache.size=8388608");
        assertTrue((o.stdout() + o.stderr()).contains(
                "Unknown configuration key 's3.log.cache.size' is ignored; did you mean 's3.log.cache.size.bytes'?"),
                o.stdout() + o.stderr());
        assertRefused(o, "s3.log.cache.size.bytes", "536870912", "wal.capacity.bytes=67108864");
    }
}
