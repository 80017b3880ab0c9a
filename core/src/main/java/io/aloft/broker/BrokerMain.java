package io.aloft.broker;

import io.aloft.broker.lifecycle.FatalFailureHandler;
import io.aloft.broker.lifecycle.ProcessExit;
import io.aloft.config.ConfigException;
import io.aloft.config.PathChecks;
import io.aloft.controller.ControllerConfig;
import io.aloft.controller.server.ControllerMain;
import io.aloft.metrics.MetricsConfig;
import io.aloft.wal.device.WalDevice;
import java.io.IOException;
import java.io.Reader;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code bin/aloft-server.sh [server.properties]}: runs one broker until SIGTERM/SIGINT, then shuts
 * down gracefully (the WAL tail is uploaded and streams are closed before the controller stops).
 * Without a file, embedded defaults: WAL, metadata and objects under {@code ./data}, one controller
 * voter, clients on 127.0.0.1:9092, {@code /metrics}, {@code /healthz} and {@code /readyz} on
 * http://127.0.0.1:9464 (as config/server.properties sets it).
 *
 * <p>With {@code process.roles=controller} the process is a dedicated controller voter instead
 * (only the controller's keys matter; see {@link ControllerMain}).
 *
 * <p>After a critical failure (the WAL's device failed, the stream store gave up, a broker thread
 * died; see {@link FatalFailureHandler}) the broker does not linger half alive: it logs one ERROR
 * line naming the cause, stops heartbeating (the controller fences it and moves its partitions),
 * closes its listeners, and ends the process with status 3 through {@link Runtime#halt}. It does
 * not drain or upload: its WAL and store are suspect, and what it acknowledged is in its WAL for
 * recovery. Halting skips the shutdown hook on purpose, and the hook itself, should a SIGTERM come
 * during that stop, only waits for it (no drain, no upload).
 *
 * <p>Exit status: 1 if start-up fails; 2 for a bad configuration (one line on stderr naming the
 * key, the value and what is wrong, found before anything is written to disk);
 * {@value FatalFailureHandler#EXIT_STATUS} when the broker stopped after a critical failure; after
 * SIGTERM/SIGINT and a graceful shutdown, the JVM's own (143/130).
 */
public final class BrokerMain {
    private static final Logger log = LoggerFactory.getLogger(BrokerMain.class);

    private BrokerMain() {
    }

    public static void main(String[] args) throws Exception {
        run(args, FileChannel::open, broker -> { });
    }

    /**
     * {@link #main}, with seams for tests that run a broker process with an injected fault: the
     * WAL's device is opened through {@code walChannels}, and {@code started} is given the broker
     * once it runs. Returns only if the shutdown hook completed.
     */
    static void run(String[] args, WalDevice.ChannelOpener walChannels, Consumer<Broker> started) throws Exception {
        if (args.length > 1) {
            System.err.println("usage: aloft-server.sh [server.properties]");
            System.exit(2);
        }
        Map<String, String> props = new HashMap<>();
        if (args.length == 1) {
            Properties file = new Properties();
            try (Reader in = Files.newBufferedReader(Path.of(args[0]))) {
                file.load(in);
            } catch (IOException e) {
                System.err.println("Cannot read " + args[0] + ": " + e.getMessage());
                System.exit(2);
            }
            file.stringPropertyNames().forEach(k -> props.put(k, file.getProperty(k).trim()));
        } else {
            props.put(MetricsConfig.LISTENER_CONFIG, "http://127.0.0.1:9464");
        }
        if (controllerOnly(props)) {
            // process.roles=controller: a dedicated controller node, from the same kind of file.
            ServerConfig settings = ServerConfig.fromProperties(props);
            ControllerMain.run(settings.controller(), settings.metrics());
            return;
        }
        Broker broker;
        try {
            broker = Broker.start(props, ProcessExit.halt(), walChannels);
        } catch (ConfigException e) {
            System.err.println("Invalid configuration: " + e.getMessage());
            System.exit(2);
            return;
        } catch (Exception e) {
            log.error("Broker failed to start", e);
            System.err.println("Broker failed to start: " + e);
            System.exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (broker.failed()) {
                // Stopping after a critical failure: no drain, no upload. Waiting lets its halt set the
                // exit status (3) rather than this signal's.
                log.info("Broker {} is stopping after a critical failure; not shutting down gracefully",
                        broker.nodeId());
                awaitFailureStop(broker);
                return;
            }
            log.info("Shutting down broker {}", broker.nodeId());
            broker.close();
            log.info("Broker {} stopped", broker.nodeId());
            stopped.countDown();
        }, "broker-shutdown"));
        started.accept(broker);
        stopped.await();
    }

    /**
     * Whether the properties make this a controller-only process, checking them whole if so; exits
     * with status 2 (one line naming the key) when they are invalid. A broker's are checked by
     * {@link Broker#start}, after its warnings about unknown keys.
     */
    private static boolean controllerOnly(Map<String, String> props) {
        try {
            String roles = props.get(ControllerConfig.PROCESS_ROLES_CONFIG);
            if (roles == null || !ControllerConfig.PROCESS_ROLES.parse(roles).equals(
                    Set.of(ControllerConfig.Role.CONTROLLER))) {
                return false;
            }
            ServerConfig.unknownKeyWarnings(props).forEach(log::warn);
            ControllerConfig controller = ServerConfig.fromProperties(props).controller();
            PathChecks.requireUsableDirectory(ControllerConfig.DATA_DIR_CONFIG, controller.dataDir());
            return true;
        } catch (ConfigException e) {
            System.err.println("Invalid configuration: " + e.getMessage());
            System.exit(2);
            return false;
        }
    }

    private static void awaitFailureStop(Broker broker) {
        try {
            broker.awaitFailureStop(FatalFailureHandler.STOP_TIMEOUT_MS_DEFAULT + 5_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
