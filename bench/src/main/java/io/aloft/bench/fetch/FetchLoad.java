package io.aloft.bench.fetch;

import io.aloft.bench.cluster.ClientMetrics;
import io.aloft.bench.cluster.Pacer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The client side of the fetch benchmark against one broker: topics of one partition each, a
 * producer that fills them or writes at a steady rate, and one consumer assigned every partition
 * (kafka-clients defaults: fetch sessions on, 50 MiB per fetch, 500 ms max wait). Counts what the
 * consumer read and what its fetches cost on the wire.
 *
 * <p>Confined to the benchmark's thread, except the paced producer, which runs on its own thread
 * ({@code fetch-bench-producer}) until {@link #stopPacedProducer}.
 */
final class FetchLoad implements AutoCloseable {
    /** What the consumer did over a phase. */
    record Consumed(long records, long bytes, long fetches, long bytesSent, long bytesReceived) {
    }

    private final String bootstrap;
    private final List<TopicPartition> partitions = new ArrayList<>();
    private final KafkaProducer<byte[], byte[]> producer;
    private KafkaConsumer<byte[], byte[]> consumer;
    private final byte[] value;
    private long records;
    private long bytes;
    private Pacer pacer;

    FetchLoad(String bootstrap, int topics, int recordBytes) {
        this.bootstrap = bootstrap;
        for (int t = 0; t < topics; t++) {
            partitions.add(new TopicPartition(String.format("fetch-bench-%04d", t), 0));
        }
        value = new byte[recordBytes];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) ('a' + i % 26);
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        producer = new KafkaProducer<>(p);
    }

    /** Creates the topics, 100 per request. */
    void createTopics() throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "300000");
        try (Admin admin = Admin.create(p)) {
            for (int from = 0; from < partitions.size(); from += 100) {
                List<NewTopic> batch = partitions.subList(from, Math.min(partitions.size(), from + 100)).stream()
                        .map(tp -> new NewTopic(tp.topic(), 1, (short) 1)).toList();
                admin.createTopics(batch).all().get(300, TimeUnit.SECONDS);
            }
        }
    }

    /** Writes {@code perPartition} records to every partition and waits until all are acknowledged. */
    void fill(int perPartition) throws Exception {
        for (int i = 0; i < perPartition; i++) {
            for (TopicPartition tp : partitions) {
                producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), null, value));
            }
        }
        producer.flush();
        records += (long) perPartition * partitions.size();
    }

    /** Starts writing {@code perSecond} records a second, round-robin over the partitions. */
    void startPacedProducer(int perSecond) {
        int[] next = {0};
        pacer = Pacer.start("fetch-bench-producer", perSecond, () -> {
            TopicPartition tp = partitions.get(next[0]);
            next[0] = (next[0] + 1) % partitions.size();
            producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), null, value));
        });
    }

    /** Stops the paced producer and waits until what it wrote is acknowledged. */
    void stopPacedProducer() throws InterruptedException {
        pacer.stop();
        producer.flush();
        records += pacer.count();
        pacer = null;
    }

    /** A consumer (kafka-clients defaults) assigned every partition from the beginning. */
    void startConsumer() {
        consumer = newConsumer(Map.of());
        consumer.seekToBeginning(partitions);
    }

    private KafkaConsumer<byte[], byte[]> newConsumer(Map<String, String> overrides) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.putAll(overrides);
        KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p);
        c.assign(partitions);
        return c;
    }

    /**
     * Replaces the consumer with one whose fetches wait at most {@code maxWaitMs} (its other
     * settings the defaults), positioned at the end of every partition.
     */
    void restartConsumerAtEnd(int maxWaitMs) {
        consumer.close(Duration.ofSeconds(5));
        consumer = newConsumer(Map.of(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, Integer.toString(maxWaitMs)));
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
    }

    /** Polls until the consumer has read every record produced so far. */
    Consumed consumeAll(Duration timeout) {
        Consumed before = snapshot();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (consumedRecords < records) {
            poll();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("consumed " + consumedRecords + " of " + records + " records in "
                        + timeout.toSeconds() + " s");
            }
        }
        return minus(snapshot(), before);
    }

    /** Polls for {@code duration}. */
    Consumed consumeFor(Duration duration) {
        Consumed before = snapshot();
        long end = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < end) {
            poll();
        }
        return minus(snapshot(), before);
    }

    /** Polls for {@code duration} with every partition paused: the consumer sends no fetch. */
    Consumed pausedFor(Duration duration) {
        consumer.pause(partitions);
        try {
            return consumeFor(duration);
        } finally {
            consumer.resume(partitions);
        }
    }

    private long consumedRecords;
    private long consumedBytes;

    private void poll() {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            consumedRecords++;
            consumedBytes += r.serializedValueSize() + Math.max(0, r.serializedKeySize());
        }
    }

    private Consumed snapshot() {
        Map<MetricName, ? extends Metric> m = consumer.metrics();
        return new Consumed(consumedRecords, consumedBytes,
                (long) ClientMetrics.total(m, "consumer-fetch-manager-metrics", "fetch-total"),
                (long) ClientMetrics.total(m, "consumer-metrics", "outgoing-byte-total"),
                (long) ClientMetrics.total(m, "consumer-metrics", "incoming-byte-total"));
    }

    private static Consumed minus(Consumed a, Consumed b) {
        return new Consumed(a.records() - b.records(), a.bytes() - b.bytes(), a.fetches() - b.fetches(),
                a.bytesSent() - b.bytesSent(), a.bytesReceived() - b.bytesReceived());
    }

    @Override
    public void close() {
        if (pacer != null) {
            pacer.halt();
        }
        if (consumer != null) {
            consumer.close(Duration.ofSeconds(5));
        }
        producer.close(Duration.ofSeconds(10));
    }
}
