package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Apache Kafka 4.3.1's own command-line tools ({@code kafka-topics}, {@code kafka-console-producer},
 * {@code kafka-console-consumer}, {@code kafka-get-offsets}), run as child processes against one
 * broker: exit status and output must be what they are against Kafka. Results are cross-checked with
 * the kafka-clients Admin in this JVM where the tool's own output does not show them.
 */
class KafkaCliTest {
    private static final String TOPIC_COMMAND = "org.apache.kafka.tools.TopicCommand";
    private static final String CONSOLE_PRODUCER = "org.apache.kafka.tools.ConsoleProducer";
    private static final String CONSOLE_CONSUMER = "org.apache.kafka.tools.consumer.ConsoleConsumer";
    private static final String GET_OFFSET_SHELL = "org.apache.kafka.tools.GetOffsetShell";
    private static final String CONSUMER_GROUPS = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand";
    /** kafka-configs: still the Scala tool in Kafka 4.3.1 (kafka_2.13). */
    private static final String CONFIGS = "kafka.admin.ConfigCommand";

    @RegisterExtension
    static final KafkaCli.WithBroker cli = new KafkaCli.WithBroker(Map.of());

    private static KafkaCli.Result topics(String... args) throws Exception {
        return cli.runOnBroker(TOPIC_COMMAND, args);
    }

    private static int partitionCount(String topic) throws Exception {
        return cli.admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
                .partitions().size();
    }

    @Test
    void topicCommand_createListAlterDelete_exitCodesAndOutput() throws Exception {
        KafkaCli.Result created = topics("--create", "--topic", "cli-topics", "--partitions", "3",
                "--replication-factor", "1");
        assertEquals(0, created.exitCode(), created.toString());
        assertEquals(List.of("Created topic cli-topics."), created.lines(), created.toString());
        assertEquals(3, partitionCount("cli-topics"));

        KafkaCli.Result listed = topics("--list");
        assertEquals(0, listed.exitCode(), listed.toString());
        assertTrue(listed.lines().contains("cli-topics"), listed.toString());

        KafkaCli.Result again = topics("--create", "--topic", "cli-topics", "--partitions", "3");
        assertEquals(1, again.exitCode(), again.toString());
        assertTrue(again.out().contains("already exists"), again.toString());
        KafkaCli.Result ifNotExists = topics("--create", "--topic", "cli-topics", "--partitions", "3",
                "--if-not-exists");
        assertEquals(0, ifNotExists.exitCode(), ifNotExists.toString());

        KafkaCli.Result altered = topics("--alter", "--topic", "cli-topics", "--partitions", "5");
        assertEquals(0, altered.exitCode(), altered.toString());
        assertEquals(5, partitionCount("cli-topics"));

        KafkaCli.Result deleted = topics("--delete", "--topic", "cli-topics");
        assertEquals(0, deleted.exitCode(), deleted.toString());
        assertFalse(cli.admin().listTopics().names().get(30, TimeUnit.SECONDS).contains("cli-topics"));
        KafkaCli.Result listedAfter = topics("--list");
        assertEquals(0, listedAfter.exitCode(), listedAfter.toString());
        assertFalse(listedAfter.lines().contains("cli-topics"), listedAfter.toString());

        KafkaCli.Result deletedAgain = topics("--delete", "--topic", "cli-topics");
        assertEquals(1, deletedAgain.exitCode(), deletedAgain.toString());
        assertTrue(deletedAgain.out().contains("Topic 'cli-topics' does not exist as expected"),
                deletedAgain.toString());
    }

    @Test
    void topicCommand_describe_showsPartitionsAndLeader() throws Exception {
        cli.admin().createTopics(List.of(new NewTopic("cli-describe", 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        KafkaCli.Result described = topics("--describe", "--topic", "cli-describe");
        assertEquals(0, described.exitCode(), described.toString());
        int node = cli.broker().broker().nodeId();
        assertTrue(described.out().contains("Topic: cli-describe\tTopicId: "), described.toString());
        assertTrue(described.out().contains("PartitionCount: 2\tReplicationFactor: 1"), described.toString());
        for (int p = 0; p < 2; p++) {
            assertTrue(described.out().contains("Topic: cli-describe\tPartition: " + p + "\tLeader: " + node
                    + "\tReplicas: " + node + "\tIsr: " + node), described.toString());
        }
    }

    @Test
    void consoleProducer_consoleConsumer_roundTripInOrder() throws Exception {
        KafkaCli.Result created = topics("--create", "--topic", "cli-console", "--partitions", "1",
                "--replication-factor", "1");
        assertEquals(0, created.exitCode(), created.toString());
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            lines.add("key-" + (i % 3) + ":value " + i);
        }
        KafkaCli.Result produced = cli.runWithInput(String.join("\n", lines) + "\n", CONSOLE_PRODUCER,
                "--bootstrap-server", cli.bootstrap(), "--topic", "cli-console",
                "--reader-property", "parse.key=true", "--reader-property", "key.separator=:",
                "--command-property", "acks=all");
        assertEquals(0, produced.exitCode(), produced.toString());

        // --partition reads without a consumer group (the group APIs are not served in this branch).
        KafkaCli.Result consumed = cli.run(CONSOLE_CONSUMER, "--bootstrap-server", cli.bootstrap(),
                "--topic", "cli-console", "--partition", "0", "--from-beginning", "--max-messages", "20",
                "--formatter-property", "print.key=true", "--formatter-property", "key.separator=:",
                "--timeout-ms", "30000");
        assertEquals(0, consumed.exitCode(), consumed.toString());
        assertEquals(lines, consumed.lines(), consumed.toString());
        assertTrue(consumed.err().contains("Processed a total of 20 messages"), consumed.toString());

        KafkaCli.Result firstFive = cli.run(CONSOLE_CONSUMER, "--bootstrap-server", cli.bootstrap(),
                "--topic", "cli-console", "--partition", "0", "--from-beginning", "--max-messages", "5",
                "--timeout-ms", "30000");
        assertEquals(0, firstFive.exitCode(), firstFive.toString());
        assertEquals(lines.subList(0, 5).stream().map(l -> l.substring(l.indexOf(':') + 1)).toList(),
                firstFive.lines(), firstFive.toString());
        assertTrue(firstFive.err().contains("Processed a total of 5 messages"), firstFive.toString());
    }

    @Test
    void getOffsetShell_latestEarliestMaxTimestampAndByTimestamp() throws Exception {
        String topic = "cli-offsets";
        cli.admin().createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
        // Partition 0: 5 records, the largest timestamp on the third; partition 1: none; partition 2: 3.
        long[] p0 = {1_000, 2_000, 9_000, 3_000, 4_000};
        long[] p2 = {5_000, 6_000, 7_000};
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cli.bootstrap(), ProducerConfig.ACKS_CONFIG, "all"),
                new StringSerializer(), new StringSerializer())) {
            for (long ts : p0) {
                producer.send(new ProducerRecord<>(topic, 0, ts, null, "v" + ts)).get(30, TimeUnit.SECONDS);
            }
            for (long ts : p2) {
                producer.send(new ProducerRecord<>(topic, 2, ts, null, "v" + ts)).get(30, TimeUnit.SECONDS);
            }
        }
        assertEquals(List.of(topic + ":0:5", topic + ":1:0", topic + ":2:3"), offsets(topic));
        assertEquals(List.of(topic + ":0:5", topic + ":1:0", topic + ":2:3"), offsets(topic, "--time", "-1"));
        assertEquals(List.of(topic + ":0:0", topic + ":1:0", topic + ":2:0"), offsets(topic, "--time", "-2"));
        // Max timestamp (-3): the offset of the record with the largest timestamp; an empty partition has none.
        assertEquals(List.of(topic + ":0:2", topic + ":2:2"), offsets(topic, "--time", "-3"));
        // By timestamp: the first offset whose timestamp is at least the one given; none past the end.
        assertEquals(List.of(topic + ":0:2", topic + ":2:1"), offsets(topic, "--time", "5500"));
        assertEquals(List.of(topic + ":0:0"), offsets(topic, "--time", "1000", "--partitions", "0"),
                "filtered to partition 0");
    }

    private static List<String> offsets(String topic, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("--bootstrap-server", cli.bootstrap(), "--topic", topic));
        args.addAll(List.of(more));
        KafkaCli.Result r = cli.run(GET_OFFSET_SHELL, args.toArray(String[]::new));
        assertEquals(0, r.exitCode(), r.toString());
        return r.lines();
    }

    @Test
    void consumerGroupCommand_describeAndResetOffsets() throws Exception {
        String topic = "cli-groups";
        KafkaCli.Result created = topics("--create", "--topic", topic, "--partitions", "2");
        assertEquals(0, created.exitCode(), created.toString());
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            lines.add("value " + i);
        }
        KafkaCli.Result produced = cli.runWithInput(String.join("\n", lines) + "\n", CONSOLE_PRODUCER,
                "--bootstrap-server", cli.bootstrap(), "--topic", topic);
        assertEquals(0, produced.exitCode(), produced.toString());

        // A console consumer in a group reads everything and commits its position.
        KafkaCli.Result consumed = cli.run(CONSOLE_CONSUMER, "--bootstrap-server", cli.bootstrap(),
                "--topic", topic, "--group", "cli-group", "--from-beginning", "--max-messages", "10",
                "--timeout-ms", "30000");
        assertEquals(0, consumed.exitCode(), consumed.toString());
        assertEquals(new java.util.TreeSet<>(lines), new java.util.TreeSet<>(consumed.lines()), consumed.toString());

        KafkaCli.Result described = cli.run(CONSUMER_GROUPS, "--bootstrap-server", cli.bootstrap(),
                "--describe", "--group", "cli-group");
        assertEquals(0, described.exitCode(), described.toString());
        assertTrue(described.out().contains(topic), described.toString());
        long totalLag = described.lines().stream().filter(l -> l.startsWith("cli-group"))
                .map(l -> l.trim().split("\\s+")).mapToLong(f -> Long.parseLong(f[5])).sum();
        assertEquals(0, totalLag, "everything consumed and committed: " + described);

        KafkaCli.Result reset = cli.run(CONSUMER_GROUPS, "--bootstrap-server", cli.bootstrap(),
                "--reset-offsets", "--group", "cli-group", "--topic", topic, "--to-earliest", "--execute");
        assertEquals(0, reset.exitCode(), reset.toString());
        KafkaCli.Result after = cli.run(CONSUMER_GROUPS, "--bootstrap-server", cli.bootstrap(),
                "--describe", "--group", "cli-group");
        long lagAfter = after.lines().stream().filter(l -> l.startsWith("cli-group"))
                .map(l -> l.trim().split("\\s+")).mapToLong(f -> Long.parseLong(f[5])).sum();
        assertEquals(10, lagAfter, "reset to earliest: all 10 records are lag again: " + after);
    }

    @Test
    void configCommand_alterAndDescribeTopicConfigs() throws Exception {
        String topic = "cli-configs";
        assertEquals(0, topics("--create", "--topic", topic, "--partitions", "1").exitCode());
        KafkaCli.Result altered = cli.run(CONFIGS, "--bootstrap-server", cli.bootstrap(), "--alter",
                "--entity-type", "topics", "--entity-name", topic, "--add-config", "retention.ms=3600000,retention.bytes=1048576");
        assertEquals(0, altered.exitCode(), altered.toString());
        KafkaCli.Result described = cli.run(CONFIGS, "--bootstrap-server", cli.bootstrap(), "--describe",
                "--entity-type", "topics", "--entity-name", topic);
        assertEquals(0, described.exitCode(), described.toString());
        assertTrue(described.out().contains("retention.ms=3600000"), described.toString());
        assertTrue(described.out().contains("retention.bytes=1048576"), described.toString());

        KafkaCli.Result removed = cli.run(CONFIGS, "--bootstrap-server", cli.bootstrap(), "--alter",
                "--entity-type", "topics", "--entity-name", topic, "--delete-config", "retention.bytes");
        assertEquals(0, removed.exitCode(), removed.toString());
        KafkaCli.Result after = cli.run(CONFIGS, "--bootstrap-server", cli.bootstrap(), "--describe",
                "--entity-type", "topics", "--entity-name", topic);
        assertTrue(after.out().contains("retention.ms=3600000"), after.toString());
        assertTrue(!after.out().contains("retention.bytes=1048576"), after.toString());

        // A bad value is refused by the broker, and the tool says which config.
        KafkaCli.Result bad = cli.run(CONFIGS, "--bootstrap-server", cli.bootstrap(), "--alter",
                "--entity-type", "topics", "--entity-name", topic, "--add-config", "retention.ms=soon");
        assertTrue(bad.exitCode() != 0, bad.toString());
        assertTrue((bad.out() + bad.err()).contains("retention.ms"), bad.toString());
    }

    /** kafka-configs' SCRAM credentials (issue 20): the tool salts the password and calls AlterUserScramCredentials. */
    @Test
    void configCommand_scramCredentials() throws Exception {
        String bootstrap = cli.bootstrap();
        // Both mechanisms in one call: one request naming the user twice, which Kafka 4.3's controller refuses
        // too (DUPLICATE_RESOURCE, checked against Kafka in ApiConformanceTest): one mechanism per call.
        KafkaCli.Result both = cli.run(CONFIGS, "--bootstrap-server", bootstrap, "--alter", "--entity-type", "users",
                "--entity-name", "cli-alice", "--add-config",
                "SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=alice-secret]");
        assertTrue(both.exitCode() != 0 && (both.out() + both.err()).contains("cannot be altered twice"),
                both.toString());
        for (String config : List.of("SCRAM-SHA-256=[iterations=8192,password=alice-secret]",
                "SCRAM-SHA-512=[password=alice-secret]")) {
            KafkaCli.Result added = cli.run(CONFIGS, "--bootstrap-server", bootstrap, "--alter", "--entity-type",
                    "users", "--entity-name", "cli-alice", "--add-config", config);
            assertEquals(0, added.exitCode(), added.toString());
        }
        var described = cli.admin().describeUserScramCredentials(List.of("cli-alice")).description("cli-alice")
                .get(30, TimeUnit.SECONDS).credentialInfos();
        assertEquals(java.util.Set.of(new org.apache.kafka.clients.admin.ScramCredentialInfo(
                org.apache.kafka.clients.admin.ScramMechanism.SCRAM_SHA_256, 8192),
                new org.apache.kafka.clients.admin.ScramCredentialInfo(
                        org.apache.kafka.clients.admin.ScramMechanism.SCRAM_SHA_512, 4096)),
                java.util.Set.copyOf(described), described.toString());

        KafkaCli.Result listed = cli.run(CONFIGS, "--bootstrap-server", bootstrap, "--describe", "--entity-type",
                "users", "--entity-name", "cli-alice");
        assertEquals(0, listed.exitCode(), listed.toString());
        assertTrue(listed.out().contains("SCRAM credential configs for user-principal 'cli-alice' are "), listed.toString());
        assertTrue(listed.out().contains("SCRAM-SHA-256=iterations=8192"), listed.toString());
        assertTrue(listed.out().contains("SCRAM-SHA-512=iterations=4096"), listed.toString());
        KafkaCli.Result removed = cli.run(CONFIGS, "--bootstrap-server", bootstrap, "--alter", "--entity-type",
                "users", "--entity-name", "cli-alice", "--delete-config", "SCRAM-SHA-512");
        assertEquals(0, removed.exitCode(), removed.toString());
        assertEquals(1, cli.admin().describeUserScramCredentials(List.of("cli-alice")).description("cli-alice")
                .get(30, TimeUnit.SECONDS).credentialInfos().size());

        // Too many iterations (the tool itself refuses too few): the broker's UNACCEPTABLE_CREDENTIAL, reported.
        KafkaCli.Result many = cli.run(CONFIGS, "--bootstrap-server", bootstrap, "--alter", "--entity-type", "users",
                "--entity-name", "cli-bob", "--add-config", "SCRAM-SHA-256=[iterations=20000,password=x]");
        assertTrue(many.exitCode() != 0, many.toString());
        assertTrue((many.out() + many.err()).contains("Too many iterations"), many.toString());
    }

    @Test
    void configCommand_dynamicBrokerConfigs() throws Exception {
        String bootstrap = cli.bootstrap();
        KafkaCli.Result altered = cli.run(CONFIGS, "--bootstrap-server", bootstrap, "--alter",
                "--entity-type", "brokers", "--entity-default", "--add-config", "log.retention.ms=7200000");
        assertEquals(0, altered.exitCode(), altered.toString());
        KafkaCli.Result described = cli.run(CONFIGS, "--bootstrap-server", bootstrap, "--describe",
                "--entity-type", "brokers", "--entity-default");
        assertEquals(0, described.exitCode(), described.toString());
        assertTrue(described.out().contains("log.retention.ms=7200000"), described.toString());

        KafkaCli.Result own = cli.run(CONFIGS, "--bootstrap-server", bootstrap, "--alter",
                "--entity-type", "brokers", "--entity-name", "1", "--add-config", "message.max.bytes=2000000");
        assertEquals(0, own.exitCode(), own.toString());
        KafkaCli.Result ownDescribed = cli.run(CONFIGS, "--bootstrap-server", bootstrap, "--describe",
                "--entity-type", "brokers", "--entity-name", "1");
        assertTrue(ownDescribed.out().contains("message.max.bytes=2000000"), ownDescribed.toString());

        // A key that cannot change at run time is refused, and the tool shows the broker's reason.
        KafkaCli.Result refused = cli.run(CONFIGS, "--bootstrap-server", bootstrap, "--alter",
                "--entity-type", "brokers", "--entity-name", "1", "--add-config", "num.partitions=3");
        assertTrue(refused.exitCode() != 0, refused.toString());
        assertTrue((refused.out() + refused.err()).contains("num.partitions"), refused.toString());

        assertEquals(0, cli.run(CONFIGS, "--bootstrap-server", bootstrap, "--alter", "--entity-type", "brokers",
                "--entity-default", "--delete-config", "log.retention.ms").exitCode());
        assertEquals(0, cli.run(CONFIGS, "--bootstrap-server", bootstrap, "--alter", "--entity-type", "brokers",
                "--entity-name", "1", "--delete-config", "message.max.bytes").exitCode());
        KafkaCli.Result after = cli.run(CONFIGS, "--bootstrap-server", bootstrap, "--describe",
                "--entity-type", "brokers", "--entity-default");
        assertTrue(!after.out().contains("log.retention.ms=7200000"), after.toString());
    }
}
