package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterConfigsOptions;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dynamic broker configs through the stock admin client: per-broker and cluster-default values
 * change the topic defaults of topics already served (their open logs included), show in
 * DescribeConfigs with Kafka's sources, are validated, and survive a restart.
 */
class DynamicBrokerConfigsTest {
    @TempDir
    Path dir;

    @Test
    void dynamicValuesApplyToServedTopicsAreDescribedValidatedAndSurviveRestart() throws Exception {
        TestBroker broker = new TestBroker(dir, Map.of("log.retention.ms", "86400000"));
        try {
            ConfigResource self = new ConfigResource(ConfigResource.Type.BROKER, "1");
            ConfigResource clusterDefault = new ConfigResource(ConfigResource.Type.BROKER, "");
            ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "dyn");
            try (Admin admin = Admin.create(broker.clientProps());
                    KafkaProducer<byte[], byte[]> producer = producer(broker)) {
                admin.createTopics(List.of(new NewTopic("dyn", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
                byte[] large = new byte[20_000];
                producer.send(new ProducerRecord<>("dyn", large)).get(30, TimeUnit.SECONDS); // the log is open now

                // The cluster default caps batch size for the topic being served.
                set(admin, clusterDefault, "message.max.bytes", "10000");
                Config d = describe(admin, clusterDefault);
                assertEquals("10000", d.get("message.max.bytes").value());
                assertEquals(ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, d.get("message.max.bytes").source());
                assertEquals(ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
                        describe(admin, topic).get("max.message.bytes").source());
                ExecutionException tooLarge = assertThrows(ExecutionException.class,
                        () -> producer.send(new ProducerRecord<>("dyn", large)).get(30, TimeUnit.SECONDS));
                assertInstanceOf(RecordTooLargeException.class, tooLarge.getCause());

                // The broker's own value beats the cluster default; log.retention.hours set dynamically
                // beats log.retention.ms from the file.
                set(admin, self, "message.max.bytes", "100000");
                set(admin, self, "log.retention.hours", "2");
                producer.send(new ProducerRecord<>("dyn", large)).get(30, TimeUnit.SECONDS);
                Config t = describe(admin, topic);
                assertEquals("7200000", t.get("retention.ms").value());
                assertEquals(ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG, t.get("retention.ms").source());
                Config b = describe(admin, self);
                assertEquals("100000", b.get("message.max.bytes").value());
                assertEquals(ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG, b.get("message.max.bytes").source());

                // Bad values are refused and change nothing; validate-only stores nothing.
                ExecutionException bad = assertThrows(ExecutionException.class, () -> set(admin, self,
                        "log.retention.bytes", "lots"));
                assertInstanceOf(InvalidConfigurationException.class, bad.getCause());
                assertTrue(bad.getCause().getMessage().contains("log.retention.bytes"), bad.getCause().getMessage());
                admin.incrementalAlterConfigs(Map.of(self, List.of(new AlterConfigOp(new ConfigEntry(
                        "log.retention.bytes", "5"), AlterConfigOp.OpType.SET))), new AlterConfigsOptions()
                        .validateOnly(true)).all().get(30, TimeUnit.SECONDS);
                assertEquals("-1", describe(admin, topic).get("retention.bytes").value());
            }

            broker.close();
            broker = broker.restart();
            try (Admin admin = Admin.create(broker.clientProps());
                    KafkaProducer<byte[], byte[]> producer = producer(broker)) {
                assertEquals("7200000", describe(admin, topic).get("retention.ms").value(), "after a restart");
                assertEquals("10000", describe(admin, clusterDefault).get("message.max.bytes").value());

                // Deleting the broker's value falls back to the cluster default, then to the file.
                admin.incrementalAlterConfigs(Map.of(self, List.of(
                        new AlterConfigOp(new ConfigEntry("message.max.bytes", ""), AlterConfigOp.OpType.DELETE),
                        new AlterConfigOp(new ConfigEntry("log.retention.hours", ""), AlterConfigOp.OpType.DELETE))))
                        .all().get(30, TimeUnit.SECONDS);
                assertEquals("86400000", describe(admin, topic).get("retention.ms").value());
                assertEquals(ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG,
                        describe(admin, topic).get("retention.ms").source());
                assertThrows(ExecutionException.class,
                        () -> producer.send(new ProducerRecord<>("dyn", new byte[20_000])).get(30, TimeUnit.SECONDS));
                admin.incrementalAlterConfigs(Map.of(clusterDefault, List.of(new AlterConfigOp(new ConfigEntry(
                        "message.max.bytes", ""), AlterConfigOp.OpType.DELETE)))).all().get(30, TimeUnit.SECONDS);
                assertFalse(describe(admin, clusterDefault).entries().iterator().hasNext(), "no cluster defaults left");
                producer.send(new ProducerRecord<>("dyn", new byte[20_000])).get(30, TimeUnit.SECONDS);
            }
        } finally {
            broker.close();
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(TestBroker broker) {
        Properties p = broker.clientProps();
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "20000");
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static void set(Admin admin, ConfigResource r, String key, String value) throws Exception {
        admin.incrementalAlterConfigs(Map.of(r, List.of(new AlterConfigOp(new ConfigEntry(key, value),
                AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
    }

    private static Config describe(Admin admin, ConfigResource r) throws Exception {
        return admin.describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS).get(r);
    }
}
