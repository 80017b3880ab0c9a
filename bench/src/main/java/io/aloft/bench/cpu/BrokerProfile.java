package io.aloft.bench.cpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Optional Java Flight Recorder recordings of the broker, one per measured phase ({@code --jfr DIR}):
 * started and stopped with {@code jcmd} from the JDK that runs this benchmark (the same one the child
 * broker runs on), with JFR's {@code profile} settings (a CPU sample every 10 ms). A recording costs
 * the broker a little CPU, so a profiled run's figures are not comparable with an unprofiled one's.
 * The files stay in DIR; they are for reading with {@code jfr print --events jdk.ExecutionSample}.
 *
 * <p>Confined to the benchmark's thread.
 */
final class BrokerProfile {
    private final Path dir;
    private final Path jcmd;

    /** @param dir where recordings go, or null for none */
    BrokerProfile(Path dir) throws IOException {
        this.dir = dir;
        this.jcmd = Path.of(ProcessHandle.current().info().command().orElse("java")).resolveSibling("jcmd");
        if (dir != null) {
            Files.createDirectories(dir);
        }
    }

    /** Starts a recording named {@code name} of process {@code pid}, if profiling is on. */
    void start(long pid, String name) throws IOException, InterruptedException {
        if (dir != null) {
            jcmd(pid, "JFR.start", "name=" + name, "settings=profile",
                    "filename=" + dir.resolve(name + ".jfr").toAbsolutePath());
        }
    }

    /** Stops recording {@code name} and writes its file, if profiling is on. */
    void stop(long pid, String name) throws IOException, InterruptedException {
        if (dir != null) {
            jcmd(pid, "JFR.stop", "name=" + name);
        }
    }

    private void jcmd(long pid, String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of(jcmd.toString(), Long.toString(pid)));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroy();
            throw new IOException("jcmd " + String.join(" ", args) + " failed for pid " + pid);
        }
    }
}
