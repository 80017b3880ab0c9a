package io.aloft.omb.compare;

import io.aloft.servers.AloftServer;
import io.aloft.servers.ApacheKafkaServer;
import io.aloft.servers.ClientSecurity;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * {@code aloft-omb compare}: Aloft against Apache Kafka on this machine. Each step of a compare plan
 * (an OMB workload file with its driver file) runs on every system, each started fresh as a child
 * process with the same heap, alternating the order and repeating; the report gives each system's
 * median per figure and the ratio Aloft/Kafka, with the machine it ran on.
 *
 * <p>Entry point: {@link #run(String[])} returns the exit status: 0 when every run finished, 1 when
 * some run failed (the report still lists the rest) or the results cannot be written, 2 for bad
 * arguments or a bad plan (the message names the option). Progress goes to stderr, the report to
 * stdout.
 */
public final class CompareCommand {
    static final String USAGE = """
            usage: aloft-omb compare [options]

            Starts Apache Kafka and Aloft as child processes on 127.0.0.1, a fresh broker for every run,
            runs each step of a compare plan (an OMB workload with its driver) against each, alternating
            the order and repeating, and prints a Markdown table per step: each system's median and
            Aloft/Kafka. JSON and Markdown copies go to --out.

              --plan FILE        workload/driver pairs to run (default openmessaging-bench/compare-plan.yaml)
              --workloads A,B    only these steps, by step name or workload file name (default: --all)
              --all              every step of the plan
              --repeats N        runs per system and step, alternating the order (default 2)
              --heap SIZE        -Xms and -Xmx of every broker, e.g. 3g (default 3g)
              --systems LIST     from kafka, kafka-fsync, aloft, aloft-s3 (default kafka,aloft)
              --kafka-fsync      add Kafka flushing every write (log.flush.interval.messages=1)
              --aloft-s3         add Aloft with its objects on a local versitygw
              --quick            shorten every run (the plan's quickOverrides): a smoke check
              --duration-minutes X, --warmup-minutes Y
                                 replace every step's testDurationMinutes / warmupDurationMinutes
              --out DIR          where compare-<time>.json/.md go (default openmessaging-bench/target/omb-compare)
              --dir DIR          where brokers keep their data: the disk under test (default: the temp dir)
              --kafka-libs DIR   Apache Kafka's jars (default kafka-dist/target/kafka-libs)
              --security PROTO   how the clients connect to every broker: plaintext (default), ssl,
                                 sasl_plaintext or sasl_ssl. Other than plaintext, each broker gets a
                                 second listener CLIENT with that protocol (TLS: one CA and server
                                 certificate made for the run with keytool, the same for all systems;
                                 SASL: PLAIN, one user); brokers and controllers stay on PLAINTEXT
              --consumers LIST   run each selected step once per consumer count (e.g. 1,4,16), as steps
                                 <step>-<n>c with consumerPerSubscription=n, plus a summary table per
                                 step (the share step's README rows)
              --run-timeout MIN  abandon a run after this many minutes (default 60)
            """;
    static final String DEFAULT_PLAN = "openmessaging-bench/compare-plan.yaml";
    static final String DEFAULT_OUT = "openmessaging-bench/target/omb-compare";
    private static final Pattern HEAP = Pattern.compile("[1-9][0-9]*[kKmMgG]?");

    /** Parsed arguments. Immutable. */
    record Options(Path plan, List<String> workloads, int repeats, String heap, List<SystemKind> systems,
            boolean quick, Path out, Path dataDir, Path kafkaLibs, Duration runTimeout,
            Map<String, String> durationOverrides, SecurityProtocol security, List<Integer> consumers) {
    }

    /** A bad argument; the message names the option. */
    static final class UsageException extends Exception {
        UsageException(String message) {
            super(message);
        }
    }

    private CompareCommand() {
    }

    /** Runs with the real brokers and workload runner; returns the exit status. */
    public static int run(String[] args) {
        return run(args, null, new RunnerExecutor(System.err), System.out, System.err);
    }

    /**
     * As {@link #run(String[])} with the runner, and optionally the brokers, supplied (tests pass
     * fakes). A null {@code servers} means child processes as the options say.
     */
    static int run(String[] args, ServerFactory servers, WorkloadExecutor executor, PrintStream out, PrintStream err) {
        Options options;
        try {
            options = parse(args);
        } catch (UsageException e) {
            err.println("compare: " + e.getMessage() + " (see --help)");
            return 2;
        }
        if (options == null) {
            out.print(USAGE);
            return 0;
        }
        if (servers == null) {
            // Checked now rather than failing every run of an hour-long comparison the same way.
            Path kafkaLibs = options.kafkaLibs();
            try {
                if (kafkaLibs == null) {
                    kafkaLibs = ApacheKafkaServer.findLibsDir();
                }
                if (options.systems().contains(SystemKind.ALOFT_S3)) {
                    AloftServer.versitygwBinary();
                }
            } catch (IOException e) {
                err.println("compare: " + (kafkaLibs == null ? "--kafka-libs" : "--aloft-s3") + ": " + e.getMessage());
                return 2;
            }
            // One CA and certificate for the whole comparison: every system presents the same one.
            try (ClientSecurity security = ClientSecurity.create(options.security(), options.dataDir())) {
                return run(options, new ChildServerFactory(options.heap(), options.dataDir(), kafkaLibs, security),
                        executor, out, err);
            } catch (IOException e) {
                err.println("compare: --security " + options.security().name + ": cannot make the certificates: "
                        + e.getMessage());
                return 1;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                err.println("compare: interrupted");
                return 1;
            }
        }
        return run(options, servers, executor, out, err);
    }

    private static int run(Options options, ServerFactory servers, WorkloadExecutor executor, PrintStream out,
            PrintStream err) {
        ComparePlan plan;
        List<ComparePlan.Step> steps;
        List<ComparePlan.Step> selected;
        ConsumerSweep sweep = options.consumers().isEmpty() ? null : new ConsumerSweep(options.consumers());
        try {
            plan = ComparePlan.load(options.plan());
            selected = select(plan, options.workloads());
            steps = sweep == null ? selected : sweep.expand(selected);
        } catch (IOException | IllegalArgumentException e) {
            err.println("compare: --plan " + options.plan() + ": " + e.getMessage());
            return 2;
        } catch (UsageException e) {
            err.println("compare: " + e.getMessage() + " (see --help)");
            return 2;
        }
        CompareRun run = new CompareRun(steps, options.systems(), options.repeats(),
                options.quick() ? plan.quickOverrides() : null, options.durationOverrides(), servers, executor,
                options.runTimeout(), err);
        CompareResult result = run.run(MachineInfo.detect(options.dataDir()));
        String markdown = CompareReport.markdown(result);
        if (sweep != null) {
            markdown += sweep.markdown(result, selected);
        }
        out.print(markdown);
        out.flush();
        try {
            Files.createDirectories(options.out());
            String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
            Path json = options.out().resolve("compare-" + stamp + ".json");
            Files.writeString(json, CompareReport.json(result), StandardCharsets.UTF_8);
            Files.writeString(options.out().resolve("compare-" + stamp + ".md"), markdown, StandardCharsets.UTF_8);
            err.println("compare: wrote " + json + " and .md beside it");
        } catch (IOException e) {
            err.println("compare: cannot write results to --out " + options.out() + ": " + e);
            return 1;
        }
        return result.allRunsOk() ? 0 : 1;
    }

    /** The steps named by {@code --workloads} (all for an empty list), in plan order. */
    static List<ComparePlan.Step> select(ComparePlan plan, List<String> names) throws UsageException {
        if (names.isEmpty()) {
            return plan.steps();
        }
        Set<String> wanted = new LinkedHashSet<>(names);
        List<ComparePlan.Step> selected = new ArrayList<>();
        for (ComparePlan.Step step : plan.steps()) {
            boolean byName = wanted.remove(step.name());
            boolean byFile = wanted.remove(step.workload().getFileName().toString());
            if (byName || byFile) {
                selected.add(step);
            }
        }
        if (!wanted.isEmpty()) {
            throw new UsageException("--workloads: no step " + wanted + " in " + plan.file() + "; steps: "
                    + plan.steps().stream().map(ComparePlan.Step::name).toList());
        }
        for (ComparePlan.Step step : selected) {
            for (String needed : new String[] {step.rateFrom(), step.relativeTo()}) {
                if (needed != null && selected.stream().noneMatch(s -> s.name().equals(needed))) {
                    throw new UsageException("--workloads: step '" + step.name() + "' needs step '" + needed
                            + "' in the same run (its rate or baseline comes from there)");
                }
            }
        }
        return selected;
    }

    /** Parses arguments; null means --help was asked for. */
    static Options parse(String[] args) throws UsageException {
        Path plan = Path.of(DEFAULT_PLAN);
        List<String> workloads = List.of();
        boolean all = false;
        int repeats = 2;
        String heap = "3g";
        Set<SystemKind> systems = null;
        boolean kafkaFsync = false;
        boolean aloftS3 = false;
        boolean quick = false;
        Path out = Path.of(DEFAULT_OUT);
        Path dataDir = Path.of(System.getProperty("java.io.tmpdir"));
        Path kafkaLibs = null;
        int timeoutMinutes = 60;
        SecurityProtocol security = SecurityProtocol.PLAINTEXT;
        List<Integer> consumers = List.of();
        Map<String, String> durations = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "-h", "--help" -> {
                    return null;
                }
                case "--plan" -> plan = Path.of(value(args, ++i, arg));
                case "--workloads" -> workloads = list(value(args, ++i, arg), arg);
                case "--all" -> all = true;
                case "--repeats" -> repeats = positive(value(args, ++i, arg), arg);
                case "--heap" -> {
                    heap = value(args, ++i, arg);
                    if (!HEAP.matcher(heap).matches()) {
                        throw new UsageException("--heap: '" + heap + "' is not a JVM size such as 3g or 1536m");
                    }
                }
                case "--systems" -> {
                    systems = new LinkedHashSet<>();
                    for (String name : list(value(args, ++i, arg), arg)) {
                        try {
                            systems.add(SystemKind.parse(name));
                        } catch (IllegalArgumentException e) {
                            throw new UsageException("--systems: " + e.getMessage());
                        }
                    }
                }
                case "--kafka-fsync" -> kafkaFsync = true;
                case "--aloft-s3" -> aloftS3 = true;
                case "--quick" -> quick = true;
                case "--out" -> out = Path.of(value(args, ++i, arg));
                case "--dir" -> dataDir = Path.of(value(args, ++i, arg));
                case "--kafka-libs" -> kafkaLibs = Path.of(value(args, ++i, arg));
                case "--run-timeout" -> timeoutMinutes = positive(value(args, ++i, arg), arg);
                case "--consumers" -> {
                    Set<Integer> counts = new LinkedHashSet<>();
                    for (String n : list(value(args, ++i, arg), arg)) {
                        counts.add(positive(n, arg));
                    }
                    consumers = List.copyOf(counts);
                }
                case "--security" -> {
                    try {
                        security = ClientSecurity.parseProtocol(value(args, ++i, arg));
                    } catch (IllegalArgumentException e) {
                        throw new UsageException("--security: " + e.getMessage());
                    }
                }
                case "--duration-minutes" -> durations.put("testDurationMinutes", minutes(value(args, ++i, arg), arg));
                case "--warmup-minutes" -> durations.put("warmupDurationMinutes", minutes(value(args, ++i, arg), arg));
                default -> throw new UsageException("unknown option '" + arg + "'");
            }
        }
        if (all && !workloads.isEmpty()) {
            throw new UsageException("--all and --workloads exclude each other");
        }
        if (systems == null) {
            systems = new LinkedHashSet<>(List.of(SystemKind.KAFKA, SystemKind.ALOFT));
        }
        if (kafkaFsync) {
            systems.add(SystemKind.KAFKA_FSYNC);
        }
        if (aloftS3) {
            systems.add(SystemKind.ALOFT_S3);
        }
        List<SystemKind> ordered = orderKafkaFirst(systems);
        if (ordered.stream().noneMatch(SystemKind::isKafka) || ordered.stream().allMatch(SystemKind::isKafka)) {
            throw new UsageException("--systems: needs at least one Kafka variant (kafka, kafka-fsync) and one Aloft "
                    + "variant (aloft, aloft-s3), got " + ordered.stream().map(SystemKind::cliName).toList());
        }
        if (kafkaLibs != null && !Files.isDirectory(kafkaLibs)) {
            throw new UsageException("--kafka-libs: " + kafkaLibs + " is not a directory");
        }
        return new Options(plan, workloads, repeats, heap, ordered, quick, out, dataDir, kafkaLibs,
                Duration.ofMinutes(timeoutMinutes), Map.copyOf(durations), security, consumers);
    }

    /** Kafka variants first (odd repeats run Kafka first), each group in the order given. */
    private static List<SystemKind> orderKafkaFirst(Set<SystemKind> systems) {
        List<SystemKind> ordered = new ArrayList<>(systems.stream().filter(SystemKind::isKafka).toList());
        ordered.addAll(systems.stream().filter(s -> !s.isKafka()).toList());
        return ordered;
    }

    private static String value(String[] args, int i, String option) throws UsageException {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new UsageException(option + " needs a value");
        }
        return args[i];
    }

    private static List<String> list(String value, String option) throws UsageException {
        List<String> items = new ArrayList<>();
        for (String s : value.split(",")) {
            if (!s.isBlank()) {
                items.add(s.trim());
            }
        }
        if (items.isEmpty()) {
            throw new UsageException(option + ": empty list");
        }
        return items;
    }

    /** A non-negative number of minutes, fractions allowed (0 only makes sense for a warm-up). */
    private static String minutes(String value, String option) throws UsageException {
        try {
            double m = Double.parseDouble(value);
            if (m >= 0 && Double.isFinite(m)) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException(option + ": '" + value + "' is not a number of minutes");
    }

    private static int positive(String value, String option) throws UsageException {
        try {
            int n = Integer.parseInt(value);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException(option + ": '" + value + "' is not a positive whole number");
    }
}
