package io.aloft.omb;

import io.aloft.omb.runner.RunResult;
import io.aloft.omb.runner.RunnerOptions;
import io.aloft.omb.runner.WorkloadRunner;
import io.aloft.omb.workload.ConfigFileException;
import io.aloft.omb.workload.DriverConfig;
import io.aloft.omb.workload.Workload;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code run}: one workload against one bootstrap address; progress lines while it runs, then the
 * result table on stdout and, with {@code --json}, the result as JSON. Stateless.
 */
public final class RunCommand {
    private static final Logger log = LoggerFactory.getLogger(RunCommand.class);

    static final String USAGE = """
            run --workload FILE --driver FILE --bootstrap HOST:PORT [--json FILE]
                [--duration-minutes X] [--warmup-minutes Y] [--producer-rate MSGS_PER_S]
                [--report-interval-seconds N] [--max-clients N]
              Runs an OpenMessaging Benchmark workload with kafka-clients. The overrides replace the
              workload's testDurationMinutes, warmupDurationMinutes and producerRate (0 = unlimited).
              --max-clients caps producer and consumer clients each (default 16; logical producers
              and consumers beyond it share clients).""";

    private static final Set<String> OPTIONS = Set.of("--workload", "--driver", "--bootstrap", "--json",
            "--duration-minutes", "--warmup-minutes", "--producer-rate", "--report-interval-seconds", "--max-clients");

    private RunCommand() {
    }

    /**
     * Runs the command; returns the exit code: 0 done, 1 the run failed, 2 bad arguments or
     * files, 130 stopped (Ctrl-C or interrupt).
     */
    public static int execute(String[] args, PrintStream out, PrintStream err) throws UsageException {
        CommandLine cl = CommandLine.parse(args, OPTIONS);
        Path workloadFile = cl.existingFile("--workload");
        Path driverFile = cl.existingFile("--driver");
        String bootstrap = cl.required("--bootstrap");
        if (!bootstrap.matches("[^\\s:,]+:\\d+(,[^\\s:,]+:\\d+)*")) {
            throw new UsageException("option --bootstrap must be HOST:PORT[,HOST:PORT...], got '" + bootstrap + "'");
        }
        Workload workload;
        DriverConfig driver;
        RunnerOptions options;
        try {
            workload = Workload.load(workloadFile);
            driver = DriverConfig.load(driverFile);
            workload = workload.withDurations(
                    cl.number("--duration-minutes", 0.001, workload.testDurationMinutes()),
                    cl.number("--warmup-minutes", 0, workload.warmupDurationMinutes()));
            workload = workload.withProducerRate(cl.integer("--producer-rate", 0, workload.producerRate()));
            options = RunnerOptions.DEFAULTS
                    .withReportInterval(Duration.ofMillis((long) (1000 * cl.number("--report-interval-seconds", 0.1,
                            RunnerOptions.REPORT_INTERVAL_DEFAULT.toMillis() / 1000.0))))
                    .withMaxClients(cl.integer("--max-clients", 1, RunnerOptions.MAX_CLIENTS_DEFAULT));
        } catch (ConfigFileException e) {
            err.println("error: " + e.getMessage());
            return 2;
        }
        Path json = cl.has("--json") ? Path.of(cl.required("--json")) : null;

        WorkloadRunner runner = new WorkloadRunner(workload, driver, bootstrap, out, options);
        Thread hook = new Thread(() -> {
            runner.stop();
            try {
                runner.awaitFinished(Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "omb-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            RunResult result = runner.run();
            out.println();
            out.print(result.toTable());
            if (json != null) {
                writeJson(json, result);
                out.println("result written to " + json);
            }
            return 0;
        } catch (InterruptedException e) {
            err.println("run stopped before its end; no result");
            return 130;
        } catch (ConfigFileException e) {
            err.println("error: " + e.getMessage());
            return 2;
        } catch (Exception e) {
            log.debug("run failed", e);
            err.println("run failed: " + e);
            return 1;
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is already shutting down; the hook is running
            }
        }
    }

    private static void writeJson(Path file, RunResult result) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, result.toJson() + System.lineSeparator(), StandardCharsets.UTF_8);
    }
}
