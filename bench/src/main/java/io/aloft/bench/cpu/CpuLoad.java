package io.aloft.bench.cpu;

import io.aloft.bench.cluster.ClientMetrics;
import io.aloft.bench.cluster.Pacer;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The client side of the CPU-per-byte benchmark against one broker: one topic of a few partitions,
 * one kafka-clients producer set as the OMB throughput driver ({@code acks=all}, idempotent,
 * {@code linger.ms=5}, 128 KiB batches; records without key, so the client's sticky partitioner
 * spreads them) writing 1 KiB random (incompressible) values, either as fast as it is acknowledged
 * or at a fixed rate, and consumers in consumer groups, as OMB's (10 MiB per partition per fetch,
 * an asynchronous commit after each poll). Counts acknowledged and consumed bytes of record values.
 *
 * <p>Confined to the benchmark's thread, except the paced producer, which sends from its own
 * thread ({@code cpu-bench-producer}) until {@link #stopPaced}, and the acknowledgement count,
 * which the producer's I/O thread updates.
 */
final class CpuLoad implements AutoCloseable {
    static final String TOPIC = "cpu-bench";

    private final String bootstrap;
    private final int partitions;
    private final byte[] value;
    private final KafkaProducer<byte[], byte[]> producer;
    private final AtomicLong ackedBytes = new AtomicLong();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final Callback onAck;
    private Pacer pacer;

    CpuLoad(String bootstrap, int partitions, int recordBytes) {
        this.bootstrap = bootstrap;
        this.partitions = partitions;
        value = new byte[recordBytes];
        new Random(42).nextBytes(value);
        onAck = (metadata, e) -> {
            if (e == null) {
                ackedBytes.addAndGet(recordBytes);
            } else {
                failure.compareAndSet(null, e);
            }
        };
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "131072");
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "cpu-bench-producer");
        producer = new KafkaProducer<>(p);
    }

    void createTopic() throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, partitions, (short) 1))).all().get(120, TimeUnit.SECONDS);
        }
    }

    /** Requests the producer has sent (produce requests, and a few for metadata). */
    long producerRequests() {
        return (long) ClientMetrics.total(producer.metrics(), "producer-metrics", "request-total");
    }

    /** Bytes of record values acknowledged since the start. */
    long ackedBytes() {
        check();
        return ackedBytes.get();
    }

    /**
     * Sends as fast as the producer takes records until {@code maxBytes} are sent or
     * {@code maxTime} has passed, then waits until all are acknowledged.
     */
    void produceMax(long maxBytes, Duration maxTime) {
        long end = System.nanoTime() + maxTime.toNanos();
        long sent = 0;
        while (sent < maxBytes && (sent % (64 * value.length) != 0 || System.nanoTime() < end)) {
            producer.send(new ProducerRecord<>(TOPIC, value), onAck);
            sent += value.length;
        }
        producer.flush();
        check();
    }

    /** Starts sending {@code perSecond} records a second from the pacer's thread. */
    void startPaced(int perSecond) {
        pacer = Pacer.start("cpu-bench-producer", perSecond,
                () -> producer.send(new ProducerRecord<>(TOPIC, value), onAck));
    }

    /** Stops the paced producer and waits until what it sent is acknowledged. */
    void stopPaced() throws InterruptedException {
        pacer.stop();
        pacer = null;
        producer.flush();
        check();
    }

    /**
     * A consumer in a new group {@code group}, subscribed to the topic, starting at the end
     * ({@code fromStart} false: returned once it holds every partition and knows its positions) or
     * at the beginning ({@code fromStart} true: returned at once; it joins at its first poll).
     */
    Reader reader(String group, boolean fromStart) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, group);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, fromStart ? "earliest" : "latest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "10485760");
        Reader reader = new Reader(new KafkaConsumer<>(p));
        reader.consumer.subscribe(List.of(TOPIC));
        if (!fromStart) {
            reader.joinAtEnd(partitions);
        }
        return reader;
    }

    private void check() {
        Exception e = failure.get();
        if (e != null) {
            throw new IllegalStateException("a produce failed", e);
        }
    }

    @Override
    public void close() {
        if (pacer != null) {
            pacer.halt();
        }
        producer.close(Duration.ofSeconds(10));
    }

    /** One group consumer and the bytes of record values it returned. Confined to the benchmark's thread. */
    static final class Reader implements AutoCloseable {
        private final KafkaConsumer<byte[], byte[]> consumer;
        private long bytes;

        private Reader(KafkaConsumer<byte[], byte[]> consumer) {
            this.consumer = consumer;
        }

        long bytes() {
            return bytes;
        }

        /** Fetch responses the consumer has had. */
        long fetches() {
            return (long) ClientMetrics.total(consumer.metrics(), "consumer-fetch-manager-metrics", "fetch-total");
        }

        /** Offset commits the consumer has had answered. */
        long commits() {
            return (long) ClientMetrics.total(consumer.metrics(), "consumer-coordinator-metrics", "commit-total");
        }

        private void joinAtEnd(int partitions) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (consumer.assignment().size() < partitions) {
                poll();
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the consumer was assigned " + consumer.assignment()
                            + " in 60 s");
                }
            }
            for (TopicPartition tp : consumer.assignment()) {
                consumer.position(tp);
            }
        }

        /** Polls for {@code duration}. */
        void pollFor(Duration duration) {
            long end = System.nanoTime() + duration.toNanos();
            while (System.nanoTime() < end) {
                poll();
            }
        }

        /** Polls until {@code limit} more bytes are read or {@code maxTime} has passed. */
        void pollUpTo(long limit, Duration maxTime) {
            long target = bytes + limit;
            long end = System.nanoTime() + maxTime.toNanos();
            while (bytes < target && System.nanoTime() < end) {
                poll();
            }
        }

        private void poll() {
            var records = consumer.poll(Duration.ofMillis(100));
            for (ConsumerRecord<byte[], byte[]> r : records) {
                bytes += r.serializedValueSize();
            }
            if (!records.isEmpty()) {
                consumer.commitAsync();
            }
        }

        @Override
        public void close() {
            consumer.close(Duration.ofSeconds(5));
        }
    }
}
