package io.aloft.autoscaler.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Recorder;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * An OMB-style load for the autoscaler's step scenario: one idempotent {@code acks=all} producer
 * sending fixed-size records round-robin over a topic's partitions at a rate that can be changed
 * while it runs. Every acknowledgement is counted per partition (to check nothing is lost), every
 * failed send kept by exception class, every send's latency recorded.
 *
 * <p>The sending thread is its own; {@link #rate} and the readers are called from the test thread.
 */
final class StepLoad implements AutoCloseable {
    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final int partitions;
    private final byte[] value;
    private final Thread sender;
    private volatile double bytesPerSec;
    private volatile boolean stop;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong acked = new AtomicLong();
    private final Map<String, AtomicLong> failures = new ConcurrentHashMap<>();
    private final List<Throwable> fatal = java.util.Collections.synchronizedList(new ArrayList<>());
    private final Recorder latency = new Recorder(3);

    StepLoad(String bootstrap, String topic, int partitions, int recordBytes, double bytesPerSec) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        p.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, 5_000);
        this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        this.topic = topic;
        this.partitions = partitions;
        this.value = new byte[recordBytes];
        this.bytesPerSec = bytesPerSec;
        this.sender = new Thread(this::send, "step-load");
        sender.setDaemon(true);
        sender.start();
    }

    /** Changes the offered load. */
    void rate(double bytesPerSec) {
        this.bytesPerSec = bytesPerSec;
    }

    private void send() {
        long next = System.nanoTime();
        long n = 0;
        while (!stop) {
            long intervalNanos = (long) (1e9 * value.length / bytesPerSec);
            next += intervalNanos;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            } else if (wait < -1_000_000_000L) {
                next = System.nanoTime(); // fell a second behind: do not burst to catch up
            }
            int partition = (int) (n++ % partitions);
            long start = System.nanoTime();
            sent.incrementAndGet();
            producer.send(new ProducerRecord<>(topic, partition, null, value), (md, e) -> {
                if (e == null) {
                    acked.incrementAndGet();
                    latency.recordValue(Math.max(1, (System.nanoTime() - start) / 1000));
                } else {
                    failures.computeIfAbsent(e.getClass().getSimpleName(), k -> new AtomicLong()).incrementAndGet();
                    if (!(e instanceof RetriableException)) {
                        fatal.add(e);
                    }
                }
            });
        }
    }

    long acked() {
        return acked.get();
    }

    Map<String, AtomicLong> failures() {
        return failures;
    }

    /** Failed sends whose error is not retriable (a producer would have to give up on them). */
    List<Throwable> fatal() {
        return List.copyOf(fatal);
    }

    /** Send latency since the last call, microseconds. */
    org.HdrHistogram.Histogram latencySinceLast() {
        return latency.getIntervalHistogram();
    }

    /** Stops sending and waits for every outstanding send to be answered. */
    @Override
    public void close() throws InterruptedException {
        stop = true;
        sender.join(10_000);
        producer.flush();
        producer.close();
    }

    long sent() {
        return sent.get();
    }
}
