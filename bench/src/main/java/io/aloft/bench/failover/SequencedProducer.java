package io.aloft.bench.failover;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The failover benchmark's load, whose records are checked for loss afterwards: idempotent, {@code
 * acks=all}, a fixed rate round-robin over the partitions of one topic, each record keyed by its
 * per-partition sequence number (8 bytes, big-endian; the value repeats it and pads to {@value
 * #VALUE_BYTES} bytes). Every client setting else is Kafka's default (a record is retried inside the
 * client for up to {@code delivery.timeout.ms}, 2 min), so what the callback reports is final.
 *
 * <p>For each record it keeps the round it was sent in ({@link #round(int)}) and whether it was
 * acknowledged, failed, or is still unanswered; for each partition, the first acknowledgement after
 * {@link #resetFirstAcks} (the load's own view of when a partition was served again).
 *
 * <p>Thread-safe: its own thread sends; the producer's I/O thread records outcomes under each
 * partition's {@link Ledger} lock; the rest from any thread.
 */
final class SequencedProducer implements AutoCloseable {
    static final int VALUE_BYTES = 1024;
    static final byte SENT = 0;
    static final byte ACKED = 1;
    static final byte FAILED = 2;

    /** One partition's records by sequence number: round and outcome. Guarded by itself. */
    static final class Ledger {
        private byte[] rounds = new byte[1024];
        private byte[] outcomes = new byte[1024];
        private int size;

        synchronized int add(int round) {
            if (size == rounds.length) {
                rounds = java.util.Arrays.copyOf(rounds, size * 2);
                outcomes = java.util.Arrays.copyOf(outcomes, size * 2);
            }
            rounds[size] = (byte) round;
            return size++;
        }

        synchronized void outcome(int seq, byte outcome) {
            outcomes[seq] = outcome;
        }

        synchronized int size() {
            return size;
        }

        synchronized int round(int seq) {
            return rounds[seq];
        }

        synchronized byte outcome(int seq) {
            return outcomes[seq];
        }
    }

    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final int partitions;
    private final int ratePerSecond;
    private final Ledger[] ledgers;
    private final AtomicLongArray lastAckNanos;
    private final AtomicLongArray firstAckAfterMark;
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final Map<String, AtomicLong> failures = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile int round;
    private volatile boolean stopping;

    SequencedProducer(String bootstrap, String topic, int partitions, int ratePerSecond) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-failover-load");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        this.producer = new KafkaProducer<>(p);
        this.topic = topic;
        this.partitions = partitions;
        this.ratePerSecond = ratePerSecond;
        this.ledgers = new Ledger[partitions];
        for (int i = 0; i < partitions; i++) {
            ledgers[i] = new Ledger();
        }
        this.lastAckNanos = new AtomicLongArray(partitions);
        this.firstAckAfterMark = new AtomicLongArray(partitions);
        this.thread = new Thread(this::run, "failover-load-producer");
        resetFirstAcks();
    }

    SequencedProducer start() {
        thread.start();
        return this;
    }

    /** Records sent from now on belong to {@code round} (0: before the first kill). */
    void round(int round) {
        this.round = round;
    }

    /** Forgets each partition's first acknowledgement; from now on the first one is kept ({@link #firstAckNanos}). */
    void resetFirstAcks() {
        for (int i = 0; i < partitions; i++) {
            firstAckAfterMark.set(i, -1);
        }
    }

    /** {@code System.nanoTime()} of {@code partition}'s first acknowledgement since {@link #resetFirstAcks}; -1 if none. */
    long firstAckNanos(int partition) {
        return firstAckAfterMark.get(partition);
    }

    /** Whether every partition had a record acknowledged within the last {@code ms} milliseconds. */
    boolean allAckedWithin(long ms) {
        long now = System.nanoTime();
        for (int i = 0; i < partitions; i++) {
            if (now - lastAckNanos.get(i) > TimeUnit.MILLISECONDS.toNanos(ms)) {
                return false;
            }
        }
        return true;
    }

    Ledger ledger(int partition) {
        return ledgers[partition];
    }

    long acked() {
        return acked.get();
    }

    long failed() {
        return failed.get();
    }

    /** Failed records by exception class. */
    Map<String, Long> failures() {
        Map<String, Long> out = new TreeMap<>();
        failures.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }

    private void run() {
        long interval = TimeUnit.SECONDS.toNanos(1) / ratePerSecond;
        long next = System.nanoTime();
        long n = 0;
        while (!stopping) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
                continue;
            }
            next += interval;
            int partition = (int) (n++ % partitions);
            int seq = ledgers[partition].add(round);
            byte[] key = ByteBuffer.allocate(8).putLong(seq).array();
            byte[] value = new byte[VALUE_BYTES];
            ByteBuffer.wrap(value).putLong(seq);
            producer.send(new ProducerRecord<>(topic, partition, key, value), (md, e) -> {
                if (e != null) {
                    ledgers[partition].outcome(seq, FAILED);
                    failed.incrementAndGet();
                    failures.computeIfAbsent(e.getClass().getSimpleName(), k -> new AtomicLong()).incrementAndGet();
                    return;
                }
                ledgers[partition].outcome(seq, ACKED);
                acked.incrementAndGet();
                long now = System.nanoTime();
                lastAckNanos.set(partition, now);
                firstAckAfterMark.compareAndSet(partition, -1, now);
            });
        }
    }

    /**
     * Stops sending and waits up to {@code flushSeconds} for what is unanswered (those records stay
     * {@link #SENT}: neither acknowledged nor failed, and not counted as lost if absent).
     */
    void stop(int flushSeconds) throws InterruptedException {
        stopping = true;
        thread.join();
        producer.close(Duration.ofSeconds(flushSeconds));
    }

    @Override
    public void close() throws InterruptedException {
        if (!stopping) {
            stop(10);
        }
    }
}
