package io.aloft.bench.compaction;

import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produce latency on partitions the cleaner is not working on: one {@code acks=all} producer sends
 * 1 KiB records at a fixed rate, open loop (each latency runs from the record's due time, so a
 * stall counts in full), round-robin over the topic's partitions. Latencies go to the histogram of
 * the current phase, which {@link #phase} switches.
 *
 * <p>Thread-safe: its own thread sends; the producer's thread records; {@link #phase} from any.
 */
final class LatencyProbe implements AutoCloseable {
    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final int partitions;
    private final int ratePerSecond;
    private final AtomicReference<Histogram> current = new AtomicReference<>(newHistogram());
    private final Thread thread;
    private volatile boolean stopping;
    private volatile long errors;

    LatencyProbe(String bootstrap, String topic, int partitions, int ratePerSecond) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        this.producer = new KafkaProducer<>(p);
        this.topic = topic;
        this.partitions = partitions;
        this.ratePerSecond = ratePerSecond;
        this.thread = new Thread(this::run, "latency-probe");
    }

    private static Histogram newHistogram() {
        return new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
    }

    LatencyProbe start() {
        thread.start();
        return this;
    }

    /** Starts a new phase; returns the latencies (µs) of the one that ends. */
    Histogram phase() {
        return current.getAndSet(newHistogram());
    }

    long errors() {
        return errors;
    }

    private void run() {
        byte[] value = new byte[1024];
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
            byte[] key = Long.toString(n).getBytes();
            int partition = (int) (n++ % partitions);
            producer.send(new ProducerRecord<>(topic, partition, key, value), (md, e) -> {
                if (e != null) {
                    errors++;
                    return;
                }
                long micros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - due);
                Histogram h = current.get();
                synchronized (h) {
                    h.recordValue(Math.min(micros, h.getHighestTrackableValue()));
                }
            });
        }
    }

    @Override
    public void close() throws InterruptedException {
        stopping = true;
        thread.join();
        producer.close();
    }
}
