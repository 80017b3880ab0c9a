package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Graceful drain (issue 13): SIGTERM to one broker of three, as an operator's {@code kill} or
 * Kubernetes' preStop sends, while an idempotent acks=all producer writes to every partition of a
 * topic spread over the brokers and a consumer group reads it. The stopped broker is the group's
 * coordinator, so the group's offsets partition moves too. Its process exits gracefully, every
 * partition it served is served by another broker, the producer sees no error (only retriable
 * ones, which it retries), every acknowledged record is in its partition exactly once and in
 * order, and the group consumed each exactly once.
 *
 * <p>Prints the drain's two times: SIGTERM to the process's exit, and SIGTERM to every partition
 * of the stopped broker having acknowledged a produce at its new broker. A partition's value
 * {@code i} is written at offset {@code i}, so an acknowledgement at or past the offset the old
 * broker closed the partition at (its "Closed ... at offsets a..b" line) came from the new one.
 * The stopped broker serves {@code aloft.drain.partitions} partitions (8 by default; moved onto it
 * with AlterPartitionReassignments where placement gave it fewer), each other broker up to 8:
 * {@code -Daloft.drain.partitions=1000} is the drain measurement of the README. The controller
 * voters are three dedicated processes, or embedded in the brokers (so the stopped broker's voter
 * leaves the quorum too) with {@code -Daloft.drain.controllers=0}. The times are printed, not
 * asserted (a timed unit test is not a benchmark).
 */
class GracefulDrainTest {
    private static final String TOPIC = "drained";
    private static final String GROUP = "drain-group";
    private static final int BROKERS = 3;
    private static final int PER_BROKER = Integer.getInteger("aloft.drain.partitions", 8);
    /**
     * Dedicated controller voters by default, so the stopped broker takes no voter with it: with the
     * voters embedded in the brokers ({@code -Daloft.drain.controllers=0}), the quorum left with two
     * voters on a loaded machine stalls for tens of seconds, fences a live broker, and that
     * broker's partitions move without its WAL's data (the failover work); see the README.
     */
    private static final int CONTROLLERS = Integer.getInteger("aloft.drain.controllers", 3);
    private static final Pattern CLOSED = Pattern.compile("Closed " + TOPIC + "-(\\d+) at offsets \\d+\\.\\.(\\d+)");

    @TempDir
    Path dir;

    @Test
    void sigterm_brokerUnderLoad_partitionsServedElsewhereEveryRecordOnceConsumedOnce() throws Exception {
        // The stopped broker serves PER_BROKER partitions, each other broker a few: the measurement
        // variant then opens 1,000 partitions in all, not 3,000 (these brokers share 2 cores).
        int others = Math.min(PER_BROKER, 8);
        int partitions = PER_BROKER + (BROKERS - 1) * others;
        // A long session: setting up a thousand partitions on a loaded machine may delay heartbeats,
        // and a broker fenced then would move partitions by failover, not by the drain measured here.
        Map<String, String> settings = Map.of("offsets.topic.num.partitions", "3",
                "broker.session.timeout.ms", "30000");
        try (TestCluster cluster = TestCluster.start(dir, BROKERS, CONTROLLERS, settings)) {
            String bootstrap = cluster.bootstrap(1) + "," + cluster.bootstrap(2) + "," + cluster.bootstrap(3);
            try (Admin admin = cluster.admin(1)) {
                admin.createTopics(List.of(new NewTopic(TOPIC, partitions, (short) 1))).all()
                        .get(120, TimeUnit.SECONDS);
            }
            // The broker to stop is the group's coordinator, so the group's offsets move too.
            int victim = coordinator(cluster);
            List<Integer> moving = placeOn(cluster, victim, PER_BROKER);
            CommittedGroupConsumer group = new CommittedGroupConsumer(bootstrap, GROUP, TOPIC, partitions, 1);
            group.start();
            LoadProducer producer = new LoadProducer(bootstrap, partitions);
            try {
                producer.start();
                // Every partition open on its broker and holding acknowledged records; the group running.
                for (int p = 0; p < partitions; p++) {
                    awaitAcknowledged(producer, p, 2);
                }
                group.awaitConsumedAny();

                long sigterm = System.nanoTime();
                Process process = cluster.terminate(victim);
                assertTrue(process.waitFor(120, TimeUnit.SECONDS), "broker " + victim
                        + " exits within 120 s of SIGTERM");
                long exited = System.nanoTime();
                assertEquals(143, process.exitValue(), "broker " + victim + " shut down gracefully after SIGTERM; see "
                        + cluster.logFile(victim));

                Map<Integer, Long> closedAt = closedOffsets(cluster.logFile(victim));
                assertTrue(closedAt.keySet().containsAll(moving), "broker " + victim + " closed every partition it "
                        + "served (uploading what its WAL held): closed " + closedAt.keySet() + ", served " + moving);
                long served = sigterm;
                for (int p : moving) {
                    served = Math.max(served, awaitAcknowledgedAtOrPast(producer, p, closedAt.get(p)));
                }
                System.out.printf("DRAIN partitions=%d controllers=%s sigterm_to_exit_ms=%d "
                        + "sigterm_to_all_served_elsewhere_ms=%d producer_retries=%s%n", moving.size(),
                        CONTROLLERS == 0 ? "embedded" : CONTROLLERS, TimeUnit.NANOSECONDS.toMillis(exited - sigterm),
                        TimeUnit.NANOSECONDS.toMillis(served - sigterm), producer.retries());
                int survivor = victim % BROKERS + 1;
                assertEquals(List.of(), ledBy(cluster, survivor, victim), "partitions still led by broker " + victim);
            } finally {
                producer.stop();
            }
            producer.rethrow();
            int[] sent = producer.sent();
            for (int p = 0; p < partitions; p++) {
                assertEquals(sent[p], producer.acknowledged(p), "every record sent to " + TOPIC + "-" + p
                        + " was acknowledged");
            }
            try {
                group.awaitCommittedToEnd(Duration.ofSeconds(120), "after the drain, the producer stopped");
            } finally {
                group.stop();
            }
            group.rethrow("after the drain");
            Map<Integer, List<Integer>> stored = readAll(cluster, victim % BROKERS + 1, sent);
            for (int p = 0; p < partitions; p++) {
                List<Integer> expected = new ArrayList<>();
                for (int i = 0; i < sent[p]; i++) {
                    expected.add(i);
                }
                String moved = moving.contains(p) ? " (moved off broker " + victim + ")" : "";
                assertEquals(expected, stored.get(p), TOPIC + "-" + p + moved
                        + " holds every acknowledged record once, in order");
            }
            group.assertConsumedOnceInOrder(sent);
        }
    }

    /**
     * The coordinator of the test's group: the leader of its {@code __consumer_offsets} partition,
     * which the first FindCoordinator (here through listConsumerGroupOffsets) creates.
     */
    private static int coordinator(TestCluster cluster) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        try (Admin admin = cluster.admin(1)) {
            admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get(60, TimeUnit.SECONDS);
            while (true) {
                try {
                    TopicDescription offsets = admin.describeTopics(List.of("__consumer_offsets")).allTopicNames()
                            .get(60, TimeUnit.SECONDS).get("__consumer_offsets");
                    return offsets.partitions().get(Math.abs(GROUP.hashCode()) % offsets.partitions().size()).leader()
                            .id();
                } catch (java.util.concurrent.ExecutionException e) {
                    assertTrue(System.nanoTime() < deadline, "__consumer_offsets exists within 120 s: " + e);
                }
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
    }

    /**
     * Moves partitions of the topic onto broker {@code target} until it serves {@code count}
     * (AlterPartitionReassignments, as kafka-reassign-partitions does); returns the ones it serves.
     */
    private static List<Integer> placeOn(TestCluster cluster, int target, int count) throws Exception {
        int asked = target % BROKERS + 1;
        List<Integer> served = ledBy(cluster, asked, target);
        if (served.size() < count) {
            Map<TopicPartition, Optional<NewPartitionReassignment>> moves = new HashMap<>();
            try (Admin admin = cluster.admin(asked)) {
                TopicDescription d = admin.describeTopics(List.of(TOPIC)).allTopicNames().get(60, TimeUnit.SECONDS)
                        .get(TOPIC);
                Map<Integer, Integer> kept = new HashMap<>();
                for (TopicPartitionInfo p : d.partitions()) {
                    int leader = p.leader().id();
                    if (leader != target && served.size() + moves.size() < count
                            && kept.merge(leader, 1, Integer::sum) > Math.min(count, 8)) {
                        moves.put(new TopicPartition(TOPIC, p.partition()),
                                Optional.of(new NewPartitionReassignment(List.of(target))));
                    }
                }
                admin.alterPartitionReassignments(moves).all().get(120, TimeUnit.SECONDS);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while ((served = ledBy(cluster, asked, target)).size() < count) {
                assertTrue(System.nanoTime() < deadline, "broker " + target + " serves " + count + " partitions within "
                        + "120 s (serves " + served.size() + ")");
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
        return served;
    }

    /** The partitions of the topic that broker {@code asked}'s metadata shows led by {@code leader}. */
    private static List<Integer> ledBy(TestCluster cluster, int asked, int leader) throws Exception {
        try (Admin admin = cluster.admin(asked)) {
            TopicDescription d = admin.describeTopics(List.of(TOPIC)).allTopicNames().get(60, TimeUnit.SECONDS)
                    .get(TOPIC);
            List<Integer> out = new ArrayList<>();
            for (TopicPartitionInfo p : d.partitions()) {
                if (p.leader() != null && p.leader().id() == leader) {
                    out.add(p.partition());
                }
            }
            return out;
        }
    }

    /** Per partition of the topic, the high watermark the broker's log says it closed it at (the last close). */
    private static Map<Integer, Long> closedOffsets(Path log) throws Exception {
        Map<Integer, Long> out = new TreeMap<>();
        Matcher m = CLOSED.matcher(Files.readString(log));
        while (m.find()) {
            out.put(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)));
        }
        return out;
    }

    private static void awaitAcknowledged(LoadProducer producer, int partition, int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (producer.acknowledged(partition) < count) {
            producer.rethrow();
            assertTrue(System.nanoTime() < deadline, TOPIC + "-" + partition + " acknowledged " + count
                    + " records within 120 s (has " + producer.acknowledged(partition) + ")");
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    /** Waits for the acknowledgement of the record at {@code offset}; returns when it came (nanoTime). */
    private static long awaitAcknowledgedAtOrPast(LoadProducer producer, int partition, long offset) throws Exception {
        awaitAcknowledged(producer, partition, (int) offset + 1);
        return producer.acknowledgedAt(partition, (int) offset);
    }

    /** Every record of every partition, read from the beginning through broker {@code id}. */
    private static Map<Integer, List<Integer>> readAll(TestCluster cluster, int id, int[] sent) {
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap(id));
        Map<Integer, List<Integer>> values = new TreeMap<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(cp, new StringDeserializer(),
                new StringDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < sent.length; p++) {
                tps.add(new TopicPartition(TOPIC, p));
                values.put(p, new ArrayList<>());
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> ends = c.endOffsets(tps, Duration.ofSeconds(60));
            for (int p = 0; p < sent.length; p++) {
                assertEquals(sent[p], ends.get(tps.get(p)), "end offset of " + tps.get(p));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            int remaining = java.util.Arrays.stream(sent).sum();
            while (remaining > 0 && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    values.get(r.partition()).add(Integer.parseInt(r.value()));
                    remaining--;
                }
            }
        }
        return values;
    }

    /**
     * An idempotent acks=all producer on its own thread writing 0, 1, 2, ... to every partition in
     * rounds; records when each value was acknowledged and checks it landed at the offset of its value.
     */
    private static final class LoadProducer {
        private final int partitions;
        private final int[] next;
        /** Per partition, the nanoTime each value was acknowledged at (index = value); guarded by itself. */
        private final List<long[]>[] acks;
        private final int[] acked;
        private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean stopping = new AtomicBoolean();
        private final Thread thread;
        private final KafkaProducer<String, String> producer;
        /** A round to every partition this often: about 10,000 records/s at 1,000 partitions a broker. */
        private final long roundNanos;

        @SuppressWarnings("unchecked")
        LoadProducer(String bootstrap, int partitions) {
            this.partitions = partitions;
            this.next = new int[partitions];
            this.acked = new int[partitions];
            this.acks = new List[partitions];
            for (int p = 0; p < partitions; p++) {
                acks[p] = new ArrayList<>();
            }
            this.roundNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(20), TimeUnit.MICROSECONDS.toNanos(100L
                    * partitions));
            Properties pp = new Properties();
            pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            pp.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
            pp.put(ProducerConfig.ACKS_CONFIG, "all");
            pp.put(ProducerConfig.LINGER_MS_CONFIG, "5");
            // Small batches: one per partition is buffered at a time, and there may be thousands.
            pp.put(ProducerConfig.BATCH_SIZE_CONFIG, "2048");
            pp.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(64L << 20));
            pp.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
            producer = new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer());
            thread = new Thread(this::run, "drain-test-producer");
            thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        private void run() {
            try {
                long round = 0;
                long start = System.nanoTime();
                while (!stopping.get()) {
                    for (int p = 0; p < partitions; p++) {
                        int partition = p;
                        int value = next[p]++;
                        producer.send(new ProducerRecord<>(TOPIC, p, null, Integer.toString(value)), (md, e) -> {
                            if (e != null) {
                                failures.add(e);
                            } else if (md.offset() != value) {
                                failures.add(new AssertionError(TOPIC + "-" + partition + " value " + value
                                        + " acknowledged at offset " + md.offset()));
                            } else {
                                acknowledged(partition, value, System.nanoTime());
                            }
                        });
                    }
                    long ahead = start + roundNanos * ++round - System.nanoTime();
                    if (ahead > 0) {
                        LockSupport.parkNanos(ahead); // pacing, not waiting for a condition
                    }
                }
                producer.flush();
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }

        private void acknowledged(int partition, int value, long nanos) {
            synchronized (acks[partition]) {
                List<long[]> chunks = acks[partition];
                if (value / 1024 >= chunks.size()) {
                    chunks.add(new long[1024]);
                }
                chunks.get(value / 1024)[value % 1024] = nanos;
                acked[partition]++;
            }
        }

        int acknowledged(int partition) {
            synchronized (acks[partition]) {
                return acked[partition];
            }
        }

        /** When the record of {@code value} was acknowledged (it has been). */
        long acknowledgedAt(int partition, int value) {
            synchronized (acks[partition]) {
                return acks[partition].get(value / 1024)[value % 1024];
            }
        }

        /** The producer's retries so far (each a retriable error it got, or a disconnection). */
        Object retries() {
            return producer.metrics().entrySet().stream().filter(e -> e.getKey().name().equals("record-retry-total"))
                    .map(e -> e.getValue().metricValue()).findFirst().orElse("?");
        }

        /** Stops sending and waits for every send to be answered; the counts are final then. */
        void stop() throws InterruptedException {
            stopping.set(true);
            thread.join(TimeUnit.SECONDS.toMillis(150));
            producer.close(Duration.ofSeconds(30));
        }

        /** What was sent to each partition (read once stopped). */
        int[] sent() {
            return next.clone();
        }

        void rethrow() {
            Throwable first = failures.peek();
            if (first != null) {
                throw new AssertionError("the producer got a non-retriable error (" + failures.size() + " in all)",
                        first);
            }
        }
    }
}
