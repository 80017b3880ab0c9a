package io.aloft.compat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of a client program as a child process with a hard time limit: its stdout and stderr go to
 * one file, or two when the caller parses stdout, which a failure message quotes. A child still running at the limit is killed with its
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
    private final Path errors; // null: stderr went to output
    private final Duration limit;
    private final Integer exitStatus; // null: killed at the limit
    private final Duration elapsed;

    private ClientRun(String name, List<String> command, Path output, Path errors, Duration limit,
            Integer exitStatus, Duration elapsed) {
        this.name = name;
        this.command = List.copyOf(command);
        this.output = output;
        this.errors = errors;
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
        return run(name, command, env, workDir, limit, false);
    }

    /**
     * As {@link #run(String, List, Map, Path, Duration)}; with {@code separateStderr} stderr goes to
     * {@code <name>.stderr.log}, so that {@link #output()} is stdout alone, whole lines only.
     */
    static ClientRun run(String name, List<String> command, Map<String, String> env, Path workDir, Duration limit,
            boolean separateStderr) throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        Path output = workDir.resolve(name + ".log");
        Path errors = separateStderr ? workDir.resolve(name + ".stderr.log") : null;
        ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile())
                .redirectOutput(output.toFile()).redirectInput(ProcessBuilder.Redirect.from(nullDevice()));
        if (errors == null) {
            builder.redirectErrorStream(true);
        } else {
            builder.redirectError(errors.toFile());
        }
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
                List<ProcessHandle> descendants = process.descendants().toList();
                descendants.forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                for (ProcessHandle d : descendants) {
                    awaitExit(d);
                }
            }
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        ClientRun run = new ClientRun(name, command, output, errors, limit, status, elapsed);
        log.info("{}: {} in {} ms", name, status == null ? "killed at the time limit" : "exit status " + status,
                elapsed.toMillis());
        return run;
    }

    /** Waits (briefly) for a killed descendant to be gone, so nothing of the run outlives it. */
    private static void awaitExit(ProcessHandle handle) throws InterruptedException {
        try {
            handle.onExit().get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            log.warn("process {} of a killed client did not exit within 10 s after SIGKILL", handle.pid());
        }
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

    /** What the client printed (stdout alone when stderr was separate). */
    String output() {
        return read(output);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
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
        throw new AssertionError(succeeded() ? name + " never printed its OK line. " + describe() : describe());
    }

    /** How the run ended, the command, and the output (its last lines when long). */
    String describe() {
        String how = exitStatus == null
                ? "was killed after the hard time limit of " + limit.toSeconds() + " s (it hung)"
                : "exited with status " + exitStatus + (exitStatus == 2 ? " (its own time limit)" : "");
        String text = name + " " + how + " after " + elapsed.toMillis() + " ms.\ncommand: " + String.join(" ", command)
                + "\noutput (" + output + "):\n" + quote(output);
        return errors == null ? text : text + "\nstderr (" + errors + "):\n" + quote(errors);
    }

    private static String quote(Path file) {
        List<String> lines = read(file).lines().toList();
        return lines.size() <= QUOTED_LINES ? String.join("\n", lines)
                : "[... " + (lines.size() - QUOTED_LINES) + " earlier lines in " + file + "]\n"
                        + String.join("\n", lines.subList(lines.size() - QUOTED_LINES, lines.size()));
    }
}
