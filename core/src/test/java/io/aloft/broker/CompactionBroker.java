package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension for compaction tests: the broker a test starts with {@link #start}, its log
 * cleaner's background threads off so that a cleaning happens only when the test runs one
 * ({@link #cleanUntil}), and WAL uploads every 100 ms so that new data soon becomes cleanable;
 * an Admin on it. Both are closed after each test. Register it in an instance field:
 *
 * <pre>
 * &#64;RegisterExtension
 * final CompactionBroker broker = new CompactionBroker();
 * </pre>
 *
 * <p>Confined to the thread that runs the test.
 */
final class CompactionBroker implements AfterEachCallback {
    private TestBroker broker;
    private Admin admin;

    /** Starts the broker on {@code dir}, with {@code settings} over these tests' defaults. */
    void start(Path dir, Map<String, String> settings) throws Exception {
        Map<String, String> props = new HashMap<>(Map.of("s3.wal.upload.interval.ms", "100",
                "log.cleaner.enable", "false"));
        props.putAll(settings);
        broker = new TestBroker(dir, props);
        admin = Admin.create(broker.clientProps());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (admin != null) {
            admin.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    Broker broker() {
        return broker.broker();
    }

    Admin admin() {
        return admin;
    }

    String bootstrap() {
        return broker.bootstrap();
    }

    Properties clientProps() {
        return broker.clientProps();
    }

    /** Creates {@code name}, one partition, with {@code configs}. */
    void createTopic(String name, Map<String, String> configs) throws Exception {
        admin.createTopics(List.of(new NewTopic(name, 1, (short) 1).configs(configs))).all()
                .get(30, TimeUnit.SECONDS);
    }

    /** Runs cleanings until {@code done} (the uploads that make data cleanable come every 100 ms). */
    void cleanUntil(String what, BooleanSupplier done) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "no cleaning made it: " + what + "; "
                    + broker.broker().logCleaner().stats());
            if (broker.broker().logCleaner().cleanNow().isEmpty()) {
                Thread.sleep(50); // poll: the next upload makes more data cleanable
            }
        }
    }
}
