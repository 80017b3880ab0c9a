package io.aloft.bench.cluster;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The producer whose experience of the moves is reported: idempotent, {@code acks=all}, 1 KiB
 * records at a fixed rate, open loop (each latency runs from the record's due time, so a stall
 * counts in full), round-robin over a fixed list of partitions (other partitions and the moving
 * ones). Every client setting else is Kafka's default, so retriable errors are retried inside the
 * client (counted from its {@code record-retry-total} metric) and only what fails for good reaches
 * the callback (counted as retriable or not by the exception's type).
 *
 * <p>Thread-safe: its own thread sends; the producer's I/O thread records; {@link #phase} from any.
 */
public final class BackgroundProducer implements AutoCloseable {
    public static final int RECORD_BYTES = 1024;

    /** What one phase saw. */
    public record Phase(Histogram latencyMicros, long acked, long failedRetriable, long failedOther, long retries) {
    }

    private final KafkaProducer<byte[], byte[]> producer;
    private final List<TopicPartition> partitions;
    private final int ratePerSecond;
    private final AtomicReference<Counters> current = new AtomicReference<>(new Counters());
    private final Thread thread;
    private volatile boolean stopping;
    private double retriesAtPhaseStart;

    /** One phase's histogram and counts, swapped whole so late callbacks land in one phase. */
    private static final class Counters {
        final Histogram histogram = new Histogram(TimeUnit.SECONDS.toMicros(300), 3);
        final AtomicLong acked = new AtomicLong();
        final AtomicLong failedRetriable = new AtomicLong();
        final AtomicLong failedOther = new AtomicLong();
    }

    public BackgroundProducer(String bootstrap, List<TopicPartition> partitions, int ratePerSecond) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-background");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        this.producer = new KafkaProducer<>(p);
        this.partitions = List.copyOf(partitions);
        this.ratePerSecond = ratePerSecond;
        this.thread = new Thread(this::run, "background-producer");
    }

    public BackgroundProducer start() {
        retriesAtPhaseStart = retries();
        thread.start();
        return this;
    }

    /** Starts a new phase; returns what the one that ends saw. */
    public synchronized Phase phase() {
        Counters ended = current.getAndSet(new Counters());
        double retries = retries();
        long phaseRetries = Math.round(retries - retriesAtPhaseStart);
        retriesAtPhaseStart = retries;
        synchronized (ended.histogram) {
            return new Phase(ended.histogram.copy(), ended.acked.get(), ended.failedRetriable.get(),
                    ended.failedOther.get(), phaseRetries);
        }
    }

    private double retries() {
        for (Map.Entry<MetricName, ? extends Metric> e : producer.metrics().entrySet()) {
            if (e.getKey().name().equals("record-retry-total") && e.getKey().group().equals("producer-metrics")) {
                return ((Number) e.getValue().metricValue()).doubleValue();
            }
        }
        return 0;
    }

    private void run() {
        byte[] value = new byte[RECORD_BYTES];
        long interval = TimeUnit.SECONDS.toNanos(1) / ratePerSecond;
        long next = System.nanoTime();
        long n = 0;
        while (!stopping) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
                continue;
            }
            long due = next;
            next += interval;
            TopicPartition tp = partitions.get((int) (n % partitions.size()));
            byte[] key = Long.toString(n++).getBytes();
            Counters counters = current.get();
            producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), key, value), (md, e) -> {
                if (e != null) {
                    (e instanceof RetriableException ? counters.failedRetriable : counters.failedOther).incrementAndGet();
                    return;
                }
                counters.acked.incrementAndGet();
                long micros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - due);
                synchronized (counters.histogram) {
                    counters.histogram.recordValue(Math.min(micros, counters.histogram.getHighestTrackableValue()));
                }
            });
        }
    }

    @Override
    public void close() throws InterruptedException {
        stopping = true;
        thread.join();
        producer.close(Duration.ofSeconds(10)); // what is unanswered by then is abandoned: the phases are over
    }
}
