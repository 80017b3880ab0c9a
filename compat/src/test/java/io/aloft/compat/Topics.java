package io.aloft.compat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * What the Connect and Streams scenarios do and check on the broker themselves, with the newest
 * kafka-clients: create topics, read a topic's {@code cleanup.policy} and end offsets, produce
 * keyed records, read a topic's latest value per key or (read_committed) every value per key.
 *
 * <p>Not thread-safe: one test thread uses an instance, which holds one Admin client.
 */
final class Topics implements AutoCloseable {
    private static final long TIMEOUT_S = 20;

    private final String bootstrap;
    private final Admin admin;

    Topics(String bootstrap) {
        this.bootstrap = bootstrap;
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(TimeUnit.SECONDS.toMillis(TIMEOUT_S)));
        this.admin = Admin.create(p);
    }

    /** Creates {@code name} with {@code partitions} partitions and the broker's default configuration. */
    void create(String name, int partitions) throws Exception {
        admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    /** Each topic's {@code cleanup.policy} as DescribeConfigs reports it. */
    Map<String, String> cleanupPolicies(Collection<String> topics) throws Exception {
        List<ConfigResource> resources = topics.stream()
                .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
        Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get(TIMEOUT_S, TimeUnit.SECONDS);
        Map<String, String> policies = new HashMap<>();
        configs.forEach((r, c) -> policies.put(r.name(), c.get(TopicConfig.CLEANUP_POLICY_CONFIG) == null ? null
                : c.get(TopicConfig.CLEANUP_POLICY_CONFIG).value()));
        return policies;
    }

    /** The end offset of every partition of {@code topic}. */
    Map<Integer, Long> endOffsets(String topic) throws Exception {
        int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(TIMEOUT_S, TimeUnit.SECONDS)
                .get(topic).partitions().size();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int i = 0; i < partitions; i++) {
            latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
        }
        return admin.listOffsets(latest).all().get(TIMEOUT_S, TimeUnit.SECONDS).entrySet().stream()
                .collect(Collectors.toMap(e -> e.getKey().partition(), e -> e.getValue().offset()));
    }

    /**
     * Every value of each key of {@code topic} (String keys, Long values), in offset order, as a
     * read_committed consumer reads them from the beginning to the last stable offsets: what
     * committed transactions wrote, nothing of aborted or open ones.
     */
    Map<String, List<Long>> committedLongValues(String topic) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int i : endOffsets(topic).keySet()) {
            latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> ends = admin.listOffsets(latest,
                        new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(TIMEOUT_S, TimeUnit.SECONDS)
                .entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Map<String, List<Long>> values = new TreeMap<>();
        try (KafkaConsumer<String, Long> consumer =
                     new KafkaConsumer<>(p, new StringDeserializer(), new LongDeserializer())) {
            List<TopicPartition> partitions = List.copyOf(ends.keySet());
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + topic + " (read_committed) to its last "
                            + "stable offsets " + ends + " within " + TIMEOUT_S + " s");
                }
                for (ConsumerRecord<String, Long> r : consumer.poll(Duration.ofMillis(200))) {
                    values.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value());
                }
            }
        }
        return values;
    }

    /** The transactional ids the broker's transaction coordinators know (ListTransactions). */
    List<String> transactionalIds() throws Exception {
        return admin.listTransactions().all().get(TIMEOUT_S, TimeUnit.SECONDS).stream()
                .map(TransactionListing::transactionalId).sorted().toList();
    }

    /** Produces {@code records} (key, value) in order with the producer's defaults (acks=all, idempotent). */
    void produce(String topic, List<Map.Entry<String, String>> records) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (KafkaProducer<String, String> producer =
                     new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (Map.Entry<String, String> r : records) {
                sent.add(producer.send(new ProducerRecord<>(topic, r.getKey(), r.getValue())));
            }
            // A failed send fails the scenario here rather than as a missing count later.
            for (Future<RecordMetadata> f : sent) {
                f.get(TIMEOUT_S, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Reads {@code topic} (String keys, Long values) from its beginning to its current end and
     * returns the last value of each key.
     */
    Map<String, Long> latestLongValues(String topic) throws Exception {
        Map<Integer, Long> ends = endOffsets(topic);
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Map<String, Long> latest = new HashMap<>();
        try (KafkaConsumer<String, Long> consumer =
                     new KafkaConsumer<>(p, new StringDeserializer(), new LongDeserializer())) {
            List<TopicPartition> partitions = ends.keySet().stream().map(i -> new TopicPartition(topic, i)).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp.partition()))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + topic + " to its end offsets " + ends
                            + " within " + TIMEOUT_S + " s");
                }
                for (ConsumerRecord<String, Long> r : consumer.poll(Duration.ofMillis(200))) {
                    latest.put(r.key(), r.value());
                }
            }
        }
        return latest;
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }
}
