package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.command.ReassignPartition;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three broker processes with the controller quorum embedded in them, one object directory: topics
 * spread over the brokers, every broker gives the same Metadata, kafka-clients bootstrapped on one
 * broker reach every partition, and a broker asked for a partition it does not serve answers
 * NOT_LEADER_OR_FOLLOWER with the KIP-951 leader hint. A partition moved by the controller between live
 * brokers is closed by the old one within seconds and opened by the new one only after that, so no
 * acknowledged record is lost, also when moves of one partition race each other.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterTest {
    private static final int BROKERS = 3;
    private static final int PARTITIONS = 6;

    @TempDir
    static Path dir;
    private static TestCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = TestCluster.start(dir, BROKERS, 0, Map.of("offsets.topic.num.partitions", "6"));
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** First: placement evens out the cluster's whole load, which the other tests' topics and moves change. */
    @Test
    @Order(1)
    void newTopic_partitionsSpreadOverEveryBroker_metadataIdenticalFromEveryBroker() throws Exception {
        try (Admin admin = cluster.admin(1)) {
            admin.createTopics(List.of(new NewTopic("spread", PARTITIONS, (short) 1))).all().get(60, TimeUnit.SECONDS);
            TopicDescription d = admin.describeTopics(List.of("spread")).allTopicNames().get(60, TimeUnit.SECONDS)
                    .get("spread");
            Map<Integer, Integer> perBroker = new TreeMap<>();
            for (TopicPartitionInfo p : d.partitions()) {
                perBroker.merge(p.leader().id(), 1, Integer::sum);
                assertEquals(List.of(p.leader()), p.replicas(), "sole replica of " + p);
                assertEquals(List.of(p.leader()), p.isr(), "ISR of " + p);
            }
            assertEquals(Map.of(1, 2, 2, 2, 3, 2), perBroker, "partitions per broker");
        }
        String first = null;
        for (int id = 1; id <= BROKERS; id++) {
            awaitTopicKnown(id, "spread"); // each broker learns of it from the controller's change feed
            String view = metadataView(id, "spread");
            if (first == null) {
                first = view;
            } else {
                assertEquals(first, view, "Metadata from broker " + id + " differs from broker 1's");
            }
        }
        assertTrue(first.contains("brokers=[1, 2, 3]"), first);
    }

    @Test
    void producerAndGroupBootstrappedOnOneBroker_everyRecordOnceInOrder() throws Exception {
        String topic = "orders";
        int perPartition = 100;
        try (Admin admin = cluster.admin(2)) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap(2));
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        pp.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        pp.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp, new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < perPartition * PARTITIONS; i++) {
                producer.send(new ProducerRecord<>(topic, i % PARTITIONS, "k" + i, Integer.toString(i)));
            }
            producer.flush();
        }

        String group = "cluster-group";
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap(3));
        cp.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Map<Integer, List<Integer>> seen = new TreeMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            int count = 0;
            while (count < perPartition * PARTITIONS) {
                assertTrue(System.nanoTime() < deadline, "consumed " + count + " records within 90 s: " + seen);
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    seen.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(Integer.parseInt(r.value()));
                    count++;
                }
            }
            consumer.commitSync(Duration.ofSeconds(60));
        }
        for (int p = 0; p < PARTITIONS; p++) {
            List<Integer> expected = new ArrayList<>();
            for (int i = p; i < perPartition * PARTITIONS; i += PARTITIONS) {
                expected.add(i);
            }
            assertEquals(expected, seen.get(p), "partition " + p + ": every record once, in order");
        }

        // The group's coordinator is the broker serving its __consumer_offsets partition.
        try (Admin admin = cluster.admin(1)) {
            int offsetsPartition = Math.abs(group.hashCode()) % 6;
            TopicDescription offsets = admin.describeTopics(List.of("__consumer_offsets")).allTopicNames()
                    .get(60, TimeUnit.SECONDS).get("__consumer_offsets");
            Set<Integer> leaders = new TreeSet<>();
            offsets.partitions().forEach(p -> leaders.add(p.leader().id()));
            assertEquals(Set.of(1, 2, 3), leaders, "__consumer_offsets spread over every broker");
            int leader = offsets.partitions().get(offsetsPartition).leader().id();
            assertEquals(leader, admin.describeConsumerGroups(List.of(group)).all().get(60, TimeUnit.SECONDS)
                    .get(group).coordinator().id(), "coordinator of " + group);
            assertEquals(perPartition, admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                    .get(60, TimeUnit.SECONDS).get(new TopicPartition(topic, 0)).offset());
        }
    }

    @Test
    void produceAndFetchToBrokerNotServingPartition_notLeaderWithLeaderHint() throws Exception {
        String topic = "hints";
        Uuid topicId;
        int leader;
        try (Admin admin = cluster.admin(1)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(60, TimeUnit.SECONDS)
                    .get(topic);
            topicId = d.topicId();
            leader = d.partitions().get(0).leader().id();
        }
        int wrong = leader % BROKERS + 1;
        awaitTopicKnown(wrong, topic);
        try (RawKafkaClient client = new RawKafkaClient(cluster.bootstrap(wrong))) {
            for (short v = 9; v <= ApiKeys.PRODUCE.latestVersion(); v++) {
                ProduceResponseData r = ((ProduceResponse) client.send(produce(topic, topicId, v))).data();
                ProduceResponseData.PartitionProduceResponse p = r.responses().iterator().next()
                        .partitionResponses().get(0);
                assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), p.errorCode(), "Produce v" + v);
                if (v >= 10) {
                    assertEquals(leader, p.currentLeader().leaderId(), "Produce v" + v + " CurrentLeader");
                    assertTrue(p.currentLeader().leaderEpoch() >= 0, "Produce v" + v + " leader epoch");
                    assertEquals(1, r.nodeEndpoints().size(), "Produce v" + v + " NodeEndpoints");
                    ProduceResponseData.NodeEndpoint n = r.nodeEndpoints().iterator().next();
                    assertEquals(List.of(leader, "127.0.0.1", cluster.port(leader)),
                            List.of(n.nodeId(), n.host(), n.port()), "Produce v" + v + " endpoint");
                } else {
                    assertEquals(-1, p.currentLeader().leaderId(), "Produce v" + v + " has no CurrentLeader");
                    assertTrue(r.nodeEndpoints().isEmpty(), "Produce v" + v + " has no NodeEndpoints");
                }
            }
            for (short v = 15; v <= ApiKeys.FETCH.latestVersion(); v++) {
                FetchResponseData r = ((FetchResponse) client.send(fetch(topicId, v))).data();
                FetchResponseData.PartitionData p = r.responses().get(0).partitions().get(0);
                assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), p.errorCode(), "Fetch v" + v);
                if (v >= 16) {
                    assertEquals(leader, p.currentLeader().leaderId(), "Fetch v" + v + " CurrentLeader");
                    assertEquals(1, r.nodeEndpoints().size(), "Fetch v" + v + " NodeEndpoints");
                    FetchResponseData.NodeEndpoint n = r.nodeEndpoints().iterator().next();
                    assertEquals(List.of(leader, "127.0.0.1", cluster.port(leader)),
                            List.of(n.nodeId(), n.host(), n.port()), "Fetch v" + v + " endpoint");
                } else {
                    assertEquals(-1, p.currentLeader().leaderId(), "Fetch v" + v + " has no CurrentLeader");
                    assertTrue(r.nodeEndpoints().isEmpty(), "Fetch v" + v + " has no NodeEndpoints");
                }
            }
        }
        // The leader itself takes the same Produce.
        try (RawKafkaClient client = new RawKafkaClient(cluster.bootstrap(leader))) {
            ProduceResponseData r = ((ProduceResponse) client.send(produce(topic, topicId,
                    ApiKeys.PRODUCE.latestVersion()))).data();
            assertEquals(Errors.NONE.code(), r.responses().iterator().next().partitionResponses().get(0).errorCode());
        }
        assertNotEquals(leader, wrong);
    }

    @Test
    void partitionReassignedAway_oldBrokerClosesItsLogAndHintsTheNewLeader() throws Exception {
        String topic = "moving";
        Uuid topicId;
        int from;
        try (Admin admin = cluster.admin(1)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(60, TimeUnit.SECONDS)
                    .get(topic);
            topicId = d.topicId();
            from = d.partitions().get(0).leader().id();
        }
        int to = from % BROKERS + 1;
        try (RawKafkaClient client = new RawKafkaClient(cluster.bootstrap(from))) {
            ProduceResponseData r = ((ProduceResponse) client.send(produce(topic, topicId,
                    ApiKeys.PRODUCE.latestVersion()))).data();
            assertEquals(Errors.NONE.code(), r.responses().iterator().next().partitionResponses().get(0).errorCode(),
                    "the log is open on broker " + from);
        }
        try (ControllerClient controller = cluster.controller()) {
            controller.submit(new ReassignPartition(topic, 0, to)).get(60, TimeUnit.SECONDS);
        }
        // Within seconds, not at the next 30 s maintenance pass.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.readString(cluster.logFile(from)).contains("No longer serving " + topic + "-0")) {
            assertTrue(System.nanoTime() < deadline, "broker " + from + " closed " + topic + "-0 within 10 s");
            TimeUnit.MILLISECONDS.sleep(100);
        }
        try (RawKafkaClient client = new RawKafkaClient(cluster.bootstrap(from))) {
            ProduceResponseData r = ((ProduceResponse) client.send(produce(topic, topicId,
                    ApiKeys.PRODUCE.latestVersion()))).data();
            ProduceResponseData.PartitionProduceResponse p = r.responses().iterator().next().partitionResponses()
                    .get(0);
            assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), p.errorCode());
            assertEquals(to, p.currentLeader().leaderId(), "the hint names the new leader");
            assertEquals(1, p.currentLeader().leaderEpoch(), "with the epoch the move raised");
            assertEquals(cluster.port(to), r.nodeEndpoints().iterator().next().port());
        }
    }

    @Test
    void partitionMovedBetweenLiveBrokers_everyAcknowledgedRecordOnceInOrder() throws Exception {
        String topic = "handoff";
        int from;
        try (Admin admin = cluster.admin(1)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
            from = admin.describeTopics(List.of(topic)).allTopicNames().get(60, TimeUnit.SECONDS).get(topic)
                    .partitions().get(0).leader().id();
        }
        int to = from % BROKERS + 1;
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap(to));
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        pp.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        int each = 200;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp, new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < each; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, Integer.toString(i)));
            }
            producer.flush(); // acknowledged by `from`, in its WAL (far below the upload threshold)
            try (ControllerClient controller = cluster.controller()) {
                controller.submit(new ReassignPartition(topic, 0, to)).get(60, TimeUnit.SECONDS);
            }
            for (int i = each; i < 2 * each; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, Integer.toString(i))).get(60, TimeUnit.SECONDS);
            }
        }
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap(from));
        List<Integer> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp, new StringDeserializer(),
                new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (values.size() < 2 * each && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(Integer.parseInt(r.value()));
                }
            }
            assertEquals(2L * each, consumer.endOffsets(List.of(tp)).get(tp), "end offset after the move");
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 2 * each; i++) {
            expected.add(i);
        }
        assertEquals(expected, values, "every acknowledged record once, in order, across the move");
    }

    @Test
    void concurrentReassignmentsOfOnePartition_oneOwnerAtTheEnd_everyAcknowledgedRecordOnceInOrder() throws Exception {
        String topic = "contended";
        try (Admin admin = cluster.admin(1)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        cluster.partitions(topic);
        SequenceProducer producer = new SequenceProducer(cluster.bootstrap(2), topic, 1, 2_000);
        producer.start();
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        try {
            producer.awaitAcknowledged(0, 20, "before the moves");
            // Three admins, each firing moves of the same partition to random brokers, without waiting
            // for a handoff to finish: owners change while the previous one is still closing.
            List<Thread> movers = new ArrayList<>();
            for (int m = 0; m < 3; m++) {
                int seed = m;
                movers.add(new Thread(() -> {
                    Random random = new Random(seed);
                    try (Admin admin = cluster.admin(1 + seed)) {
                        for (int i = 0; i < 6; i++) {
                            int to = 1 + random.nextInt(BROKERS);
                            admin.alterPartitionReassignments(Map.of(new TopicPartition(topic, 0), Optional.of(
                                    new NewPartitionReassignment(List.of(to)))))
                                    .all().get(60, TimeUnit.SECONDS);
                        }
                    } catch (Exception | AssertionError e) {
                        failures.add(e);
                    }
                }, "mover-" + m));
            }
            movers.forEach(Thread::start);
            for (Thread t : movers) {
                t.join(TimeUnit.SECONDS.toMillis(120));
            }
            assertEquals(List.of(), failures, "every move was accepted");
            int before = producer.acknowledged.get(0);
            producer.awaitAcknowledged(0, before + 50, "after the moves, at the last owner");
        } finally {
            producer.stop();
        }
        producer.rethrow("concurrent moves");
        int sent = producer.sent()[0];
        assertEquals(sent, producer.acknowledged.get(0), "every record sent was acknowledged");
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < sent; i++) {
            expected.add(i);
        }
        assertEquals(expected, SequenceProducer.readPartition(cluster.bootstrap(3), topic, 0, sent),
                "every acknowledged record once, in order, across 18 racing moves");
    }

    /** Waits until broker {@code id}'s metadata has the topic (the change feed reaches it within moments). */
    private static void awaitTopicKnown(int id, String topic) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!metadataView(id, topic).contains("partitions=[0")) {
            assertTrue(System.nanoTime() < deadline, "broker " + id + " knows " + topic + " within 30 s");
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    private static ProduceRequest produce(String topic, Uuid topicId, short version) {
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(System.currentTimeMillis(), null, "hint".getBytes(StandardCharsets.UTF_8)));
        ProduceRequestData.TopicProduceData t = new ProduceRequestData.TopicProduceData()
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData().setIndex(0)
                        .setRecords(records)));
        if (version >= 13) {
            t.setTopicId(topicId);
        } else {
            t.setName(topic);
        }
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(t);
        return ProduceRequest.builder(new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000)
                .setTopicData(topics)).build(version);
    }

    private static FetchRequest fetch(Uuid topicId, short version) {
        FetchRequestData data = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(1)
                .setMaxBytes(1 << 20).setSessionId(0).setSessionEpoch(-1)
                .setTopics(List.of(new FetchRequestData.FetchTopic().setTopicId(topicId).setPartitions(List.of(
                        new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                                .setPartitionMaxBytes(1 << 20)))));
        return new FetchRequest(data, version);
    }

    /** What broker {@code id} answers to Metadata for {@code topic}: brokers, controller, partitions. */
    private static String metadataView(int id, String topic) throws Exception {
        try (RawKafkaClient client = new RawKafkaClient(cluster.bootstrap(id))) {
            MetadataRequestData data = new MetadataRequestData().setAllowAutoTopicCreation(false)
                    .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName(topic)));
            MetadataResponseData r = ((MetadataResponse) client.send(new MetadataRequest(data,
                    ApiKeys.METADATA.latestVersion()))).data();
            Map<Integer, String> brokers = new TreeMap<>();
            r.brokers().forEach(b -> brokers.put(b.nodeId(), b.host() + ":" + b.port()));
            Map<Integer, String> partitions = new HashMap<>();
            List<String> out = new ArrayList<>();
            for (MetadataResponseData.MetadataResponseTopic t : r.topics()) {
                for (MetadataResponseData.MetadataResponsePartition p : t.partitions()) {
                    partitions.put(p.partitionIndex(), Errors.forCode(p.errorCode()) + " leader=" + p.leaderId()
                            + " epoch=" + p.leaderEpoch() + " replicas=" + p.replicaNodes() + " isr=" + p.isrNodes());
                }
                out.add(t.name() + " " + Errors.forCode(t.errorCode()) + " id=" + t.topicId());
            }
            return "brokers=" + brokers.keySet() + " " + brokers.values() + " cluster=" + r.clusterId()
                    + " controller=" + r.controllerId() + " " + out
                    + " partitions=" + new TreeMap<>(partitions).keySet()
                    + " " + new TreeMap<>(partitions);
        }
    }
}
