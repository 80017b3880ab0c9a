package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * An idempotent acks=all producer on its own thread, writing 0, 1, 2, ... to each partition of a
 * topic in turn at a fixed pace; counts acknowledgements per partition and checks each lands at the
 * offset of its value, so "every acknowledged record once, in order" reads back as exactly 0..n-1.
 *
 * <p>Thread-safe: the producing thread writes, the test thread reads the counts.
 */
final class SequenceProducer {
    /** Bounds the producer (and the memory of what it sent) however long the test takes. */
    private static final int MAX_RECORDS_PER_PARTITION = 2_000_000;

    final AtomicIntegerArray acknowledged;
    private final String topic;
    private final int partitions;
    private final long roundMicros;
    private final int[] next;
    private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final Thread thread;
    private final KafkaProducer<String, String> producer;

    /** @param roundMicros the pace: a record to each partition every this many microseconds */
    SequenceProducer(String bootstrap, String topic, int partitions, long roundMicros) {
        this(bootstrap, topic, partitions, roundMicros, Map.of());
    }

    /** As above, with {@code clientOverrides} over the producer's settings (a shorter request timeout, say). */
    SequenceProducer(String bootstrap, String topic, int partitions, long roundMicros,
            Map<String, String> clientOverrides) {
        this.topic = topic;
        this.partitions = partitions;
        this.roundMicros = roundMicros;
        this.acknowledged = new AtomicIntegerArray(partitions);
        this.next = new int[partitions];
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        pp.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        pp.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        pp.putAll(clientOverrides);
        producer = new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer());
        thread = new Thread(this::run, "sequence-producer-" + topic);
    }

    void start() {
        thread.start();
    }

    private void run() {
        try {
            int sent = 0;
            long start = System.nanoTime();
            while (!stopping.get() && next[partitions - 1] < MAX_RECORDS_PER_PARTITION) {
                for (int p = 0; p < partitions; p++) {
                    int partition = p;
                    int value = next[p]++;
                    producer.send(new ProducerRecord<>(topic, p, null, Integer.toString(value)), (md, e) -> {
                        if (e != null) {
                            failures.add(e);
                        } else if (md.offset() != value) {
                            failures.add(new AssertionError(topic + "-" + partition + " value " + value
                                    + " acknowledged at offset " + md.offset()));
                        } else {
                            acknowledged.incrementAndGet(partition);
                        }
                    });
                }
                if (++sent % 25 == 0) {
                    producer.flush(); // bounds what is in flight, so acknowledgements keep pace
                }
                long ahead = start + TimeUnit.MICROSECONDS.toNanos(roundMicros * sent) - System.nanoTime();
                if (ahead > 0) {
                    LockSupport.parkNanos(ahead); // pacing, not waiting for a condition
                }
            }
            producer.flush();
        } catch (RuntimeException e) {
            failures.add(e);
        }
    }

    int[] acknowledgedNow() {
        int[] now = new int[partitions];
        for (int p = 0; p < partitions; p++) {
            now[p] = acknowledged.get(p);
        }
        return now;
    }

    /** Waits (≤ 60 s) until {@code partition} has {@code count} acknowledged records; fails on a producer failure. */
    void awaitAcknowledged(int partition, int count, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (acknowledged.get(partition) < count) {
            rethrow(what);
            if (System.nanoTime() > deadline) {
                throw new AssertionError(topic + "-" + partition + " acknowledged " + count + " records within 60 s "
                        + "(has " + acknowledged.get(partition) + "): " + what);
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    /** Stops sending and waits for every send to be answered; the counts are final then. */
    void stop() throws InterruptedException {
        stopping.set(true);
        thread.join(TimeUnit.SECONDS.toMillis(150));
        producer.close(Duration.ofSeconds(30));
    }

    /**
     * Retriable errors the client absorbed so far: batches it sent again after an error answer or a
     * request timeout (its {@code record-retry-total}). An error it could not retry fails a send
     * instead, which {@link #rethrow} reports.
     */
    long retries() {
        for (Map.Entry<MetricName, ? extends Metric> e : producer.metrics().entrySet()) {
            if (e.getKey().name().equals("record-retry-total") && e.getKey().group().equals("producer-metrics")) {
                return (long) ((Number) e.getValue().metricValue()).doubleValue();
            }
        }
        throw new IllegalStateException("the producer has no record-retry-total metric");
    }

    /** What was sent to each partition (read once stopped). */
    int[] sent() {
        return next.clone();
    }

    void rethrow(String context) {
        Throwable first = failures.peek();
        if (first != null) {
            throw new AssertionError("the producer failed (" + failures.size() + " failures); " + context, first);
        }
    }

    /**
     * Once stopped: every record sent to {@code topic} was acknowledged, and each partition's log
     * holds exactly the acknowledged values 0..n-1, once each, in order (read through {@code bootstrap}).
     */
    static void assertEveryAcknowledgedRecordOnceInOrder(String bootstrap, SequenceProducer producer, String topic) {
        int[] acknowledged = producer.acknowledgedNow();
        int[] sent = producer.sent();
        for (int p = 0; p < acknowledged.length; p++) {
            assertEquals(sent[p], acknowledged[p], topic + "-" + p + ": every record sent was acknowledged");
            List<Integer> values = readPartition(bootstrap, topic, p, acknowledged[p]);
            assertEquals(IntStream.range(0, acknowledged[p]).boxed().toList(), values,
                    topic + "-" + p + ": every acknowledged record once, in order");
        }
    }

    /** The sequence number a record of this producer carries (its value, which it wrote at that offset). */
    static int value(ConsumerRecord<String, String> record) {
        return Integer.parseInt(record.value());
    }

    /** The values in {@code partition}'s log from its start, read with a plain consumer; its end offset must be {@code count}. */
    static List<Integer> readPartition(String bootstrap, String topic, int partition, int count) {
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        List<Integer> values = new ArrayList<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(cp, new StringDeserializer(),
                new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, partition);
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (c.position(tp) < c.endOffsets(List.of(tp)).get(tp) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    values.add(value(r));
                }
            }
            long end = c.endOffsets(List.of(tp)).get(tp);
            if (end != count) {
                throw new AssertionError("end offset of " + tp + " is " + end + ", not " + count);
            }
        }
        return values;
    }
}
