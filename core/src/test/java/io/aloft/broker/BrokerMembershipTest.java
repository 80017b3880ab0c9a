package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsResponse;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster's membership changing under data (issue 13, placement): brokers in racks spread each
 * topic evenly over the racks; a replication factor above 1 is served as one replica; a broker that
 * joins later receives new partitions and can be moved to; a broker is removed by moving its
 * partitions away and stopping it, and nothing acknowledged is lost on the way. And brokers dying
 * around moves: a target killed mid-move, a fenced target refused, a controller without quorum
 * answering REQUEST_TIMED_OUT within the request's timeout. Brokers are child processes on 127.0.0.1 ({@link TestCluster}).
 */
class BrokerMembershipTest {
    private static final int EACH = 100;

    @TempDir
    Path dir;

    @Test
    void racksSpreadTopics_joiningBrokerReceivesPartitions_removedBrokerLosesNothing() throws Exception {
        Map<Integer, Map<String, String>> racks = Map.of(1, Map.of("broker.rack", "a"),
                2, Map.of("broker.rack", "a"), 3, Map.of("broker.rack", "b"));
        // A long session: on a loaded machine a broker missing heartbeats would be fenced and its
        // partitions moved, which is not what this test is about.
        try (TestCluster cluster = TestCluster.start(dir, 3, 0, Map.of("broker.session.timeout.ms", "60000"), racks);
                Admin admin = cluster.admin(1)) {
            // Metadata gives every broker's rack.
            Map<Integer, String> rackOf = rackOf(admin);
            assertEquals(Map.of(1, "a", 2, "a", 3, "b"), rackOf);

            // Rack a has two brokers, rack b one: the topic still goes half to each rack.
            admin.createTopics(List.of(new NewTopic("spread", 6, (short) 1))).all().get(60, TimeUnit.SECONDS);
            assertEquals(Map.of("a", 3, "b", 3), perRack(cluster.partitions("spread"), rackOf));

            // A replication factor above 1 is accepted and served as one replica (durability comes from
            // the WAL and object storage, not copies): Metadata shows the leader as sole replica and ISR.
            admin.createTopics(List.of(new NewTopic("replicated", 2, (short) 3))).all().get(60, TimeUnit.SECONDS);
            for (TopicPartitionInfo p : cluster.partitions("replicated")) {
                assertEquals(List.of(p.leader()), p.replicas(), p.toString());
                assertEquals(List.of(p.leader()), p.isr(), p.toString());
            }

            Map<TopicPartition, Integer> acked = new HashMap<>();
            try (KafkaProducer<String, String> producer = producer(cluster.bootstrap(2))) {
                produce(producer, "spread", 6, acked);

                // A broker joining later (rack b) takes new partitions, as the least loaded.
                cluster.addBroker(4, Map.of("broker.rack", "b"));
                rackOf = rackOf(admin);
                assertEquals("b", rackOf.get(4));
                admin.createTopics(List.of(new NewTopic("fresh", 2, (short) 1))).all().get(60, TimeUnit.SECONDS);
                assertTrue(cluster.partitions("fresh").stream().anyMatch(p -> p.leader().id() == 4),
                        "the new broker leads a partition of the new topic: " + cluster.partitions("fresh"));
                assertEquals(Map.of("a", 1, "b", 1), perRack(cluster.partitions("fresh"), rackOf));

                // ... and existing partitions can be moved to it.
                int moved = cluster.partitions("spread").stream().filter(p -> p.leader().id() == 3).findFirst()
                        .orElseThrow().partition();
                reassign(admin, new TopicPartition("spread", moved), 4);
                cluster.awaitLeader("spread", moved, 4, "moved");
                produce(producer, "spread", 6, acked);
                produce(producer, "fresh", 2, acked);

                // Removal: every partition moved off broker 4, then it stops gracefully.
                for (String topic : List.of("spread", "fresh")) {
                    for (TopicPartitionInfo p : cluster.partitions(topic)) {
                        if (p.leader().id() == 4) {
                            reassign(admin, new TopicPartition(topic, p.partition()), 3);
                            cluster.awaitLeader(topic, p.partition(), 3, "moved");
                        }
                    }
                }
                assertEquals(143, cluster.stop(4), "broker 4's exit status: the JVM's after SIGTERM (128 + 15)");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (rackOf(admin).containsKey(4)) {
                    assertTrue(System.nanoTime() < deadline, "broker 4 leaves the cluster's metadata");
                    TimeUnit.MILLISECONDS.sleep(100);
                }
                produce(producer, "spread", 6, acked);
                produce(producer, "fresh", 2, acked);
            }
            assertEveryAcknowledgedRecordOnceInOrder(cluster.bootstrap(1), acked);
        }
    }

    @Test
    void brokersDyingAroundMoves_targetDiesMidMove_fencedRefused_noQuorumTimesOut() throws Exception {
        try (TestCluster cluster = TestCluster.start(dir, 3, 0, Map.of("broker.session.timeout.ms", "4000",
                "broker.heartbeat.interval.ms", "500"))) {
            try (Admin admin = cluster.admin(1)) {
                admin.createTopics(List.of(new NewTopic("target", 3, (short) 1))).all().get(60, TimeUnit.SECONDS);
            }
            int moving = cluster.partitions("target").stream().filter(p -> p.leader().id() == 1).findFirst()
                    .orElseThrow().partition();
            Map<TopicPartition, Integer> acked = new HashMap<>();
            try (KafkaProducer<String, String> producer = producer(cluster.bootstrap(2))) {
                produce(producer, "target", 3, acked);
            }

            // The target dies right after the controller made the move: broker 1 still hands the
            // partition over (closing it, its WAL data uploaded), and once broker 3 is fenced the
            // partition moves on to a live broker with everything acknowledged before the move.
            try (Admin admin = cluster.admin(1)) {
                reassign(admin, new TopicPartition("target", moving), 3);
                cluster.kill(3);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (admin.describeCluster().nodes().get(60, TimeUnit.SECONDS).stream().anyMatch(n -> n.id() == 3)) {
                    assertTrue(System.nanoTime() < deadline, "broker 3 fenced (out of DescribeCluster) within 60 s");
                    TimeUnit.MILLISECONDS.sleep(100);
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (cluster.leader("target", moving) == 3) {
                assertTrue(System.nanoTime() < deadline, "the partition leaves the fenced broker within 30 s");
                TimeUnit.MILLISECONDS.sleep(100);
            }
            // Only the moved partition is checked: broker 3's own partition had acknowledged data in its
            // WAL alone, which another broker cannot recover yet (failover, the next issue).
            Map<TopicPartition, Integer> moved = Map.of(new TopicPartition("target", moving),
                    acked.get(new TopicPartition("target", moving)));
            try (KafkaProducer<String, String> producer = producer(cluster.bootstrap(1))) {
                Map<TopicPartition, Integer> more = new HashMap<>(moved);
                produceTo(producer, new TopicPartition("target", moving), more);
                assertEveryAcknowledgedRecordOnceInOrder(cluster.bootstrap(1), more);
            }

            // A fenced broker is no target.
            int onBroker1 = cluster.partitions("target").stream().filter(p -> p.leader().id() == 1).findFirst()
                    .orElseThrow().partition();
            try (Admin admin = cluster.admin(1)) {
                ExecutionException fenced = assertThrows(ExecutionException.class, () -> admin
                        .alterPartitionReassignments(Map.of(new TopicPartition("target", onBroker1),
                                Optional.of(new NewPartitionReassignment(List.of(3))))).all().get(60, TimeUnit.SECONDS));
                assertInstanceOf(InvalidReplicaAssignmentException.class, fenced.getCause());
                assertTrue(fenced.getCause().getMessage().contains("fenced"), fenced.getCause().getMessage());
            }
            assertEquals(1, cluster.leader("target", onBroker1), "the refused move left the partition in place");

            // Broker 2 killed too: broker 1's voter is alone, the quorum cannot commit. Broker 1 still
            // sees broker 2 active (nothing could fence it), so only the controller's silence can
            // stop the move: the answer is REQUEST_TIMED_OUT once the request's timeoutMs is spent.
            cluster.kill(2);
            AlterPartitionReassignmentsRequestData data = new AlterPartitionReassignmentsRequestData()
                    .setTimeoutMs(1_000).setTopics(List.of(new ReassignableTopic().setName("target").setPartitions(
                            List.of(new ReassignablePartition().setPartitionIndex(onBroker1).setReplicas(List.of(2))))));
            try (RawKafkaClient raw = new RawKafkaClient(cluster.bootstrap(1))) {
                AlterPartitionReassignmentsResponse r = raw.send(
                        new AlterPartitionReassignmentsRequest.Builder(data).build((short) 0));
                assertEquals(Errors.REQUEST_TIMED_OUT.code(), r.data().errorCode(), r.data().toString());
                assertEquals(Errors.REQUEST_TIMED_OUT.code(),
                        r.data().responses().get(0).partitions().get(0).errorCode(), r.data().toString());
            }
        }
    }

    private static Map<Integer, String> rackOf(Admin admin) throws Exception {
        return admin.describeCluster().nodes().get(60, TimeUnit.SECONDS).stream()
                .collect(Collectors.toMap(Node::id, n -> n.rack() == null ? "-" : n.rack()));
    }

    private static Map<String, Integer> perRack(List<TopicPartitionInfo> partitions, Map<Integer, String> rackOf) {
        Map<String, Integer> counts = new TreeMap<>();
        partitions.forEach(p -> counts.merge(rackOf.get(p.leader().id()), 1, Integer::sum));
        return counts;
    }

    private static void reassign(Admin admin, TopicPartition tp, int broker) throws Exception {
        admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(broker)))))
                .all().get(60, TimeUnit.SECONDS);
    }

    private static KafkaProducer<String, String> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    /** {@link #EACH} records to each partition, values numbering on from what it already has; all acknowledged. */
    private static void produce(KafkaProducer<String, String> producer, String topic, int partitions,
            Map<TopicPartition, Integer> acked) throws Exception {
        List<java.util.concurrent.Future<?>> sends = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            TopicPartition tp = new TopicPartition(topic, p);
            int from = acked.getOrDefault(tp, 0);
            for (int i = from; i < from + EACH; i++) {
                sends.add(producer.send(new ProducerRecord<>(topic, p, null, Integer.toString(i))));
            }
        }
        for (java.util.concurrent.Future<?> f : sends) {
            f.get(60, TimeUnit.SECONDS);
        }
        for (int p = 0; p < partitions; p++) {
            acked.merge(new TopicPartition(topic, p), EACH, Integer::sum);
        }
    }

    /** {@link #EACH} more records to one partition, numbering on; all acknowledged. */
    private static void produceTo(KafkaProducer<String, String> producer, TopicPartition tp,
            Map<TopicPartition, Integer> acked) throws Exception {
        int from = acked.getOrDefault(tp, 0);
        for (int i = from; i < from + EACH; i++) {
            producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), null, Integer.toString(i)))
                    .get(60, TimeUnit.SECONDS);
        }
        acked.merge(tp, EACH, Integer::sum);
    }

    private static void assertEveryAcknowledgedRecordOnceInOrder(String bootstrap, Map<TopicPartition, Integer> acked) {
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        Map<TopicPartition, List<Integer>> values = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.assign(acked.keySet());
            consumer.seekToBeginning(acked.keySet());
            long total = acked.values().stream().mapToLong(Integer::longValue).sum();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            long read = 0;
            while (read < total && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.computeIfAbsent(new TopicPartition(r.topic(), r.partition()), k -> new ArrayList<>())
                            .add(Integer.parseInt(r.value()));
                    read++;
                }
            }
            assertEquals(acked.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
                    e -> (long) e.getValue())), consumer.endOffsets(acked.keySet()), "end offsets");
        }
        acked.forEach((tp, n) -> {
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                expected.add(i);
            }
            assertEquals(expected, values.get(tp), tp + ": every acknowledged record once, in order");
        });
    }
}
