package io.aloft.controller.server;

import io.aloft.config.ConfigException;
import io.aloft.config.PathChecks;
import io.aloft.config.UnknownKeys;
import io.aloft.controller.ControllerConfig;
import io.aloft.metrics.MetricsConfig;
import io.aloft.metrics.MetricsEndpoint;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one controller voter on its own, from a properties file with the keys of
 * {@link ControllerConfig} (the broker embeds the same server; this is for dedicated controller
 * nodes and for trying a 3-voter quorum by hand). Stops on SIGTERM/SIGINT.
 *
 * <p>Exit status: 2 for a bad configuration (one line naming the key, found before anything is
 * written), 1 if the voter fails to start or stops itself (it cannot follow the cluster's feature
 * level). Keys the controller does not read are warned about on stderr. With {@code metrics.listener}
 * set it serves {@code /metrics}, {@code /healthz} and {@code /readyz} (ready once the voter runs).
 */
public final class ControllerMain {
    private static final Logger log = LoggerFactory.getLogger(ControllerMain.class);

    /** The readiness condition of a dedicated voter: its Raft server runs. */
    static final String VOTER_RUNNING = "voter running";

    private ControllerMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: ControllerMain <controller.properties>");
            System.exit(2);
        }
        ControllerConfig config;
        MetricsConfig metrics;
        try {
            Properties props = new Properties();
            try (Reader in = Files.newBufferedReader(Path.of(args[0]))) {
                props.load(in);
            }
            Set<String> keys = props.stringPropertyNames();
            UnknownKeys.warnings(keys, Stream.concat(ControllerConfig.DEFINITION.names().stream(),
                    MetricsConfig.DEFINITION.names().stream()).collect(java.util.stream.Collectors.toSet()))
                    .forEach(w -> System.err.println("Warning: " + w));
            config = ControllerConfig.fromProperties(props);
            metrics = MetricsConfig.fromProperties(props);
            if (config.self() == null) {
                throw new ConfigException(ControllerConfig.NODE_ID_CONFIG, config.nodeId()
                        + " is not one of the voters in " + ControllerConfig.VOTERS_CONFIG + "=" + config.voters());
            }
            PathChecks.requireUsableDirectory(ControllerConfig.DATA_DIR_CONFIG, config.dataDir());
        } catch (IOException e) {
            System.err.println("Cannot read " + args[0] + ": " + e.getMessage());
            System.exit(2);
            return;
        } catch (ConfigException e) {
            System.err.println("Invalid configuration: " + e.getMessage());
            System.exit(2);
            return;
        }
        run(config, metrics);
    }

    /**
     * Runs the voter of an already checked {@code config} until SIGTERM/SIGINT (also for a broker
     * properties file with {@code process.roles=controller}). Exits the process with status 1 if the
     * voter fails to start or stops itself.
     */
    public static void run(ControllerConfig config, MetricsConfig metricsConfig) throws InterruptedException {
        ControllerServer server;
        MetricsEndpoint endpoint;
        try {
            endpoint = MetricsEndpoint.start(metricsConfig, List.of(VOTER_RUNNING));
        } catch (IOException | RuntimeException e) {
            System.err.println("Controller voter " + config.nodeId() + " failed to start: " + e.getMessage());
            System.exit(1);
            return;
        }
        try {
            server = ControllerServer.start(config);
        } catch (IOException | RuntimeException e) {
            System.err.println("Controller voter " + config.nodeId() + " failed to start: " + e);
            System.exit(1);
            return;
        }
        server.bindMeters(endpoint.registry());
        endpoint.health().livenessFrom(() -> !server.failure().isDone());
        endpoint.health().done(VOTER_RUNNING);
        log.info("Controller node {} started, a voter of {}", config.nodeId(), config.voters());
        CountDownLatch stopped = new CountDownLatch(1);
        // Not on the thread that completes it (Ratis's apply thread, which the shutdown hook's close joins).
        server.failure().thenAcceptAsync(cause -> {
            System.err.println("Controller voter " + config.nodeId() + " stopped: " + cause.getMessage());
            // The Raft server is closed already; exit rather than linger half-alive.
            System.exit(1);
        }, task -> new Thread(task, "controller-exit").start());
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
                endpoint.close();
            } catch (IOException e) {
                System.err.println("Controller voter " + config.nodeId() + " did not close cleanly: " + e);
            } finally {
                stopped.countDown();
            }
        }, "controller-shutdown"));
        stopped.await();
    }
}
