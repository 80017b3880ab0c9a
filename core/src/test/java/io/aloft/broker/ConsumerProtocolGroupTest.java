package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.StaleMemberEpochException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consumer groups of the KIP-848 protocol ({@code group.protocol=consumer}) with real kafka-clients
 * 4.3.1 consumers: the broker assigns, members reconcile incrementally, and with commits after
 * processing and on revocation every record is consumed exactly once through joins and leaves.
 * Small session timeouts, so a member that vanishes is noticed within seconds.
 */
class ConsumerProtocolGroupTest {
    /** Generous: reconciliation waits for members' heartbeats, and the machine is shared. */
    private static final long WAIT_MS = 60_000;
    private static final int SESSION_MS = 4_000;

    @TempDir
    static Path dir;
    static TestBroker broker;
    static Admin admin;

    @BeforeAll
    static void start() throws Exception {
        broker = new TestBroker(dir, Map.of(
                "group.consumer.min.session.timeout.ms", "1000",
                "group.consumer.session.timeout.ms", Integer.toString(SESSION_MS),
                "group.consumer.min.heartbeat.interval.ms", "200",
                "group.consumer.heartbeat.interval.ms", "500"));
        admin = Admin.create(broker.clientProps());
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    static final class Member implements AutoCloseable {
        final String name;
        final Thread thread;
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        volatile boolean stopping;

        Member(String name, GroupProgress progress, Properties props, Object subscription) {
            this.name = name;
            this.thread = new Thread(() -> run(progress, props, subscription), "member-" + name);
            thread.start();
        }

        @SuppressWarnings("unchecked")
        private void run(GroupProgress progress, Properties props, Object subscription) {
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
                ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        if (!stopping && !partitions.isEmpty()) {
                            consumer.commitSync();
                        }
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    }
                };
                if (subscription instanceof Pattern p) {
                    consumer.subscribe(p, listener);
                } else {
                    consumer.subscribe((Collection<String>) subscription, listener);
                }
                while (!stopping) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                        progress.consumed(name, r);
                    }
                    progress.owns(name, consumer.assignment());
                    try {
                        consumer.commitSync();
                    } catch (RebalanceInProgressException | CommitFailedException | StaleMemberEpochException e) {
                        // The revocation callback of the next poll commits these positions instead.
                    }
                }
                commitLast(consumer, progress);
                progress.owns(name, Set.of());
            } catch (Throwable t) {
                failure.set(t);
            }
        }

        /**
         * The last commit before leaving. A heartbeat may have brought a new assignment, and with it a
         * new member epoch, that the consumer applies only at its next poll: a commit sent meanwhile
         * carries the old epoch and is refused (STALE_MEMBER_EPOCH, as Kafka refuses it). Polling
         * (recording what it returns) lets the consumer take the new epoch; then the commit is retried.
         */
        private void commitLast(KafkaConsumer<String, String> consumer, GroupProgress progress) {
            for (int attempt = 1; ; attempt++) {
                try {
                    consumer.commitSync();
                    return;
                } catch (CommitFailedException | StaleMemberEpochException e) {
                    if (attempt == 10) {
                        throw e;
                    }
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                        progress.consumed(name, r);
                    }
                }
            }
        }

        /** Leaves the group: commits, then closes (which sends the leave heartbeat). */
        @Override
        public void close() throws InterruptedException {
            stopping = true;
            thread.join(WAIT_MS);
            assertFalse(thread.isAlive(), name + " did not stop");
            if (failure.get() != null) {
                throw new AssertionError(name + " failed", failure.get());
            }
        }
    }

    static Properties consumerProps(String group) {
        Properties p = broker.clientProps();
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "1000");
        // Small polls, so partitions are likely to move while records are still unprocessed.
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "50");
        return p;
    }

    static void createTopic(String topic, int partitions) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }

    static List<String> produce(String topic, int partitions, int from, int count) throws Exception {
        Properties pp = broker.clientProps();
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        List<String> values = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
            for (int i = from; i < from + count; i++) {
                String v = topic + "-" + i;
                producer.send(new ProducerRecord<>(topic, i % partitions, null, v));
                values.add(v);
            }
            producer.flush();
        }
        return values;
    }

    @Test
    void membersJoinAndLeave_assignmentsDisjointAndComplete_everyRecordConsumedOnce() throws Exception {
        String topic = "orders";
        String group = "order-processors";
        int partitions = 6;
        createTopic(topic, partitions);
        GroupProgress progress = new GroupProgress(partitions);
        List<String> produced = new ArrayList<>();
        int batch = 600;
        try (Member a = new Member("a", progress, consumerProps(group), List.of(topic));
                Member b = new Member("b", progress, consumerProps(group), List.of(topic))) {
            progress.await("a and b to share the partitions", () -> progress.assignedExactlyTo(Set.of("a", "b")));
            assertEquals(3, progress.of("a").size(), "uniform assignor balances");
            produced.addAll(produce(topic, partitions, 0, batch));
            progress.await("the first batch", () -> progress.distinct() >= batch);

            try (Member c = new Member("c", progress, consumerProps(group), List.of(topic))) {
                progress.await("a, b and c to share the partitions",
                        () -> progress.assignedExactlyTo(Set.of("a", "b", "c")));
                produced.addAll(produce(topic, partitions, batch, batch));
                progress.await("the second batch", () -> progress.distinct() >= 2 * batch);

                ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all()
                        .get(30, TimeUnit.SECONDS).get(group);
                assertEquals(GroupType.CONSUMER, d.type());
                assertEquals(GroupState.STABLE, d.groupState());
                assertEquals(3, d.members().size());
                assertEquals("uniform", d.partitionAssignor());

                b.close(); // leaves mid-way
                progress.await("a and c to take over b's partitions",
                        () -> progress.assignedExactlyTo(Set.of("a", "c")));
                produced.addAll(produce(topic, partitions, 2 * batch, batch));
                progress.await("every record", () -> progress.distinct() >= 3 * batch);
            }
        }
        synchronized (progress) {
            assertEquals(0, progress.duplicatePositions, "records consumed twice");
            assertEquals(new HashSet<>(produced), new HashSet<>(progress.values));
            for (String m : List.of("a", "b", "c")) {
                assertTrue(progress.consumedBy.getOrDefault(m, 0) > 0, m + " consumed nothing");
            }
        }
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        assertEquals(partitions, committed.size());
        assertEquals(3L * batch, committed.values().stream().mapToLong(OffsetAndMetadata::offset).sum());
        // Empty now, listed as a consumer group; then deleted.
        assertTrue(listed(GroupType.CONSUMER).stream().anyMatch(g -> g.groupId().equals(group)
                && g.groupState().orElseThrow() == GroupState.EMPTY));
        assertTrue(listed(GroupType.CLASSIC).stream().noneMatch(g -> g.groupId().equals(group)));
        admin.deleteConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS);
        assertTrue(listed(GroupType.CONSUMER).stream().noneMatch(g -> g.groupId().equals(group)));
    }

    private static Collection<GroupListing> listed(GroupType type) throws Exception {
        return admin.listGroups(new ListGroupsOptions().withTypes(Set.of(type))).all().get(30, TimeUnit.SECONDS);
    }

    @Test
    void staticMemberRestarts_keepsItsPartitions() throws Exception {
        String topic = "static-topic";
        String group = "static-group";
        createTopic(topic, 4);
        GroupProgress progress = new GroupProgress(4);
        Properties a1 = consumerProps(group);
        a1.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "instance-a");
        Properties b1 = consumerProps(group);
        b1.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "instance-b");
        Set<TopicPartition> before;
        try (Member b = new Member("b", progress, b1, List.of(topic))) {
            Member a = new Member("a", progress, a1, List.of(topic));
            progress.await("a and b to share", () -> progress.assignedExactlyTo(Set.of("a", "b")));
            before = progress.of("a");
            a.close(); // a static member's close leaves with epoch -2: its partitions wait for it
            Member again = new Member("a", progress, a1, List.of(topic));
            progress.await("a back with its partitions", () -> progress.of("a").equals(before)
                    && progress.assignedExactlyTo(Set.of("a", "b")));
            again.close();
        }
    }

    @Test
    void patternSubscription_picksUpTopicCreatedLater() throws Exception {
        String group = "pattern-group";
        createTopic("metrics-cpu", 2);
        GroupProgress progress = new GroupProgress(4);
        try (Member a = new Member("a", progress, consumerProps(group), Pattern.compile("metrics-.*"))) {
            progress.await("a to own metrics-cpu", () -> progress.of("a").size() == 2);
            createTopic("metrics-disk", 2);
            progress.await("a to own metrics-disk too", () -> progress.of("a").size() == 4);
            List<String> produced = produce("metrics-disk", 2, 0, 20);
            progress.await("records of the new topic", () -> progress.distinct() >= 20);
            synchronized (progress) {
                assertTrue(progress.values.containsAll(produced));
            }
        }
    }

    @Test
    void memberKilled_sessionTimeoutHandsItsPartitionsOn() throws Exception {
        String topic = "vanish-topic";
        String group = "vanish-group";
        createTopic(topic, 4);
        GroupProgress progress = new GroupProgress(4);
        try (Member b = new Member("b", progress, consumerProps(group), List.of(topic))) {
            Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx128m", "-cp", System.getProperty("java.class.path"), ConsumerChild.class.getName(),
                    broker.bootstrap(), group, topic).redirectErrorStream(true).start();
            try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8))) {
                awaitLine(out, line -> line.startsWith("owns [") && !line.equals("owns []"));
                progress.await("b to own the other half", () -> progress.of("b").size() == 2);
                long killed = System.nanoTime();
                child.destroyForcibly(); // SIGKILL: no leave heartbeat
                assertTrue(child.waitFor(30, TimeUnit.SECONDS));
                progress.await("b to own every partition", () -> progress.assignedExactlyTo(Set.of("b")));
                long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
                assertTrue(tookMs >= SESSION_MS - 1_000, "b took over after " + tookMs
                        + " ms: before the killed member's session timed out");
            } finally {
                child.destroyForcibly();
            }
        }
    }

    /** Reads the child's output until a line matches (a deadline bounds the wait). */
    private static void awaitLine(BufferedReader out, Predicate<String> match) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        String line;
        while ((line = out.readLine()) != null) {
            if (match.test(line)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                break;
            }
        }
        throw new AssertionError("the child consumer never printed the line awaited (last: " + line + ")");
    }

    @Test
    void rangeAssignor_contiguousRangesPerTopic() throws Exception {
        String topic = "range-topic";
        String group = "range-group";
        createTopic(topic, 5);
        GroupProgress progress = new GroupProgress(5);
        Properties props = consumerProps(group);
        props.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, "range");
        try (Member a = new Member("a", progress, props, List.of(topic));
                Member b = new Member("b", progress, props, List.of(topic))) {
            progress.await("a and b to share", () -> progress.assignedExactlyTo(Set.of("a", "b")));
            for (String m : List.of("a", "b")) {
                List<Integer> ps = progress.of(m).stream().map(TopicPartition::partition).sorted().toList();
                assertEquals(ps.size() - 1, ps.get(ps.size() - 1) - ps.get(0), m + " has a range: " + ps);
            }
            ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all()
                    .get(30, TimeUnit.SECONDS).get(group);
            assertEquals("range", d.partitionAssignor());
        }
    }
}
