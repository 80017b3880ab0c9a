package io.aloft.broker;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * An idempotent {@code acks=all} producer sending numbered records on its own thread for
 * {@link BrokerCrashTest}, and the outcome of every record: acknowledged (at which partition and
 * offset), failed (its callback got an error), or refused ({@code send()} threw, so it never left
 * this JVM).
 *
 * <p>Record {@code seq} has value {@code seq} and key {@code key(seq)}; records are sent in
 * {@code seq} order. When {@code send()} throws (the producer is in a fatal state), the producer is
 * closed (waiting for its in-flight requests) and a new one carries on, so at most one producer is
 * ever sending. At most {@link #WINDOW} records are unresolved at a time, which keeps the amount of
 * data proportional to the acknowledgements the test waits for.
 *
 * <p>Thread-safety: {@link #acked()} and {@link #awaitAcked} may be called from any thread;
 * {@link #stop()} and {@link #close()} from the thread that called {@link #start()}. The outcome
 * arrays are written by the sending thread and the producer's I/O thread, and read only after
 * {@link #stop()} has joined both.
 */
final class CrashLoad implements AutoCloseable {
    enum State { PENDING, ACKED, FAILED, REFUSED }

    private static final int MAX_RECORDS = 1 << 20;
    private static final int KEYS = 32;
    private static final int WINDOW = 1000;

    private final String bootstrap;
    private final String topic;
    private final int deliveryTimeoutMs;
    private final int recordsPerSecond;
    private final State[] states = new State[MAX_RECORDS];
    private final int[] partitions = new int[MAX_RECORDS];
    private final long[] offsets = new long[MAX_RECORDS];
    private final Semaphore window = new Semaphore(WINDOW);
    private final AtomicLong acked = new AtomicLong();
    private final LongAdder failed = new LongAdder();
    private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
    private final Thread thread = new Thread(this::run, "crash-load");
    private volatile boolean stopping;
    private volatile Throwable died;
    private long sent;
    private int refused;
    private int producers;

    CrashLoad(String bootstrap, String topic) {
        // Short enough that a slow restart expires batches (failed sends and the epoch bump get
        // exercised), long enough that a normal restart is ridden out by retries.
        this(bootstrap, topic, 8000);
    }

    /** @param deliveryTimeoutMs the producer's delivery.timeout.ms: how long a record may stay unresolved */
    CrashLoad(String bootstrap, String topic, int deliveryTimeoutMs) {
        this(bootstrap, topic, deliveryTimeoutMs, 0);
    }

    /** @param recordsPerSecond the most records sent per second, 0 for as fast as the window allows */
    CrashLoad(String bootstrap, String topic, int deliveryTimeoutMs, int recordsPerSecond) {
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.deliveryTimeoutMs = deliveryTimeoutMs;
        this.recordsPerSecond = recordsPerSecond;
        Arrays.fill(states, State.PENDING);
    }

    static String key(long seq) {
        return "key-" + (seq % KEYS);
    }

    CrashLoad start() {
        thread.start();
        return this;
    }

    long acked() {
        return acked.get();
    }

    /**
     * Waits until at least {@code target} records are acknowledged. Fails if the broker process
     * exits (nobody but the test may stop it), the sending thread dies, or there is no such progress
     * within 60 s (a broker restart takes seconds).
     */
    void awaitAcked(long target, Process broker, String when) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        synchronized (acked) {
            while (acked.get() < target) {
                if (died != null) {
                    throw new AssertionError("the producer thread died " + when, died);
                }
                if (!broker.isAlive()) {
                    throw new AssertionError("the broker exited by itself (status " + broker.exitValue() + ") "
                            + when);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError(acked.get() + " of " + target + " records acknowledged within 60 s "
                            + when + "; " + failed.sum() + " failed " + failures);
                }
                // Woken by the acknowledgement that reaches the target, or after a second to look at the broker.
                TimeUnit.NANOSECONDS.timedWait(acked, Math.min(left, TimeUnit.SECONDS.toNanos(1)));
            }
        }
    }

    /** Stops sending, waits until every record sent has its outcome, and returns them all. */
    Outcome stop() throws InterruptedException {
        stopping = true;
        thread.join();
        if (died != null) {
            throw new AssertionError("the producer thread died", died);
        }
        int n = (int) sent;
        return new Outcome(n, Arrays.copyOf(states, n), Arrays.copyOf(partitions, n), Arrays.copyOf(offsets, n),
                acked.get(), failed.sum(), refused, producers, new TreeMap<>(failures.entrySet().stream()
                        .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, e -> e.getValue().sum()))));
    }

    @Override
    public void close() throws InterruptedException {
        stopping = true;
        thread.join(TimeUnit.SECONDS.toMillis(60));
    }

    private KafkaProducer<String, String> newProducer() {
        producers++;
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.toString(deliveryTimeoutMs));
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Integer.toString(Math.min(4000, deliveryTimeoutMs / 2)));
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        // Find the restarted broker quickly instead of backing off for up to a second.
        p.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, "50");
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "250");
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "50");
        p.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "250");
        return new KafkaProducer<>(p);
    }

    private void run() {
        KafkaProducer<String, String> producer = newProducer();
        long startedNanos = System.nanoTime();
        try {
            while (!stopping) {
                if (recordsPerSecond > 0) {
                    long due = startedNanos + sent * 1_000_000_000L / recordsPerSecond;
                    long early = due - System.nanoTime();
                    if (early > 0) {
                        TimeUnit.NANOSECONDS.sleep(Math.min(early, 100_000_000L)); // pacing, then the stop flag
                        continue;
                    }
                }
                if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    continue; // the window is full: look at the stop flag again
                }
                if (sent == MAX_RECORDS) {
                    window.release();
                    throw new IllegalStateException(MAX_RECORDS + " records sent: the test waits for too many");
                }
                int seq = (int) sent++;
                try {
                    producer.send(new ProducerRecord<>(topic, key(seq), Long.toString(seq)), callback(seq));
                } catch (KafkaException e) {
                    // Not handed to the producer (no callback follows): it never reaches the broker.
                    states[seq] = State.REFUSED;
                    refused++;
                    window.release();
                    producer.close(Duration.ofSeconds(30));
                    producer = newProducer();
                }
            }
        } catch (Throwable t) {
            died = t;
        } finally {
            // Waits for every in-flight record to be acknowledged or to fail (delivery timeout).
            producer.close(Duration.ofSeconds(60));
        }
    }

    private Callback callback(int seq) {
        return (metadata, e) -> {
            if (e == null) {
                partitions[seq] = metadata.partition();
                offsets[seq] = metadata.offset();
                states[seq] = State.ACKED;
                acked.incrementAndGet();
                synchronized (acked) {
                    acked.notifyAll();
                }
            } else {
                states[seq] = State.FAILED;
                failed.increment();
                failures.computeIfAbsent(e.getClass().getSimpleName(), k -> new LongAdder()).increment();
            }
            window.release();
        };
    }

    /** Every record's outcome; immutable. */
    record Outcome(int sent, State[] states, int[] partitions, long[] offsets, long ackedCount, long failed,
            int refused, int producers, Map<String, Long> failures) {
        State state(long seq) {
            return states[(int) seq];
        }

        int partition(long seq) {
            return partitions[(int) seq];
        }

        long offset(long seq) {
            return offsets[(int) seq];
        }

        String summary() {
            return sent + " records sent by " + producers + " producer(s): " + ackedCount + " acknowledged, " + failed
                    + " failed " + failures + ", " + refused + " refused";
        }
    }
}
