package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Topic administration with the real kafka-clients Admin against one broker. */
class AdminTopicsTest {
    @TempDir
    static Path dir;
    static TestBroker broker;
    static Admin admin;

    @BeforeAll
    static void start() throws Exception {
        broker = new TestBroker(dir);
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

    @Test
    void createDescribeListDelete() throws Exception {
        admin.createTopics(List.of(new NewTopic("orders", 3, (short) 1)
                .configs(Map.of("retention.ms", "3600000")))).all().get(30, TimeUnit.SECONDS);
        assertTrue(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains("orders"));
        TopicDescription d = admin.describeTopics(List.of("orders")).allTopicNames().get(30, TimeUnit.SECONDS)
                .get("orders");
        assertEquals(3, d.partitions().size());
        d.partitions().forEach(p -> assertEquals(broker.broker().nodeId(), p.leader().id()));
        assertFalse(d.topicId().toString().isEmpty());

        ExecutionException dup = assertThrows(ExecutionException.class, () -> admin.createTopics(
                List.of(new NewTopic("orders", 1, (short) 1))).all().get(30, TimeUnit.SECONDS));
        assertInstanceOf(TopicExistsException.class, dup.getCause());

        admin.deleteTopics(List.of("orders")).all().get(30, TimeUnit.SECONDS);
        assertFalse(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains("orders"));
        ExecutionException gone = assertThrows(ExecutionException.class,
                () -> admin.deleteTopics(List.of("orders")).all().get(30, TimeUnit.SECONDS));
        assertInstanceOf(UnknownTopicOrPartitionException.class, gone.getCause());
    }

    @Test
    void badTopicsAreRefusedWithKafkaErrors() {
        ExecutionException badName = assertThrows(ExecutionException.class, () -> admin.createTopics(
                List.of(new NewTopic("bad/name", 1, (short) 1))).all().get(30, TimeUnit.SECONDS));
        assertInstanceOf(InvalidTopicException.class, badName.getCause());
        ExecutionException badConfig = assertThrows(ExecutionException.class, () -> admin.createTopics(
                List.of(new NewTopic("t-bad-config", 1, (short) 1).configs(Map.of("no.such.config", "1"))))
                .all().get(30, TimeUnit.SECONDS));
        assertInstanceOf(InvalidConfigurationException.class, badConfig.getCause());
    }

    @Test
    void validateOnlyCreatesNothing() throws Exception {
        admin.createTopics(List.of(new NewTopic("dry-run", 2, (short) 1)), new CreateTopicsOptions().validateOnly(true))
                .all().get(30, TimeUnit.SECONDS);
        assertFalse(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains("dry-run"));
    }

    @Test
    void defaultPartitionsAndReplicationFactor() throws Exception {
        admin.createTopics(List.of(new NewTopic("defaults", java.util.Optional.empty(), java.util.Optional.empty())))
                .all().get(30, TimeUnit.SECONDS);
        TopicDescription d = admin.describeTopics(Set.of("defaults")).allTopicNames().get(30, TimeUnit.SECONDS)
                .get("defaults");
        assertEquals(1, d.partitions().size());
    }

    @Test
    void createPartitionsGrowsOnlyUpwards() throws Exception {
        admin.createTopics(List.of(new NewTopic("growing", 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        admin.createPartitions(Map.of("growing", org.apache.kafka.clients.admin.NewPartitions.increaseTo(5)))
                .all().get(30, TimeUnit.SECONDS);
        assertEquals(5, admin.describeTopics(List.of("growing")).allTopicNames().get(30, TimeUnit.SECONDS)
                .get("growing").partitions().size());
        ExecutionException shrink = assertThrows(ExecutionException.class, () -> admin.createPartitions(
                Map.of("growing", org.apache.kafka.clients.admin.NewPartitions.increaseTo(3)))
                .all().get(30, TimeUnit.SECONDS));
        assertInstanceOf(org.apache.kafka.common.errors.InvalidPartitionsException.class, shrink.getCause());
        ExecutionException unknown = assertThrows(ExecutionException.class, () -> admin.createPartitions(
                Map.of("no-such-topic", org.apache.kafka.clients.admin.NewPartitions.increaseTo(3)))
                .all().get(30, TimeUnit.SECONDS));
        assertInstanceOf(UnknownTopicOrPartitionException.class, unknown.getCause());
    }

    @Test
    void describeClusterShowsThisBroker() throws Exception {
        var cluster = admin.describeCluster();
        assertEquals(broker.broker().clusterId(), cluster.clusterId().get(30, TimeUnit.SECONDS));
        var nodes = cluster.nodes().get(30, TimeUnit.SECONDS);
        assertEquals(1, nodes.size());
        assertEquals(broker.broker().nodeId(), nodes.iterator().next().id());
        assertEquals(broker.broker().port("PLAINTEXT"), nodes.iterator().next().port());
    }

    @Test
    void internalOffsetsTopicCannotBeDeleted() throws Exception {
        // Made on the first coordinator lookup, as in Kafka: reading a group's offsets looks one up (and
        // retries COORDINATOR_NOT_AVAILABLE until the topic is there).
        admin.listConsumerGroupOffsets("any").partitionsToOffsetAndMetadata().get(60, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!admin.listTopics(new org.apache.kafka.clients.admin.ListTopicsOptions().listInternal(true)).names()
                .get(30, TimeUnit.SECONDS).contains("__consumer_offsets")) {
            assertTrue(System.nanoTime() < deadline, "__consumer_offsets was created by the lookup");
            Thread.sleep(100);
        }
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> admin.deleteTopics(List.of("__consumer_offsets")).all().get(30, TimeUnit.SECONDS));
        assertInstanceOf(InvalidTopicException.class, e.getCause());
    }
}
