package io.aloft.bench.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntPredicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The benchmark's definitions of "a partition is served by its new broker", the same for both
 * systems. For one move, see {@link #awaitOn}. For many partitions ({@link #await}): Metadata (Admin {@code describeTopics} through any broker, polled every {@link #POLL_MS}
 * ms for one partition, every {@link #POLL_MANY_MS} ms for many, so that 1,000 partitions' Metadata
 * does not load the brokers being timed) names a broker the caller accepts as the partition's leader and as its only replica, and then
 * a probe produce sent to that partition ({@code acks=all}) is acknowledged. Once Metadata names the
 * new broker, the old one no longer acknowledges produces for the partition (Kafka: it is no longer
 * a replica; Aloft: it has closed the partition), so the acknowledgement came from the new broker.
 * The time of a partition is that acknowledgement's, from the caller's start time.
 *
 * <p>The probe producer is idempotent, {@code acks=all}, {@code linger.ms=0}, with a 10 ms retry
 * backoff (100 ms at most) so that its own retry pauses add little to what is measured; a failed
 * probe (delivery timeout) counts as an error and is sent again.
 *
 * <p>Not thread-safe: one thread calls {@link #await}; the producer's thread runs the callbacks.
 */
public final class ServedProbe implements AutoCloseable {
    public static final long POLL_MS = 10;
    public static final long POLL_MANY_MS = 100;
    /** How often a single move's probe producer refreshes its metadata (from the new broker). */
    public static final long SINGLE_METADATA_AGE_MS = 50;

    /** When each partition was seen served (ns from start; -1: not within the deadline). */
    public record Served(long[] metadataNanos, long[] ackNanos, long probeErrorsRetriable, long probeErrorsOther) {
        public boolean complete() {
            for (long a : ackNanos) {
                if (a < 0) {
                    return false;
                }
            }
            return true;
        }

        /** The last partition's acknowledgement, in seconds (NaN if one is missing). */
        public double lastAckSeconds() {
            long max = 0;
            for (long a : ackNanos) {
                if (a < 0) {
                    return Double.NaN;
                }
                max = Math.max(max, a);
            }
            return max / 1e9;
        }
    }

    private static final int WAITING = 0;
    private static final int SENT = 1;
    private static final int ACKED = 2;

    private final Admin admin;
    private final KafkaProducer<byte[], byte[]> producer;

    /**
     * @param bootstrap for a single move, the new broker alone (see {@link #forBroker}); for many
     *     partitions, every broker
     * @param idempotent an idempotent producer (many partitions); a plain acks=all one for a single move,
     *     so no InitProducerId round trip to another broker precedes its first produce
     */
    public ServedProbe(Admin admin, String bootstrap, boolean idempotent) {
        this.admin = admin;
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, Boolean.toString(idempotent));
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, idempotent ? "5" : "1");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "10");
        p.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "100");
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-probe");
        if (!idempotent) {
            p.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, Long.toString(SINGLE_METADATA_AGE_MS));
        }
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        this.producer = new KafkaProducer<>(p);
    }

    /**
     * A probe for one move, made before the move starts: bootstrapped on the new broker alone and
     * connected to it by a metadata request for {@code warmTopic} (another topic), so that when the
     * probe is sent the producer asks that broker, its only connection, for the moved partition's
     * leader. (Metadata from any other broker could still name the old broker, which, until it has
     * applied the move, acknowledges produces itself: Aloft's old broker accepts appends until it
     * lets go of the partition, as Kafka's old leader does until it learns it is no longer one.)
     */
    public static ServedProbe forBroker(Admin admin, String brokerAddress, String topic) {
        ServedProbe probe = new ServedProbe(admin, brokerAddress, false);
        probe.producer.partitionsFor(topic);
        return probe;
    }

    /**
     * For one move (a probe from {@link #forBroker}): waits until this producer's own metadata,
     * refreshed every {@value #SINGLE_METADATA_AGE_MS} ms from the new broker, names {@code target}
     * as the partition's leader, then sends the probe, which the producer therefore sends to {@code
     * target}; repeats after a failed probe. The ack's time is the move's time. Metadata's time is
     * when this producer first saw the new leader.
     */
    public Served awaitOn(String topic, int partition, int target, long startNanos, long deadlineNanos)
            throws InterruptedException {
        byte[] value = new byte[BackgroundProducer.RECORD_BYTES];
        long seen = -1;
        long errorsRetriable = 0;
        long errorsOther = 0;
        while (System.nanoTime() < deadlineNanos) {
            PartitionInfo info = producer.partitionsFor(topic).stream().filter(i -> i.partition() == partition)
                    .findFirst().orElse(null);
            if (info != null && info.leader() != null && info.leader().id() == target) {
                if (seen < 0) {
                    seen = System.nanoTime() - startNanos;
                }
                try {
                    producer.send(new ProducerRecord<>(topic, partition, null, value))
                            .get(Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
                    return new Served(new long[] {seen}, new long[] {System.nanoTime() - startNanos}, errorsRetriable,
                            errorsOther);
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof RetriableException) {
                        errorsRetriable++;
                    } else {
                        errorsOther++;
                    }
                } catch (TimeoutException e) {
                    break;
                }
            } else {
                Thread.sleep(POLL_MS); // the producer refreshes its metadata in the background
            }
        }
        return new Served(new long[] {seen}, new long[] {-1}, errorsRetriable, errorsOther);
    }

    /**
     * Waits until each of {@code partitions} of {@code topic} is served by a broker {@code
     * acceptLeader} accepts (see the class comment), or until {@code deadlineNanos} (a {@code
     * System.nanoTime()} value). Times are from {@code startNanos}.
     */
    public Served await(String topic, List<Integer> partitions, IntPredicate acceptLeader, long startNanos,
            long deadlineNanos) throws InterruptedException {
        int n = partitions.size();
        AtomicIntegerArray state = new AtomicIntegerArray(n);
        long[] metadata = new long[n];
        Arrays.fill(metadata, -1);
        AtomicLongArray acked = new AtomicLongArray(n);
        AtomicLong errorsRetriable = new AtomicLong();
        AtomicLong errorsOther = new AtomicLong();
        Map<Integer, Integer> index = new HashMap<>();
        for (int i = 0; i < n; i++) {
            index.put(partitions.get(i), i);
            acked.set(i, -1);
        }
        byte[] value = new byte[BackgroundProducer.RECORD_BYTES];
        int done = 0;
        while (done < n && System.nanoTime() < deadlineNanos) {
            TopicDescription description = describe(topic);
            if (description != null) {
                long seen = System.nanoTime() - startNanos;
                for (TopicPartitionInfo info : description.partitions()) {
                    Integer i = index.get(info.partition());
                    if (i == null || state.get(i) != WAITING || !servedBy(info, acceptLeader)) {
                        continue;
                    }
                    if (metadata[i] < 0) {
                        metadata[i] = seen;
                    }
                    state.set(i, SENT);
                    int slot = i;
                    producer.send(new ProducerRecord<>(topic, info.partition(), null, value), (md, e) -> {
                        if (e == null) {
                            acked.set(slot, System.nanoTime() - startNanos);
                            state.set(slot, ACKED);
                        } else {
                            (e instanceof RetriableException ? errorsRetriable : errorsOther).incrementAndGet();
                            state.set(slot, WAITING); // sent again at the next poll
                        }
                    });
                }
            }
            done = 0;
            for (int i = 0; i < n; i++) {
                done += state.get(i) == ACKED ? 1 : 0;
            }
            if (done < n) {
                Thread.sleep(n == 1 ? POLL_MS : POLL_MANY_MS); // the polling interval of the definition above
            }
        }
        long[] acks = new long[n];
        for (int i = 0; i < n; i++) {
            acks[i] = acked.get(i);
        }
        return new Served(metadata, acks, errorsRetriable.get(), errorsOther.get());
    }

    private static boolean servedBy(TopicPartitionInfo info, IntPredicate acceptLeader) {
        Node leader = info.leader();
        return leader != null && leader.id() >= 0 && acceptLeader.test(leader.id()) && info.replicas().size() == 1
                && info.replicas().get(0).id() == leader.id();
    }

    /** The topic's Metadata, or null when this poll failed (a broker going away): the next poll asks again. */
    private TopicDescription describe(String topic) throws InterruptedException {
        try {
            return admin.describeTopics(List.of(topic)).allTopicNames().get(3, TimeUnit.SECONDS).get(topic);
        } catch (ExecutionException | TimeoutException e) {
            return null;
        }
    }

    /** The current leader of each partition of {@code topic} (-1 where none), by partition. */
    public static List<Integer> leaders(Admin admin, String topic) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        List<Integer> out = new ArrayList<>();
        for (TopicPartitionInfo info : d.partitions()) {
            while (out.size() <= info.partition()) {
                out.add(-1);
            }
            out.set(info.partition(), info.leader() == null ? -1 : info.leader().id());
        }
        return out;
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5)); // probes still unanswered (a failed phase) are abandoned
    }
}
