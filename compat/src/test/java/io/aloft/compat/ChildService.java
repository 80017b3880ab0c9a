package io.aloft.compat;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A long-running child process the harness talks to while it runs (a Kafka Connect worker, a Kafka
 * Streams application), where {@link ClientRun} runs a client to completion. Its stdout and stderr
 * go to one file, which the harness polls for lines and a failure message quotes; its stdin stays
 * open for commands. Every child has a hard time limit on its whole life: a watchdog kills it and
 * its descendants then, so a child that hangs fails its test within that limit instead of stalling
 * the build; a JVM shutdown hook kills whatever is still running when the test JVM exits.
 *
 * <p>Thread-safe: the watchdog thread may kill the process while the test thread uses it; the
 * state they share is the {@link Process} itself and a volatile flag, and a kill at the limit holds
 * this object's monitor until it is complete.
 */
final class ChildService implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ChildService.class);
    /** Output quoted in a failure message: the end is where the failure is. */
    private static final int QUOTED_LINES = 150;
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();
    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "compat-child-watchdog");
        t.setDaemon(true);
        return t;
    });

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(ChildService::kill),
                "compat-child-reaper"));
    }

    private final String name;
    private final List<String> command;
    private final Path output;
    private final Duration limit;
    private final Process process;
    private final OutputStream stdin;
    private final ScheduledFuture<?> watchdog;
    private final long startNanos = System.nanoTime();
    private volatile boolean killedAtLimit;

    private ChildService(String name, List<String> command, Path output, Duration limit, Process process) {
        this.name = name;
        this.command = List.copyOf(command);
        this.output = output;
        this.limit = limit;
        this.process = process;
        this.stdin = process.getOutputStream();
        this.watchdog = WATCHDOG.schedule(this::killAtLimit, limit.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Starts {@code command} in {@code workDir}, output to {@code <workDir>/<name>.log} (replaced if
     * it exists), killed with its descendants if still running after {@code limit}.
     */
    static ChildService start(String name, List<String> command, Map<String, String> env, Path workDir,
            Duration limit) throws IOException {
        Files.createDirectories(workDir);
        Path output = workDir.resolve(name + ".log");
        ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true)
                .redirectOutput(output.toFile());
        builder.environment().putAll(env);
        Process process = builder.start();
        LIVE.add(process);
        log.info("{}: started (pid {}), hard limit {} s, output {}", name, process.pid(), limit.toSeconds(), output);
        return new ChildService(name, command, output, limit, process);
    }

    /** Writes one line to the child's stdin. */
    void send(String line) throws IOException {
        stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        stdin.flush();
    }

    /**
     * Polls the output for the first line at or after line {@code fromLine} (0-based) that matches,
     * until {@code timeout} passes or the child exits.
     *
     * @throws AssertionError saying what was awaited and how the child is (its output is in
     *     {@link #describe()}, which the scenario's report quotes)
     */
    String awaitLine(String what, int fromLine, Predicate<String> match, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            boolean exited = !process.isAlive(); // read before the output, so nothing it printed last is missed
            List<String> lines = lines();
            for (int i = fromLine; i < lines.size(); i++) {
                if (match.test(lines.get(i))) {
                    return lines.get(i);
                }
            }
            if (exited || System.nanoTime() > deadline) {
                awaitWatchdog();
                throw new AssertionError(name + ": no " + what + (exited ? " before it ended" : " within "
                        + timeout.toSeconds() + " s") + "; it " + status() + " (output: " + output + ")");
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    /** The complete lines printed so far. */
    List<String> lines() {
        try {
            String text = Files.readString(output, StandardCharsets.UTF_8);
            int end = text.lastIndexOf('\n');
            return end < 0 ? List.of() : text.substring(0, end).lines().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Asks the child to stop with SIGTERM unless it is already on its way out, waits up to
     * {@code grace} for it to exit, then kills it and its descendants.
     *
     * @return its exit status, or empty if it had to be killed here or at its hard limit
     */
    Optional<Integer> stop(Duration grace) throws InterruptedException {
        try {
            if (process.isAlive()) {
                process.destroy();
            }
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("{} (pid {}) did not exit within {} s of SIGTERM; killing it", name, process.pid(),
                        grace.toSeconds());
                kill(process);
                return Optional.empty();
            }
            return killedAtLimit ? Optional.empty() : Optional.of(process.exitValue());
        } finally {
            release();
        }
    }

    /**
     * Waits up to {@code timeout} for the child to exit on its own (after a command asked it to).
     *
     * @return its exit status, or empty if it was still running (it is then killed)
     */
    Optional<Integer> awaitExit(Duration timeout) throws InterruptedException {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                kill(process);
                return Optional.empty();
            }
            return killedAtLimit ? Optional.empty() : Optional.of(process.exitValue());
        } finally {
            release();
        }
    }

    /** Kills the child if it still runs. Idempotent. */
    @Override
    public void close() {
        kill(process);
        release();
    }

    /** How the child ended (or that it runs), the command, and the end of its output. */
    String describe() {
        String how = status();
        List<String> lines;
        try {
            lines = Files.readString(output, StandardCharsets.UTF_8).lines().toList();
        } catch (IOException e) {
            lines = List.of("(cannot read " + output + ": " + e + ")");
        }
        String quoted = lines.size() <= QUOTED_LINES ? String.join("\n", lines)
                : "[... " + (lines.size() - QUOTED_LINES) + " earlier lines in " + output + "]\n"
                        + String.join("\n", lines.subList(lines.size() - QUOTED_LINES, lines.size()));
        return name + " " + how + ".\ncommand: " + String.join(" ", command) + "\noutput (" + output + "):\n" + quoted;
    }

    /** Returns once a kill at the hard limit that is under way has finished, descendants included. */
    private synchronized void awaitWatchdog() {
        // Entering the monitor is the wait: killAtLimit holds it until everything it killed is gone.
    }

    private synchronized void killAtLimit() {
        if (process.isAlive()) {
            killedAtLimit = true;
            log.warn("{} (pid {}) reached its hard time limit of {} s; killing it", name, process.pid(),
                    limit.toSeconds());
            kill(process);
        }
    }

    /** "is still running after N ms", "exited with status S after N ms", "was killed at its hard time limit ...". */
    String status() {
        String how = process.isAlive() ? "is still running"
                : killedAtLimit ? "was killed at its hard time limit of " + limit.toSeconds() + " s (it hung)"
                : "exited with status " + process.exitValue();
        return how + " after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos) + " ms";
    }

    private void release() {
        watchdog.cancel(false);
        LIVE.remove(process);
        try {
            stdin.close();
        } catch (IOException e) {
            // The child is gone and its end of the pipe with it: nothing is left to flush.
        }
    }

    /** SIGKILL to the process and everything it started, waiting briefly for each to be gone. */
    private static void kill(Process process) {
        List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
        all.add(process.toHandle());
        all.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle h : all) {
            try {
                h.onExit().get(10, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                log.warn("process {} did not exit within 10 s after SIGKILL", h.pid());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
