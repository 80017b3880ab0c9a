package io.aloft.broker.share;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One broker the share group scenarios run against (Apache Kafka 4.3.1 or Aloft), known only by its
 * bootstrap address, and what the scenarios do on it besides consuming: make topics, produce, set a
 * group's configs (IncrementalAlterConfigs on a GROUP resource, as {@code kafka-configs.sh
 * --entity-type groups} does), and read a share group's description and start offsets through Admin.
 *
 * <p>Not thread-safe: the test thread uses it (the Admin inside is thread-safe).
 */
final class ShareTarget implements AutoCloseable {
    /** The longest a scenario waits for any one thing to happen. */
    static final Duration WAIT = Duration.ofSeconds(30);

    final String name;
    final String bootstrap;
    final Admin admin;

    ShareTarget(String name, String bootstrap) {
        this.name = name;
        this.bootstrap = bootstrap;
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        this.admin = Admin.create(p);
    }

    /** Creates a topic of one replica per partition. */
    void createTopic(String topic, int partitions) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }

    /** Sets {@code configs} (e.g. {@code share.record.lock.duration.ms}) on the group, whether it exists yet or not. */
    void setGroupConfigs(String group, Map<String, String> configs) throws Exception {
        List<AlterConfigOp> ops = new ArrayList<>();
        configs.forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
        admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), ops)).all()
                .get(30, TimeUnit.SECONDS);
    }

    /**
     * Produces each value as a record (key = value) of its own batch, in order, to partition 0, each
     * acknowledged before the next is sent (so a share fetch may acquire them one by one).
     */
    void produce(String topic, Collection<String> values) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps())) {
            for (String v : values) {
                producer.send(new ProducerRecord<>(topic, 0, v, v)).get(30, TimeUnit.SECONDS);
            }
        }
    }

    Properties producerProps() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        return p;
    }

    ShareGroupDescription describe(String group) throws Exception {
        return admin.describeShareGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group);
    }

    /** The group's start offsets (DescribeShareGroupOffsets), by partition; empty for a partition not initialized. */
    Map<TopicPartition, SharePartitionOffsetInfo> offsets(String group) throws Exception {
        return admin.listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec())).partitionsToOffsetInfo(group)
                .get(30, TimeUnit.SECONDS);
    }

    /** The start offset of {@code topic}-0 in the group's offsets, or -1 if the group has none for it. */
    long startOffset(String group, String topic) throws Exception {
        SharePartitionOffsetInfo info = offsets(group).get(new TopicPartition(topic, 0));
        return info == null ? -1 : info.startOffset();
    }

    /**
     * Polls {@code probe} (every 50 ms, up to {@link #WAIT}) until {@code done} holds for its value,
     * and returns that value; fails naming {@code what} and the last value otherwise.
     */
    static <T> T await(String what, Supplier<T> probe, Predicate<T> done) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        T last = null;
        while (System.nanoTime() < deadline) {
            last = probe.get();
            if (done.test(last)) {
                return last;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
        throw new AssertionError(what + " not within " + WAIT + "; last seen: " + last);
    }

    /** {@link #startOffset} for {@link #await} probes. */
    long startOffsetUnchecked(String group, String topic) {
        try {
            return startOffset(group, topic);
        } catch (ExecutionException e) {
            return -2; // e.g. the group's coordinator is still loading: probe again
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }

    @Override
    public String toString() {
        return name;
    }
}
