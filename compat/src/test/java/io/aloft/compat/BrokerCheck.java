package io.aloft.compat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The harness's own look at what a client left on the broker, with the newest kafka-clients: the
 * client checks itself, and this catches a client (or a client check) that is more lenient than it
 * should be. After a passing run the topic has its partitions, its end offsets add up to the
 * records produced, and the group's committed offsets equal the end offsets. After a transactions
 * scenario, a read_committed consumer finds exactly the committed transactions' records.
 *
 * <p>Stateless.
 */
final class BrokerCheck {
    private static final long TIMEOUT_S = 15;

    private BrokerCheck() {
    }

    /** @return null if all holds, else what does not */
    static String committedEverything(Scenario s) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, s.bootstrap());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(TimeUnit.SECONDS.toMillis(TIMEOUT_S)));
        try (Admin admin = Admin.create(p)) {
            TopicDescription topic = admin.describeTopics(List.of(s.topic())).allTopicNames()
                    .get(TIMEOUT_S, TimeUnit.SECONDS).get(s.topic());
            if (topic.partitions().size() != s.partitions()) {
                return "topic " + s.topic() + " has " + topic.partitions().size() + " partitions, expected "
                        + s.partitions();
            }
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int i = 0; i < s.partitions(); i++) {
                latest.put(new TopicPartition(s.topic(), i), OffsetSpec.latest());
            }
            Map<TopicPartition, Long> ends = new HashMap<>();
            admin.listOffsets(latest).all().get(TIMEOUT_S, TimeUnit.SECONDS)
                    .forEach((tp, info) -> ends.put(tp, info.offset()));
            long total = ends.values().stream().mapToLong(Long::longValue).sum();
            if (total != s.records()) {
                return "end offsets of " + s.topic() + " add up to " + total + ", expected " + s.records() + ": " + ends;
            }
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(s.group())
                    .partitionsToOffsetAndMetadata().get(TIMEOUT_S, TimeUnit.SECONDS);
            for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
                OffsetAndMetadata c = committed.get(e.getKey());
                if (c == null || c.offset() != e.getValue()) {
                    return "group " + s.group() + " committed " + committed + ", expected the end offsets " + ends;
                }
            }
            return null;
        }
    }

    /**
     * The transactions scenario's outcome as a kafka-clients read_committed consumer reads it: in
     * every partition {@code p}, the values {@code <transaction>-<p>-<i>} for each committed
     * transaction in order and each {@code i} below {@code perPartition}, and nothing else.
     *
     * @return null if so, else what it read instead
     */
    static String readCommitted(Scenario s, List<String> committedTransactions, int perPartition) throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, s.bootstrap());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
                new StringDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int i = 0; i < s.partitions(); i++) {
                partitions.add(new TopicPartition(s.topic(), i));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(TIMEOUT_S));
            Map<Integer, List<String>> read = new HashMap<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
            // Markers take offsets but are not records: done when every position reaches its end.
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                if (System.nanoTime() > deadline) {
                    return "read_committed did not reach the end offsets " + ends + " within " + TIMEOUT_S + " s";
                }
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    read.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r.value());
                }
            }
            for (int partition = 0; partition < s.partitions(); partition++) {
                List<String> want = new ArrayList<>();
                for (String t : committedTransactions) {
                    for (int i = 0; i < perPartition; i++) {
                        want.add(t + "-" + partition + "-" + i);
                    }
                }
                List<String> got = read.getOrDefault(partition, List.of());
                if (!got.equals(want)) {
                    return "read_committed read " + got + " from partition " + partition + ", expected " + want;
                }
            }
            return null;
        }
    }
}
