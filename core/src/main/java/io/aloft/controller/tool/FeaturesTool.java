package io.aloft.controller.tool;

import io.aloft.controller.ControllerConfig;
import io.aloft.controller.ControllerException;
import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.FeatureStatus;
import io.aloft.controller.model.VoterFeatures;
import io.aloft.controller.query.Queries;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The operator's command for the cluster's feature level ({@code scripts/controller.sh features}):
 *
 * <pre>
 *   features describe --quorum 1@host:9093,2@host:9093,3@host:9093 [--timeout-ms 30000]
 *   features upgrade --level N --quorum ... [--timeout-ms 30000]
 * </pre>
 *
 * {@code describe} prints the finalized level, the voters of the Raft configuration with the
 * levels each reported, the brokers with theirs, and the highest level all of them support.
 * {@code upgrade} raises the finalized level; the controller refuses it (and the tool says why)
 * unless every voter and every unfenced broker supports the level. There is no downgrade.
 *
 * <p>Exit status: 0 done, 1 refused or no answer, 2 bad arguments.
 *
 * <p>Runs on the calling thread; one command per process.
 */
public final class FeaturesTool {
    private static final long TIMEOUT_DEFAULT_MS = 30_000;

    private FeaturesTool() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs one command; returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        Map<String, String> options = new TreeMap<>();
        String command = args.length > 0 ? args[0] : "";
        for (int i = 1; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                return usage(err, "unexpected argument " + args[i]);
            }
            options.put(args[i].substring(2), args[++i]);
        }
        if (!command.equals("describe") && !command.equals("upgrade")) {
            return usage(err, command.isEmpty() ? "no command" : "unknown command " + command);
        }
        List<String> allowed = command.equals("upgrade") ? List.of("quorum", "timeout-ms", "level")
                : List.of("quorum", "timeout-ms");
        for (String key : options.keySet()) {
            if (!allowed.contains(key)) {
                return usage(err, "unknown option --" + key + " for " + command);
            }
        }
        if (!options.containsKey("quorum") || (command.equals("upgrade") && !options.containsKey("level"))) {
            return usage(err, command + " needs --quorum" + (command.equals("upgrade") ? " and --level" : ""));
        }
        ControllerConfig config;
        int level;
        long timeoutMs;
        try {
            timeoutMs = Long.parseLong(options.getOrDefault("timeout-ms", Long.toString(TIMEOUT_DEFAULT_MS)));
            level = command.equals("upgrade") ? Integer.parseInt(options.get("level")) : 0;
            config = ControllerConfig.builder().nodeId(0).voters(options.get("quorum"))
                    .dataDir(Path.of(System.getProperty("java.io.tmpdir"))).requestTimeoutMs(timeoutMs).build();
        } catch (IllegalArgumentException e) {
            return usage(err, e.getMessage());
        }
        try (ControllerClient client = ControllerClient.create(config)) {
            if (command.equals("describe")) {
                describe(client, timeoutMs, out);
            } else {
                int finalized = client.updateFeatureLevel(level).get(timeoutMs * 2, TimeUnit.MILLISECONDS);
                out.println("Finalized feature level: " + finalized);
            }
            return 0;
        } catch (ExecutionException | CompletionException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            boolean refused = cause instanceof ControllerException ce
                    && ce.code() != ControllerException.Code.UNAVAILABLE;
            err.println((refused ? "Refused: " : "Failed: ") + cause.getMessage());
            return 1;
        } catch (TimeoutException e) {
            err.println("Failed: no controller answered within " + timeoutMs * 2 + " ms");
            return 1;
        } catch (Exception e) {
            err.println("Failed: " + e);
            return 1;
        }
    }

    private static void describe(ControllerClient client, long timeoutMs, PrintStream out) throws Exception {
        FeatureStatus status = client.query(new Queries.DescribeFeatures(), FeatureStatus.class)
                .get(timeoutMs * 2, TimeUnit.MILLISECONDS);
        ClusterImage image = client.query(new Queries.DescribeCluster(), ClusterImage.class)
                .get(timeoutMs * 2, TimeUnit.MILLISECONDS);
        List<Integer> voterIds = client.currentVoterIds().get(timeoutMs * 2, TimeUnit.MILLISECONDS);
        out.println("Finalized feature level: " + status.finalizedLevel());
        out.println("This tool's build supports: " + client.supportedFeatures());
        Map<Integer, VoterFeatures> reported = new TreeMap<>();
        status.voters().forEach(v -> reported.put(v.voterId(), v));
        int upgradable = Integer.MAX_VALUE;
        out.println("Voters (current Raft configuration):");
        for (int id : voterIds) {
            VoterFeatures v = reported.get(id);
            out.println("  voter " + id + ": " + (v == null ? "has not reported" : "supports " + v.supported()));
            upgradable = v == null ? -1 : Math.min(upgradable, v.supported().maxLevel());
        }
        out.println("Brokers:");
        for (BrokerInfo b : image.brokers()) {
            out.println("  broker " + b.brokerId() + " (" + b.state() + "): supports " + b.supportedFeatures()
                    + (b.state() == BrokerState.FENCED ? " (fenced: does not hold an upgrade back)" : ""));
            if (b.state() != BrokerState.FENCED && upgradable >= 0) {
                upgradable = Math.min(upgradable, b.supportedFeatures().maxLevel());
            }
        }
        out.println("Highest level every voter and unfenced broker supports: "
                + (upgradable < 0 ? "unknown (a voter has not reported)" : Integer.toString(upgradable)));
    }

    private static int usage(PrintStream err, String problem) {
        err.println(problem);
        err.println("usage: features describe --quorum ID@HOST:PORT,... [--timeout-ms MS]");
        err.println("       features upgrade --level N --quorum ID@HOST:PORT,... [--timeout-ms MS]");
        return 2;
    }
}
