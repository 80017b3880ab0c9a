package io.aloft.autoscaler;

import io.aloft.autoscaler.balance.Plan;
import io.aloft.autoscaler.policy.Policy;
import io.aloft.autoscaler.policy.PolicyException;
import io.aloft.autoscaler.policy.PolicyLoader;
import io.aloft.autoscaler.service.Autoscaler;
import io.aloft.autoscaler.service.AutoscalerMetrics;
import io.aloft.autoscaler.simulate.StepSimulation;
import io.aloft.autoscaler.policy.Units;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code aloft-autoscaler run | plan | validate}: see {@code bin/aloft-autoscaler.sh}. Exit status 0
 * done, 1 failed (the cluster could not be reached, say), 2 bad arguments or an invalid policy (each
 * error naming its field).
 *
 * <p>{@code run} evaluates on the main thread until SIGTERM or Ctrl-C; the shutdown hook lets the
 * evaluation under way finish (a batch of moves, a broker start), then returns.
 */
public final class AutoscalerMain {
    private static final Logger log = LoggerFactory.getLogger(AutoscalerMain.class);

    static final String USAGE = """
            usage: aloft-autoscaler run --policy FILE --bootstrap HOST:PORT[,...] [--metrics-listener http://HOST:PORT] [--dry-run] [--command-config FILE]
                   aloft-autoscaler plan --policy FILE --bootstrap HOST:PORT[,...] [--drain ID[,ID...]] [--command-config FILE]
                   aloft-autoscaler drain --broker ID --policy FILE --bootstrap HOST:PORT[,...] [--command-config FILE]
                   aloft-autoscaler remove --broker ID --policy FILE --bootstrap HOST:PORT[,...] [--command-config FILE]
                   aloft-autoscaler validate --policy FILE
                   aloft-autoscaler simulate --policy FILE [--brokers 3] [--partitions 1000] [--racks 3] [--from 100MiB] [--to 1GiB] [--boot 60s] [--move 3s]
              run       evaluate the policy every interval: scale out, drain and scale in, balance; log each decision
              plan      print the balancing plan for the cluster now (draining the given brokers); change nothing
              drain     move every partition off a broker (in the policy's batches); it keeps running
              remove    drain a broker, then stop it through the policy's backend
              validate  check a policy file (see autoscaler/POLICY.md)
              simulate  play a load step on synthetic metrics with the policy's own decisions and plans (virtual time)
              --command-config  Admin client properties (security, timeouts), as Kafka's tools take them""";

    private AutoscalerMain() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs a command; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        Map<String, String> options;
        String command;
        try {
            if (args.length == 0) {
                throw new IllegalArgumentException("a command is needed");
            }
            command = args[0];
            options = options(Arrays.copyOfRange(args, 1, args.length));
            if (!List.of("run", "plan", "drain", "remove", "validate", "simulate").contains(command)) {
                throw new IllegalArgumentException("unknown command " + command);
            }
            require(options, "--policy");
            if (List.of("run", "plan", "drain", "remove").contains(command)) {
                require(options, "--bootstrap");
            }
            if (command.equals("drain") || command.equals("remove")) {
                require(options, "--broker");
            }
        } catch (IllegalArgumentException e) {
            err.println("aloft-autoscaler: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        Policy policy;
        try {
            policy = PolicyLoader.load(Path.of(options.get("--policy")));
        } catch (PolicyException e) {
            err.println("aloft-autoscaler: " + options.get("--policy") + ": " + e.getMessage());
            return 2;
        } catch (IOException e) {
            err.println("aloft-autoscaler: cannot read " + options.get("--policy") + ": " + e);
            return 2;
        }
        if (command.equals("validate")) {
            out.println(options.get("--policy") + ": valid");
            return 0;
        }
        if (command.equals("simulate")) {
            try {
                return simulate(policy, options, out);
            } catch (IllegalArgumentException e) {
                err.println("aloft-autoscaler: " + e.getMessage());
                return 2;
            }
        }
        try {
            Map<String, Object> adminConfig = adminConfig(options.get("--command-config"));
            return switch (command) {
                case "plan" -> plan(policy, options, adminConfig, out);
                case "drain", "remove" -> drain(command.equals("remove"), policy, options, adminConfig, out);
                default -> serve(policy, options, adminConfig);
            };
        } catch (IllegalArgumentException e) {
            err.println("aloft-autoscaler: " + e.getMessage());
            return 2;
        } catch (IOException e) {
            err.println("aloft-autoscaler: " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    private static int plan(Policy policy, Map<String, String> options, Map<String, Object> adminConfig,
            PrintStream out) throws IOException, InterruptedException {
        Set<Integer> draining = new TreeSet<>();
        String drain = options.get("--drain");
        if (drain != null) {
            for (String id : drain.split(",")) {
                try {
                    draining.add(Integer.parseInt(id.trim()));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--drain takes broker ids, not " + id);
                }
            }
        }
        try (AutoscalerMetrics metrics = new AutoscalerMetrics();
                Autoscaler autoscaler = Autoscaler.create(policy, options.get("--bootstrap"), adminConfig, metrics,
                        true, out::println)) {
            Plan plan = autoscaler.plan(draining);
            plan.findings().forEach(out::println);
            if (plan.isEmpty()) {
                out.println("No moves: every goal holds.");
            } else {
                autoscaler.print(plan);
            }
        }
        return 0;
    }

    private static int drain(boolean remove, Policy policy, Map<String, String> options,
            Map<String, Object> adminConfig, PrintStream out) throws IOException, InterruptedException {
        int id;
        try {
            id = Integer.parseInt(options.get("--broker"));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--broker takes a broker id, not " + options.get("--broker"));
        }
        try (AutoscalerMetrics metrics = new AutoscalerMetrics();
                Autoscaler autoscaler = Autoscaler.create(policy, options.get("--bootstrap"), adminConfig, metrics,
                        false, out::println)) {
            if (remove) {
                autoscaler.remove(id);
                out.println("Broker " + id + " drained and removed.");
                return 0;
            }
            int left = autoscaler.drain(id, 5);
            out.println(left == 0 ? "Broker " + id + " serves no partition." : "Broker " + id + " still serves " + left
                    + " partitions (moves failed or were deferred; see the log).");
            return left == 0 ? 0 : 1;
        }
    }

    private static int simulate(Policy policy, Map<String, String> options, PrintStream out) {
        StepSimulation.Scenario d = StepSimulation.Scenario.issue18();
        StepSimulation.Scenario scenario = new StepSimulation.Scenario(
                Integer.parseInt(options.getOrDefault("--brokers", String.valueOf(d.brokers()))),
                Integer.parseInt(options.getOrDefault("--partitions", String.valueOf(d.partitions()))),
                Integer.parseInt(options.getOrDefault("--racks", String.valueOf(d.racks()))),
                options.containsKey("--from") ? Units.parseSize(options.get("--from")) : d.fromBytesPerSec(),
                options.containsKey("--to") ? Units.parseSize(options.get("--to")) : d.toBytesPerSec(),
                options.containsKey("--boot") ? Units.parseDuration(options.get("--boot")) : d.brokerBoot(),
                options.containsKey("--move") ? Units.parseDuration(options.get("--move")) : d.moveTime(),
                d.horizon(), d.seed());
        StepSimulation.Result r = StepSimulation.run(policy, scenario);
        r.events().forEach(out::println);
        out.printf(Locale.ROOT, "decision %s, brokers serving %s, balanced %s after the step; %d brokers, %d moves"
                        + " (assumed: broker boot %s, %s per batch of moves)%n", secs(r.decision()),
                secs(r.serving()), secs(r.balanced()), r.brokers(), r.moves(), secs(scenario.brokerBoot()),
                secs(scenario.moveTime()));
        return 0;
    }

    private static String secs(java.time.Duration d) {
        return d == null ? "never" : String.format(Locale.ROOT, "%.0f s", d.toMillis() / 1000.0);
    }

    private static int serve(Policy policy, Map<String, String> options, Map<String, Object> adminConfig)
            throws IOException, InterruptedException {
        boolean dryRun = options.containsKey("--dry-run");
        CountDownLatch stopped = new CountDownLatch(1);
        try (AutoscalerMetrics metrics = new AutoscalerMetrics();
                Autoscaler autoscaler = Autoscaler.create(policy, options.get("--bootstrap"), adminConfig, metrics,
                        dryRun, line -> log.info("{}", line))) {
            String listener = options.get("--metrics-listener");
            if (listener != null) {
                int port = metrics.serve(listener);
                log.info("Autoscaler meters on port {} (/metrics)", port);
            }
            var stopRequested = new java.util.concurrent.atomic.AtomicBoolean();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                stopRequested.set(true);
                try {
                    stopped.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "aloft-autoscaler-shutdown"));
            log.info("Autoscaler started: interval {}, brokers {}..{}, balancing {}{}", policy.interval(),
                    policy.minBrokers(), policy.maxBrokers(), policy.balancing().enabled() ? "on" : "off",
                    dryRun ? ", DRY RUN (nothing changes)" : "");
            autoscaler.run(stopRequested::get);
            log.info("Autoscaler stopped");
        } finally {
            stopped.countDown();
        }
        return 0;
    }

    private static Map<String, Object> adminConfig(String file) throws IOException {
        Map<String, Object> config = new HashMap<>();
        if (file != null) {
            Properties props = new Properties();
            try (InputStream in = Files.newInputStream(Path.of(file))) {
                props.load(in);
            }
            props.forEach((k, v) -> config.put((String) k, v));
        }
        return config;
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--dry-run" -> options.put(a, "true");
                case "--policy", "--bootstrap", "--metrics-listener", "--drain", "--command-config", "--broker", "--brokers",
                        "--partitions", "--racks", "--from", "--to", "--boot", "--move" -> {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException(a + " needs a value");
                    }
                    options.put(a, args[++i]);
                }
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        return options;
    }

    private static void require(Map<String, String> options, String name) {
        if (!options.containsKey(name)) {
            throw new IllegalArgumentException(name + " is required");
        }
    }
}
