package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Kafka's own {@code kafka-consumer-groups.sh} (4.3.1) on a KIP-848 consumer group: describe (offsets,
 * members, state) and list by type and state show the group and its member as they would on Kafka.
 */
class ConsumerProtocolCliTest {
    private static final String CONSUMER_GROUPS = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand";
    private static final String TOPIC = "cli-kip848";
    private static final String GROUP = "cli-kip848-group";

    @RegisterExtension
    static final KafkaCli.WithBroker cli = new KafkaCli.WithBroker(Map.of());

    @BeforeAll
    static void createTopic() throws Exception {
        cli.admin().createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }

    private static KafkaCli.Result groups(String... args) throws Exception {
        KafkaCli.Result r = cli.runOnBroker(CONSUMER_GROUPS, args);
        assertEquals(0, r.exitCode(), r.toString());
        return r;
    }

    @Test
    void consumerGroupCommand_describeAndList_showTheConsumerGroupAndItsMember() throws Exception {
        Properties p = cli.broker().clientProps();
        p.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "cli-member");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            consumer.subscribe(List.of(TOPIC));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (consumer.assignment().size() < 2 && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(100));
            }
            assertEquals(2, consumer.assignment().size());
            consumer.commitSync(Map.of(new org.apache.kafka.common.TopicPartition(TOPIC, 0),
                    new org.apache.kafka.clients.consumer.OffsetAndMetadata(0)));

            KafkaCli.Result offsets = groups("--describe", "--group", GROUP);
            List<String[]> rows = offsets.lines().stream().filter(l -> l.startsWith(GROUP))
                    .map(l -> l.trim().split("\\s+")).toList();
            assertEquals(2, rows.size(), offsets.toString());
            for (String[] row : rows) {
                assertEquals(TOPIC, row[1], offsets.toString());
                assertTrue(row[row.length - 1].equals("cli-member"), "the owning member's client id: " + offsets);
            }

            KafkaCli.Result members = groups("--describe", "--group", GROUP, "--members", "--verbose");
            String member = members.lines().stream().filter(l -> l.startsWith(GROUP)).findFirst().orElseThrow();
            assertTrue(member.contains("cli-member") && member.contains(TOPIC + ":0,1"), members.toString());

            KafkaCli.Result state = groups("--describe", "--group", GROUP, "--state");
            String row = state.lines().stream().filter(l -> l.startsWith(GROUP)).findFirst().orElseThrow();
            assertTrue(row.contains("Stable") && row.contains("uniform"), state.toString());

            KafkaCli.Result byType = groups("--list", "--type", "consumer");
            assertTrue(byType.lines().stream().anyMatch(l -> l.startsWith(GROUP) && l.contains("Consumer")),
                    byType.toString());
            KafkaCli.Result classic = groups("--list", "--type", "classic");
            assertTrue(classic.lines().stream().noneMatch(l -> l.startsWith(GROUP)), classic.toString());
            KafkaCli.Result stable = groups("--list", "--state", "stable");
            assertTrue(stable.lines().stream().anyMatch(l -> l.startsWith(GROUP) && l.contains("Stable")),
                    stable.toString());
        }
    }
}
