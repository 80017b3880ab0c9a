package io.aloft.broker;

import io.aloft.config.ConfigException;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code bin/aloft-server.sh [server.properties]}: runs one broker until SIGTERM/SIGINT, then shuts
 * down gracefully (the WAL tail is uploaded and streams are closed before the controller stops).
 * Without a file, embedded defaults: WAL, metadata and objects under {@code ./data}, one controller
 * voter, clients on 127.0.0.1:9092.
 *
 * <p>Exit status: 2 for a bad configuration — one line on stderr naming the key, the value and
 * what is wrong, found before anything is written to disk — 1 if start-up fails.
 */
public final class BrokerMain {
    private static final Logger log = LoggerFactory.getLogger(BrokerMain.class);

    private BrokerMain() {
    }

    public static void main(String[] args) throws Exception {
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
        }
        Broker broker;
        try {
            broker = Broker.start(props);
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
            log.info("Shutting down broker {}", broker.nodeId());
            broker.close();
            log.info("Broker {} stopped", broker.nodeId());
            stopped.countDown();
        }, "broker-shutdown"));
        stopped.await();
    }
}
