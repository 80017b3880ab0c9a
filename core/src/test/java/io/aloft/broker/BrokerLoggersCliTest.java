package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.config.DynamicBrokerConfigs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Log levels changed at run time with Kafka 4.3.1's own {@code kafka-configs --entity-type
 * broker-loggers} (issue 17): the level set takes effect on the broker's loggers at once (the broker
 * runs in this JVM, so its SLF4J loggers are asked directly), describe shows it, delete undoes it, and
 * a bad level is refused with the broker's reason.
 */
class BrokerLoggersCliTest {
    private static final String CONFIGS = "kafka.admin.ConfigCommand";
    /** A class logger of the broker's, without a level of its own in the test's log4j2-test.xml. */
    private static final String LOGGER = DynamicBrokerConfigs.class.getName();
    /** That logger as the broker's class uses it. */
    private static final Logger BROKER_CLASS_LOGGER = LoggerFactory.getLogger(DynamicBrokerConfigs.class);

    @TempDir
    static Path dir;
    static TestBroker broker;
    static KafkaCli cli;

    @BeforeAll
    static void start() throws Exception {
        broker = new TestBroker(dir.resolve("broker"));
        cli = new KafkaCli(dir.resolve("cli"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker == null) {
            return;
        }
        // Leave this JVM's levels as they were even when the test failed half-way.
        try (Admin admin = Admin.create(broker.clientProps())) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.BROKER_LOGGER, "1"),
                    List.of(new AlterConfigOp(new ConfigEntry(LOGGER, null), AlterConfigOp.OpType.DELETE))))
                    .all().get(30, TimeUnit.SECONDS);
        } finally {
            broker.close();
        }
    }

    private static KafkaCli.Result configs(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--bootstrap-server", broker.bootstrap(),
                "--entity-type", "broker-loggers", "--entity-name", "1"));
        all.addAll(List.of(args));
        return cli.run(CONFIGS, all.toArray(String[]::new));
    }

    @Test
    void configCommand_brokerLoggers_setDescribeDelete() throws Exception {
        assertFalse(BROKER_CLASS_LOGGER.isDebugEnabled(), "the test's log4j2-test.xml logs Aloft at WARN");
        KafkaCli.Result before = configs("--describe");
        assertEquals(0, before.exitCode(), before.toString());
        assertTrue(before.out().contains(LOGGER + "=WARN"), before.toString());
        assertTrue(before.out().contains("root=WARN"), before.toString());

        KafkaCli.Result set = configs("--alter", "--add-config", LOGGER + "=DEBUG");
        assertEquals(0, set.exitCode(), set.toString());
        assertTrue(BROKER_CLASS_LOGGER.isDebugEnabled(), "the broker's logger logs at DEBUG now");
        KafkaCli.Result described = configs("--describe");
        assertTrue(described.out().contains(LOGGER + "=DEBUG"), described.toString());

        KafkaCli.Result deleted = configs("--alter", "--delete-config", LOGGER);
        assertEquals(0, deleted.exitCode(), deleted.toString());
        assertFalse(BROKER_CLASS_LOGGER.isDebugEnabled(), "back to the root's level");

        // A level Kafka does not accept is refused by the broker (the tool checks only logger names).
        KafkaCli.Result bad = configs("--alter", "--add-config", "root=LOUD");
        assertTrue(bad.exitCode() != 0, bad.toString());
        assertTrue((bad.out() + bad.err()).contains("LOUD"), bad.toString());
        KafkaCli.Result after = configs("--describe");
        assertTrue(after.out().contains("root=WARN"), after.toString());
        assertTrue(after.out().contains(LOGGER + "=WARN"), after.toString());
    }
}
