package io.aloft.omb.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code compare --security} end to end: Apache Kafka and Aloft started as child processes with a
 * secured client listener and the same generated certificate, a few seconds of the smoke workload
 * against each through the real runner, whose clients connect with the protocol's settings. A run
 * can only publish if the handshake (TLS, SASL) succeeded, so non-zero rates for both systems show
 * that both listeners speak the protocol; checks what was measured, never how fast.
 */
@Timeout(300)
class CompareSecurityRunTest {
    /** What the benchmark of issue 20 measures: TLS and SASL/PLAIN together. */
    private static final String PROTOCOL = "sasl_ssl";
    private static final String DESCRIBED = ", clients over SASL_SSL \\(SASL/PLAIN, TLS with ";

    @TempDir
    Path dir;

    @Test
    void compare_security_bothSystemsRunOverTheSecuredListener() throws Exception {
        String report = compare(PROTOCOL);
        assertTrue(report.contains("- Kafka: Apache Kafka ") && report.contains("- Aloft: Aloft ("), report);
        for (String system : new String[] {"Kafka", "Aloft"}) {
            assertTrue(Pattern.compile("- " + system + ": .*" + DESCRIBED).matcher(report).find(),
                    system + " described as reached over " + PROTOCOL + ":\n" + report);
        }
        // | publishRateMsgs | <kafka> | <aloft> | <ratio> |: both measured, so both carried messages.
        Matcher rates = Pattern.compile("\\| publishRateMsgs \\| ([0-9.]+) \\| ([0-9.]+) \\| ([0-9.]+) \\|")
                .matcher(report);
        assertTrue(rates.find(), report);
        assertTrue(Double.parseDouble(rates.group(1)) > 0 && Double.parseDouble(rates.group(2)) > 0, rates.group());
        assertTrue(!report.contains("Failed runs"), report);
    }

    /** One repeat of the smoke workload (a few seconds) on Kafka and Aloft; returns the report. */
    private String compare(String security) throws Exception {
        Path workloads = Path.of("workloads").toAbsolutePath();
        Path drivers = Path.of("drivers").toAbsolutePath();
        Files.writeString(dir.resolve("plan.yaml"), "steps:\n"
                + "  - name: smoke\n"
                + "    workload: " + workloads.resolve("smoke.yaml") + "\n"
                + "    driver: " + drivers.resolve("kafka-latency.yaml") + "\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream progress = new PrintStream(err, true, StandardCharsets.UTF_8);
        int code = CompareCommand.run(new String[] {"--plan", dir.resolve("plan.yaml").toString(),
            "--out", dir.resolve("out").toString(), "--dir", dir.toString(), "--repeats", "1", "--heap", "512m",
            "--warmup-minutes", "0", "--duration-minutes", "0.05", "--run-timeout", "2", "--security", security},
                null, new RunnerExecutor(progress), new PrintStream(out, true, StandardCharsets.UTF_8), progress);
        String report = out.toString(StandardCharsets.UTF_8);
        System.out.println(report);
        assertEquals(0, code, "exit status; stderr:\n" + err.toString(StandardCharsets.UTF_8) + "\nreport:\n" + report);
        try (var left = Files.list(dir)) {
            assertTrue(left.noneMatch(p -> p.getFileName().toString().startsWith("omb-certificates-")),
                    "the certificates are deleted after the run");
        }
        return report;
    }
}
