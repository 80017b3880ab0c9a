package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.log.LogConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Topic and broker configs through the real Admin client. */
class ConfigsTest {
    @TempDir
    static Path dir;
    static TestBroker broker;
    static Admin admin;

    @BeforeAll
    static void start() throws Exception {
        broker = new TestBroker(dir, Map.of("log.retention.hours", "48"));
        admin = Admin.create(broker.clientProps());
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    private static Config describe(ConfigResource r) throws Exception {
        return admin.describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS).get(r);
    }

    @Test
    void topicConfigsShowOverridesOverBrokerDefaultsAndCanBeAltered() throws Exception {
        admin.createTopics(List.of(new NewTopic("cfg", 1, (short) 1).configs(Map.of("retention.bytes", "1000000"))))
                .all().get(30, TimeUnit.SECONDS);
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "cfg");
        Config c = describe(topic);
        assertEquals("1000000", c.get("retention.bytes").value());
        assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, c.get("retention.bytes").source());
        assertEquals(Long.toString(48 * 3_600_000L), c.get("retention.ms").value(), "the broker's log.retention.hours");
        assertEquals(ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG, c.get("retention.ms").source(),
                "set by the broker's file");

        admin.incrementalAlterConfigs(Map.of(topic, List.of(
                new AlterConfigOp(new ConfigEntry("retention.ms", "60000"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("retention.bytes", ""), AlterConfigOp.OpType.DELETE))))
                .all().get(30, TimeUnit.SECONDS);
        c = describe(topic);
        assertEquals("60000", c.get("retention.ms").value());
        assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, c.get("retention.bytes").source());

        ExecutionException bad = assertThrows(ExecutionException.class, () -> admin.incrementalAlterConfigs(Map.of(
                topic, List.of(new AlterConfigOp(new ConfigEntry("retention.ms", "soon"), AlterConfigOp.OpType.SET))))
                .all().get(30, TimeUnit.SECONDS));
        assertInstanceOf(InvalidConfigurationException.class, bad.getCause());
        ExecutionException policy = assertThrows(ExecutionException.class, () -> admin.incrementalAlterConfigs(Map.of(
                topic, List.of(new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact,shred"),
                        AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS));
        assertInstanceOf(InvalidConfigurationException.class, policy.getCause());
        assertEquals("60000", describe(topic).get("retention.ms").value(), "a rejected change changes nothing");

        ExecutionException unknown = assertThrows(ExecutionException.class, () -> describe(
                new ConfigResource(ConfigResource.Type.TOPIC, "no-such-topic")));
        assertInstanceOf(UnknownTopicOrPartitionException.class, unknown.getCause());
    }

    @Test
    void describedConfigs_carryTypeAndDocumentationFromTheDeclarations() throws Exception {
        ConfigResource b = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(broker.broker().nodeId()));
        Config c = admin.describeConfigs(List.of(b), new DescribeConfigsOptions().includeDocumentation(true))
                .all().get(30, TimeUnit.SECONDS).get(b);
        assertEquals(ConfigEntry.ConfigType.INT, c.get("log.retention.hours").type());
        assertEquals(ConfigEntry.ConfigType.LIST, c.get("listeners").type());
        assertEquals(ConfigEntry.ConfigType.STRING, c.get("aloft.data.dir").type(), "a path is a string to Kafka");
        assertEquals(LogConfig.LOG_RETENTION_HOURS.doc(), c.get("log.retention.hours").documentation());
        admin.createTopics(List.of(new NewTopic("typed", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "typed");
        assertEquals(ConfigEntry.ConfigType.LONG, describe(topic).get("retention.ms").type());
        assertEquals(null, describe(topic).get("retention.ms").documentation(), "only when asked for");
    }

    @Test
    void brokerConfigsOutsideTheDynamicSetAreReadOnly() throws Exception {
        ConfigResource b = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(broker.broker().nodeId()));
        Config c = describe(b);
        assertEquals("48", c.get("log.retention.hours").value());
        assertEquals(ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG, c.get("log.retention.hours").source());
        assertFalse(c.get("log.retention.hours").isReadOnly(), "a dynamic key");
        assertTrue(c.get("listeners").isReadOnly());
        assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, c.get("message.max.bytes").source(),
                "dynamic keys are described even where nothing sets them");
        ExecutionException alter = assertThrows(ExecutionException.class, () -> admin.incrementalAlterConfigs(Map.of(
                b, List.of(new AlterConfigOp(new ConfigEntry("num.partitions", "7"), AlterConfigOp.OpType.SET))))
                .all().get(30, TimeUnit.SECONDS));
        assertInstanceOf(InvalidRequestException.class, alter.getCause());
        assertTrue(alter.getCause().getMessage().contains("num.partitions"), alter.getCause().getMessage());
    }
}
