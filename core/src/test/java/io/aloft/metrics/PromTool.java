package io.aloft.metrics;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Prometheus' own {@code promtool}, built by {@code scripts/promtool.sh} (which {@code scripts/test.sh}
 * runs first): {@code promtool check metrics} parses an exposition with Prometheus' parser and
 * lints it (names, units, help, counter suffixes). Found at {@code -Daloft.promtool} or in Aloft's
 * cache; a test fails naming the script when it is missing.
 */
public final class PromTool {
    /** Keep in step with scripts/promtool.sh. */
    static final String VERSION = "v0.316.0";

    /** What {@code promtool check metrics} said. */
    public record Result(int exitCode, String output) {
    }

    private PromTool() {
    }

    public static Path binary() {
        String configured = System.getProperty("aloft.promtool");
        Path path = configured != null ? Path.of(configured)
                : Path.of(System.getenv().getOrDefault("ALOFT_CACHE_DIR",
                        System.getProperty("user.home") + "/.cache/aloft"), "bin", "promtool-" + VERSION);
        if (!Files.isExecutable(path)) {
            throw new IllegalStateException("promtool is not at " + path + "; run `bash scripts/promtool.sh` "
                    + "(scripts/test.sh does) or set -Daloft.promtool");
        }
        return path;
    }

    /** Runs {@code promtool check metrics} on {@code exposition} (its standard input). */
    public static Result checkMetrics(String exposition) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(binary().toString(), "check", "metrics").redirectErrorStream(true).start();
        try (var in = p.getOutputStream()) {
            in.write(exposition.getBytes(StandardCharsets.UTF_8));
        }
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("promtool did not finish within 60 s");
        }
        return new Result(p.exitValue(), output);
    }
}
