package io.aloft.compat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of a client program as a child process with a hard time limit: its stdout and stderr go to
 * one file, which a failure message quotes. A child still running at the limit is killed with its
 * descendants, so a client that hangs fails its test within seconds instead of stalling the build.
 *
 * <p>Immutable once {@link #run} returns.
 */
final class ClientRun {
    private static final Logger log = LoggerFactory.getLogger(ClientRun.class);
    /** Output quoted in a failure message: the end is where the failure is, the start says what ran. */
    private static final int QUOTED_LINES = 150;

    private final String name;
    private final List<String> command;
    private final Path output;
    private final Duration limit;
    private final Integer exitStatus; // null: killed at the limit
    private final Duration elapsed;

    private ClientRun(String name, List<String> command, Path output, Duration limit, Integer exitStatus,
            Duration elapsed) {
        this.name = name;
        this.command = List.copyOf(command);
        this.output = output;
        this.limit = limit;
        this.exitStatus = exitStatus;
        this.elapsed = elapsed;
    }

    /**
     * Runs {@code command} in {@code workDir} to completion or until {@code limit} passes, output to
     * {@code <workDir>/<name>.log}.
     */
    static ClientRun run(String name, List<String> command, Map<String, String> env, Path workDir, Duration limit)
            throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        Path output = workDir.resolve(name + ".log");
        ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true)
                .redirectOutput(output.toFile()).redirectInput(ProcessBuilder.Redirect.from(nullDevice()));
        builder.environment().putAll(env);
        long start = System.nanoTime();
        Process process = builder.start();
        Integer status = null;
        try {
            if (process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                status = process.exitValue();
            }
        } finally {
            if (process.isAlive()) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        ClientRun run = new ClientRun(name, command, output, limit, status, elapsed);
        log.info("{}: {} in {} ms", name, status == null ? "killed at the time limit" : "exit status " + status,
                elapsed.toMillis());
        return run;
    }

    private static java.io.File nullDevice() {
        return new java.io.File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
    }

    boolean succeeded() {
        return exitStatus != null && exitStatus == 0;
    }

    boolean timedOut() {
        return exitStatus == null;
    }

    Duration elapsed() {
        return elapsed;
    }

    String output() {
        try {
            return Files.readString(output, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Throws {@link AssertionError} unless the client exited with status 0 and printed its final
     * "OK" line; the message says how it ended and quotes its output.
     */
    void assertPassed() {
        if (succeeded() && output().lines().anyMatch(l -> l.startsWith("OK "))) {
            return;
        }
        throw new AssertionError(describe());
    }

    /** How the run ended, the command, and the output (its last lines when long). */
    String describe() {
        String how = exitStatus == null
                ? "was killed after the hard time limit of " + limit.toSeconds() + " s (it hung)"
                : exitStatus == 0 ? "exited with status 0 but never printed its OK line"
                : "exited with status " + exitStatus + (exitStatus == 2 ? " (its own time limit)" : "");
        List<String> lines = output().lines().toList();
        String quoted = lines.size() <= QUOTED_LINES ? String.join("\n", lines)
                : "[... " + (lines.size() - QUOTED_LINES) + " earlier lines in " + output + "]\n"
                        + String.join("\n", lines.subList(lines.size() - QUOTED_LINES, lines.size()));
        return name + " " + how + " after " + elapsed.toMillis() + " ms.\ncommand: " + String.join(" ", command)
                + "\noutput (" + output + "):\n" + quoted;
    }
}
