package io.aloft.broker.share;

import static io.aloft.broker.share.ShareConsumers.describe;
import static io.aloft.broker.share.ShareConsumers.hasValue;
import static io.aloft.broker.share.ShareConsumers.pollUntil;
import static io.aloft.broker.share.ShareConsumers.subscribed;
import static io.aloft.broker.share.ShareConsumers.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.KafkaCli;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Share groups (KIP-932, issue 21) as kafka-clients 4.3.1's {@link KafkaShareConsumer} sees them, run
 * against one broker given by a subclass: Apache Kafka 4.3.1 (where these were proven first, {@link
 * ShareGroupKafkaOracleTest}) and Aloft ({@link ShareGroupAloftTest}). Both brokers are started with
 * {@link #BROKER_SETTINGS}, which lower Kafka's floors so that a group may set a lock duration of a
 * second or two; each scenario sets its group's own configs through IncrementalAlterConfigs (GROUP).
 *
 * <p>Scenarios: consumers sharing one partition (a), explicit accept/release/reject (b), records
 * back after a lock expires, a consumer closes or its process is killed, and a late
 * acknowledgement on the wire (c), the delivery count limit (d), share.auto.offset.reset (e),
 * kafka-share-groups.sh (f), read_committed (g), and a broker restart. What Kafka 4.3.1 did that a
 * broker must match is written at each scenario.
 *
 * <p>Each test uses its own topic and group. Waits are bounded ({@link ShareTarget#WAIT}); nothing
 * asserts how fast anything happens.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
abstract class ShareGroupScenarios {
    /**
     * Broker settings (Kafka's names, which Aloft's ShareGroupConfig shares) both brokers start with:
     * floors low enough for short group lock durations, a quick heartbeat so members learn their
     * assignment at once, and a small share state topic.
     */
    static final Map<String, String> BROKER_SETTINGS = Map.of(
            "group.share.min.record.lock.duration.ms", "1000",
            "group.share.min.heartbeat.interval.ms", "500",
            "group.share.heartbeat.interval.ms", "1000",
            "group.share.min.session.timeout.ms", "6000",
            "group.share.session.timeout.ms", "10000",
            "group.share.min.delivery.count.limit", "2",
            "share.coordinator.state.topic.num.partitions", "3",
            "group.initial.rebalance.delay.ms", "0");

    static final String AUTO_OFFSET_RESET = "share.auto.offset.reset";
    static final String LOCK_DURATION = "share.record.lock.duration.ms";
    static final String DELIVERY_LIMIT = "share.delivery.count.limit";
    static final String ISOLATION = "share.isolation.level";
    /** kafka-share-groups.sh's main class. */
    static final String SHARE_GROUP_COMMAND = "org.apache.kafka.tools.consumer.group.ShareGroupCommand";

    /** The broker under test, started by the subclass before the tests. */
    abstract ShareTarget target();

    /** Stops the broker cleanly and starts it again on the same data; {@link #target()} then names it anew. */
    abstract void restartBroker() throws Exception;

    /** A topic of one partition and a group reading it from the earliest offset, plus {@code groupConfigs}. */
    String topicAndGroup(String name, Map<String, String> groupConfigs) throws Exception {
        target().createTopic(name, 1);
        Map<String, String> configs = new java.util.HashMap<>(groupConfigs);
        configs.putIfAbsent(AUTO_OFFSET_RESET, "earliest");
        target().setGroupConfigs(name + "-group", configs);
        return name + "-group";
    }

    private static List<String> numbered(String prefix, int count) {
        return IntStream.range(0, count).mapToObj(i -> prefix + "-" + i).toList();
    }

    /** Every partition acknowledged without error by {@code commitSync}. */
    private static void assertCommitted(Map<TopicIdPartition, Optional<KafkaException>> result) {
        assertFalse(result.isEmpty(), "commitSync acknowledged nothing");
        result.forEach((tp, error) -> assertTrue(error.isEmpty(), tp + ": " + error));
    }

    private static void acknowledgeAll(KafkaShareConsumer<String, String> c, List<ConsumerRecord<String, String>> rs,
            AcknowledgeType type) {
        rs.forEach(r -> c.acknowledge(r, type));
    }

    /**
     * a) Three consumers in one group on one partition share its records: every record is delivered,
     * exactly once (each accepts what it got: implicit acknowledgement), more than one consumer got
     * some, and the group's start offset ends past the last record.
     */
    @Test
    void threeConsumers_shareOnePartition_eachRecordDeliveredOnce() throws Exception {
        String topic = "share-a";
        String group = topicAndGroup(topic, Map.of());
        List<String> values = numbered("a", 150);
        try (SharingConsumers consumers = SharingConsumers.start(target(), group, topic, 3)) {
            consumers.awaitAllAssigned();
            target().produce(topic, values);
            Map<String, List<ConsumerRecord<String, String>>> byConsumer = consumers.collectUntil(values.size());
            List<ConsumerRecord<String, String>> all = byConsumer.values().stream().flatMap(List::stream).toList();
            assertEquals(values.size(), all.size(), "deliveries: " + describe(all));
            assertEquals(new java.util.TreeSet<>(values), new java.util.TreeSet<>(values(all)));
            assertTrue(all.stream().allMatch(r -> r.deliveryCount().orElse((short) -1) == 1), describe(all).toString());
            long consumersWithRecords = byConsumer.values().stream().filter(l -> !l.isEmpty()).count();
            assertTrue(consumersWithRecords > 1, "only one consumer got records: " + consumers.counts());
        }
        // Each consumer accepted its last poll (commitSync) before closing: none comes back.
        assertOnlyNewRecordsFollow(topic, group);
    }

    /**
     * Writes an "end" record and reads the group with a new consumer up to it: it must be the only
     * record delivered, once (everything before it was accepted, rejected or archived).
     */
    void assertOnlyNewRecordsFollow(String topic, String group) throws Exception {
        target().produce(topic, List.of("end"));
        try (KafkaShareConsumer<String, String> c = subscribed(target(), group, topic, false)) {
            List<ConsumerRecord<String, String>> rest = pollUntil(c, "the end record", batch -> { },
                    seen -> hasValue(seen, "end"));
            assertEquals(List.of("end#1"), describe(rest), "records acknowledged before came back");
        }
    }

    /**
     * Waits until DescribeShareGroupOffsets shows a start offset of at least {@code min}, and checks
     * it is at most {@code max}. A range: Kafka 4.3.1 persists the start offset one acknowledgement
     * late (the write carrying an acknowledgement holds the start offset from before it), so after
     * the last acknowledgement it shows where the one before it left the start.
     */
    void awaitStartOffsetBetween(String group, String topic, long min, long max) throws Exception {
        long o = ShareTarget.await("start offset " + min + ".." + max, () -> target().startOffsetUnchecked(group,
                topic), x -> x >= min);
        assertTrue(o <= max, "start offset " + o + " beyond " + max);
    }

    /**
     * b) Explicit acknowledgement: an accepted record is not delivered again, a released one is
     * delivered again (delivery count 2), a rejected one never again.
     */
    @Test
    void explicitAcknowledgement_acceptReleaseReject() throws Exception {
        String topic = "share-b";
        String group = topicAndGroup(topic, Map.of());
        target().produce(topic, List.of("accept", "release", "reject"));
        try (KafkaShareConsumer<String, String> c = subscribed(target(), group, topic, true)) {
            List<ConsumerRecord<String, String>> first = pollUntil(c, "the three records", batch -> {
                for (ConsumerRecord<String, String> r : batch) {
                    c.acknowledge(r, switch (r.value()) {
                        case "accept" -> AcknowledgeType.ACCEPT;
                        case "release" -> AcknowledgeType.RELEASE;
                        default -> AcknowledgeType.REJECT;
                    });
                }
            }, seen -> seen.size() >= 3);
            assertEquals(List.of("accept#1", "release#1", "reject#1"), describe(first));
            assertCommitted(c.commitSync());

            List<ConsumerRecord<String, String>> again = pollUntil(c, "the released record again",
                    batch -> acknowledgeAll(c, batch, AcknowledgeType.ACCEPT), seen -> !seen.isEmpty());
            assertEquals(List.of("release#2"), describe(again));
            assertCommitted(c.commitSync());

            target().produce(topic, List.of("end"));
            List<ConsumerRecord<String, String>> rest = pollUntil(c, "the end record",
                    batch -> acknowledgeAll(c, batch, AcknowledgeType.ACCEPT), seen -> hasValue(seen, "end"));
            assertEquals(List.of("end#1"), describe(rest), "nothing accepted or rejected comes back");
            assertCommitted(c.commitSync());
        }
        awaitStartOffsetBetween(group, topic, 3, 4);
    }

    /**
     * c) A consumer that acquired records and then stops polling without acknowledging them (it stays
     * a live member: the client heartbeats on its own thread) loses them when the group's lock
     * duration expires: another consumer gets them, delivery count 2. The first one's late
     * acknowledgement then changes nothing (kafka-clients 4.3.1's commitSync reports no error for it
     * against Kafka 4.3.1, so neither outcome is asserted): nothing comes back.
     */
    @Test
    void heldRecords_lockExpires_redeliveredToAnotherConsumer() throws Exception {
        String topic = "share-c";
        String group = topicAndGroup(topic, Map.of(LOCK_DURATION, "1500"));
        List<String> values = numbered("c", 3);
        target().produce(topic, values);
        try (KafkaShareConsumer<String, String> holder = subscribed(target(), group, topic, true);
                KafkaShareConsumer<String, String> other = subscribed(target(), group, topic, true)) {
            List<ConsumerRecord<String, String>> held = assertPolled(holder, "the holder acquires all three",
                    "c-0#1", "c-1#1", "c-2#1");
            List<ConsumerRecord<String, String>> redelivered = pollUntil(other, "redelivery after the lock expired",
                    batch -> acknowledgeAll(other, batch, AcknowledgeType.ACCEPT), seen -> seen.size() >= 3);
            assertEquals(List.of("c-0#2", "c-1#2", "c-2#2"), describe(redelivered));
            assertCommitted(other.commitSync());

            acknowledgeAll(holder, held, AcknowledgeType.ACCEPT);
            Map<TopicIdPartition, Optional<KafkaException>> late = holder.commitSync();
            assertFalse(late.isEmpty(), "the late acknowledgement was not sent");
        }
        assertOnlyNewRecordsFollow(topic, group);
    }

    /**
     * c) On the wire (what kafka-clients does not show): once a member's lock expired and another
     * member acquired the record (delivery count 2), the first member's acknowledgement of it is
     * refused with INVALID_RECORD_STATE at the partition, the holder's is accepted, and a second
     * acknowledgement of the accepted record, now below the start offset, is answered without error
     * (Kafka 4.3.1 ignores acknowledgements below the start offset).
     */
    @Test
    void lateAcknowledgement_afterTheLockExpired_refusedOnTheWire() throws Exception {
        String topic = "share-c-late";
        String group = topicAndGroup(topic, Map.of(LOCK_DURATION, "1000"));
        target().produce(topic, List.of("late"));
        try (RawShareMember first = RawShareMember.join(target(), group, topic);
                RawShareMember second = RawShareMember.join(target(), group, topic)) {
            assertEquals(new RawShareMember.Acquired(0, 0, (short) 1), first.fetchUntilAcquired());
            assertEquals(new RawShareMember.Acquired(0, 0, (short) 2), second.fetchUntilAcquired());
            assertEquals(Errors.INVALID_RECORD_STATE, first.acknowledge(0, 0, (byte) 1), "the late acknowledgement");
            assertEquals(Errors.NONE, second.acknowledge(0, 0, (byte) 1), "the holder's acknowledgement");
            assertEquals(Errors.NONE, second.acknowledge(0, 0, (byte) 1), "acknowledging below the start offset");
        }
    }

    /**
     * c) A consumer closed while holding records it neither acknowledged nor committed gives them up
     * at once: another consumer gets them (delivery count 2) well before the group's lock duration
     * (60 s, longer than any wait here) would have released them. The same holds for records an
     * implicit-mode consumer got from its last poll and did not commit before closing.
     */
    @Test
    void closedConsumer_releasesHeldRecords_beforeTheLockExpires() throws Exception {
        String topic = "share-c-close";
        String group = topicAndGroup(topic, Map.of(LOCK_DURATION, "60000"));
        target().produce(topic, List.of("explicit-0", "explicit-1"));
        try (KafkaShareConsumer<String, String> other = subscribed(target(), group, topic, false)) {
            try (KafkaShareConsumer<String, String> holder = subscribed(target(), group, topic, true)) {
                assertPolled(holder, "the holder acquires both", "explicit-0#1", "explicit-1#1");
            }
            try (KafkaShareConsumer<String, String> implicit = subscribed(target(), group, topic, false)) {
                assertPolled(implicit, "the released records", "explicit-0#2", "explicit-1#2");
            }
            assertPolled(other, "the records released again", "explicit-0#3", "explicit-1#3");
            other.commitSync();
        }
        assertOnlyNewRecordsFollow(topic, group);
    }

    /**
     * c) A consumer process killed (SIGKILL: no leave, no acknowledgement, no session close) while it
     * holds records: another consumer gets them, delivery count 2, before the group's lock duration
     * (60 s, longer than any wait here) would have released them: the broker releases a vanished
     * member's records when its connection drops (Kafka 4.3.1: back within a second) or at the latest
     * when its session times out (10 s here).
     */
    @Test
    void killedConsumer_heldRecordsRedeliveredToAnother() throws Exception {
        String topic = "share-c-kill";
        String group = topicAndGroup(topic, Map.of(LOCK_DURATION, "60000"));
        List<String> values = numbered("k", 2);
        target().produce(topic, values);
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                ShareConsumerChild.class.getName(), target().bootstrap, group, topic, "2")
                .redirectErrorStream(true).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            List<String> lines = new ArrayList<>();
            ShareTarget.await("the child holding both records", () -> readLine(out, lines),
                    line -> line == null || line.equals("holding"));
            assertEquals(List.of("got k-0#1", "got k-1#1", "holding"), lines.stream()
                    .filter(l -> l.startsWith("got ") || l.equals("holding")).toList(), String.join("\n", lines));
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the child outlived SIGKILL");
            try (KafkaShareConsumer<String, String> other = subscribed(target(), group, topic, false)) {
                assertPolled(other, "the killed consumer's records", "k-0#2", "k-1#2");
                other.commitSync();
            }
        } finally {
            child.destroyForcibly();
        }
        assertOnlyNewRecordsFollow(topic, group);
    }

    /** The child's next line (added to {@code lines}), or null at its end. */
    private static String readLine(BufferedReader out, List<String> lines) {
        try {
            String line = out.readLine();
            if (line != null) {
                lines.add(line);
            }
            return line;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * d) With share.delivery.count.limit=2, a record released on each delivery is delivered twice and
     * then archived: never delivered again, and the start offset moves past it.
     */
    @Test
    void deliveryCountLimit_releasedRecordArchivedAfterTheLimit() throws Exception {
        String topic = "share-d";
        String group = topicAndGroup(topic, Map.of(DELIVERY_LIMIT, "2"));
        target().produce(topic, List.of("poison", "good"));
        try (KafkaShareConsumer<String, String> c = subscribed(target(), group, topic, true)) {
            List<ConsumerRecord<String, String>> seen = new ArrayList<>(pollUntil(c, "poison delivered twice",
                    batch -> {
                        for (ConsumerRecord<String, String> r : batch) {
                            c.acknowledge(r, r.value().equals("poison") ? AcknowledgeType.RELEASE
                                    : AcknowledgeType.ACCEPT);
                        }
                        if (!batch.isEmpty()) {
                            assertCommitted(c.commitSync());
                        }
                    }, s -> s.stream().filter(r -> r.value().equals("poison")).count() >= 2));
            target().produce(topic, List.of("end"));
            seen.addAll(pollUntil(c, "the end record", batch -> {
                acknowledgeAll(c, batch, AcknowledgeType.ACCEPT);
                if (!batch.isEmpty()) {
                    assertCommitted(c.commitSync());
                }
            }, s -> hasValue(s, "end")));
            assertEquals(List.of("poison#1", "poison#2"), describe(seen.stream()
                    .filter(r -> r.value().equals("poison")).toList()), describe(seen).toString());
            assertEquals(List.of("good#1", "end#1"), describe(seen.stream()
                    .filter(r -> !r.value().equals("poison")).toList()), describe(seen).toString());
        }
        awaitStartOffsetBetween(group, topic, 2, 3);
    }

    /**
     * Durable share state: after a broker restart, what was accepted or rejected is never delivered
     * again, and what was released (explicitly, or by closing the consumer that held it) is, with
     * its delivery count carried over.
     */
    @Test
    void restart_keepsAcknowledgements_redeliversOnlyTheRest() throws Exception {
        String topic = "share-restart";
        String group = topicAndGroup(topic, Map.of());
        target().produce(topic, numbered("r", 5));
        try (KafkaShareConsumer<String, String> c = subscribed(target(), group, topic, true)) {
            List<ConsumerRecord<String, String>> got = pollUntil(c, "all five", batch -> {
                for (ConsumerRecord<String, String> r : batch) {
                    switch (r.value()) {
                        case "r-0", "r-1" -> c.acknowledge(r, AcknowledgeType.ACCEPT);
                        case "r-2" -> c.acknowledge(r, AcknowledgeType.REJECT);
                        case "r-3" -> c.acknowledge(r, AcknowledgeType.RELEASE);
                        default -> { } // r-4: held until the consumer closes
                    }
                }
            }, seen -> seen.size() >= 5);
            assertEquals(List.of("r-0#1", "r-1#1", "r-2#1", "r-3#1", "r-4#1"), describe(got));
            assertCommitted(c.commitSync());
        }
        restartBroker();
        try (KafkaShareConsumer<String, String> c = subscribed(target(), group, topic, false)) {
            assertPolled(c, "the released records after the restart", "r-3#2", "r-4#2");
            c.commitSync();
        }
        assertOnlyNewRecordsFollow(topic, group);
    }

    /**
     * e) share.auto.offset.reset: a group reading from the earliest offset gets the records written
     * before it joined; a group with the default (latest) never gets those, and gets every record
     * from some point of the ones written while it polls (when its share partition was initialized:
     * not observable from outside, hence records keep coming until it has some).
     */
    @Test
    void autoOffsetReset_earliestReadsOldRecords_latestOnlyNewOnes() throws Exception {
        String topic = "share-e";
        target().createTopic(topic, 1);
        String earliest = topic + "-earliest";
        String latest = topic + "-latest";
        target().setGroupConfigs(earliest, Map.of(AUTO_OFFSET_RESET, "earliest"));
        List<String> old = numbered("old", 3);
        target().produce(topic, old);
        List<String> fresh = new ArrayList<>();
        try (KafkaShareConsumer<String, String> l = subscribed(target(), latest, topic, false);
                KafkaProducer<String, String> producer = new KafkaProducer<>(target().producerProps())) {
            List<ConsumerRecord<String, String>> first = pollUntil(l, "records written after the latest group joined",
                    batch -> {
                        String v = "new-" + fresh.size();
                        send(producer, topic, v);
                        fresh.add(v);
                    }, seen -> seen.size() >= 2);
            String last = fresh.get(fresh.size() - 1);
            List<ConsumerRecord<String, String>> got = new ArrayList<>(first);
            got.addAll(pollUntil(l, "the last new record", batch -> { },
                    seen -> hasValue(seen, last) || hasValue(first, last)));
            List<String> gotValues = values(got);
            assertTrue(!gotValues.isEmpty() && fresh.indexOf(gotValues.get(0)) >= 0, "old records: " + gotValues);
            assertEquals(fresh.subList(fresh.indexOf(gotValues.get(0)), fresh.size()), gotValues,
                    "the latest group must get every record from where it started");
        }
        try (KafkaShareConsumer<String, String> e = subscribed(target(), earliest, topic, false)) {
            List<ConsumerRecord<String, String>> got = pollUntil(e, "all records", batch -> { },
                    seen -> seen.size() >= old.size() + fresh.size());
            List<String> all = new ArrayList<>(old);
            all.addAll(fresh);
            assertEquals(all, values(got));
        }
    }

    private static void send(KafkaProducer<String, String> producer, String topic, String value) {
        try {
            producer.send(new ProducerRecord<>(topic, 0, value, value)).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("producing " + value, e);
        }
    }

    /**
     * f) kafka-share-groups.sh (Kafka 4.3.1's tool, a child process): --list names the group,
     * --describe its topic, partition and start offset (as Admin reads it); on the emptied group
     * --reset-offsets --to-earliest moves the start offset to 0, so a new consumer gets every record
     * again as a first delivery; --delete removes the group.
     */
    @Test
    void shareGroupsTool_listDescribeResetDelete(@TempDir Path work) throws Exception {
        String topic = "share-f";
        String group = topicAndGroup(topic, Map.of());
        List<String> values = numbered("f", 3);
        target().produce(topic, values);
        KafkaCli cli = new KafkaCli(work);
        try (KafkaShareConsumer<String, String> c = subscribed(target(), group, topic, false)) {
            pollUntil(c, "the records", batch -> { }, seen -> seen.size() >= values.size());
            c.commitSync();
            long start = ShareTarget.await("a start offset", () -> target().startOffsetUnchecked(group, topic),
                    o -> o >= 0);

            KafkaCli.Result listed = tool(cli, "--list");
            assertEquals(0, listed.exitCode(), listed.toString());
            assertTrue(listed.lines().contains(group), listed.toString());

            KafkaCli.Result described = tool(cli, "--describe", "--group", group);
            assertEquals(0, described.exitCode(), described.toString());
            assertTrue(described.lines().stream().anyMatch(line -> line.trim().split("\\s+").length >= 4
                    && List.of(line.trim().split("\\s+")).subList(0, 4).equals(List.of(group, topic, "0",
                            Long.toString(start)))), "no row: " + group + " " + topic + " 0 " + start + "\n" + described);

            KafkaCli.Result members = tool(cli, "--describe", "--group", group, "--members");

            assertEquals(0, members.exitCode(), members.toString());
            assertTrue(members.out().contains(group) && members.out().contains(topic + ":0"), members.toString());
        }
        ShareTarget.await("the group empty", () -> {
            try {
                return target().describe(group).members().size();
            } catch (Exception e) {
                return -1;
            }
        }, n -> n == 0);

        KafkaCli.Result reset = tool(cli, "--reset-offsets", "--to-earliest", "--execute", "--group", group,
                "--topic", topic);
        assertEquals(0, reset.exitCode(), reset.toString());
        assertEquals(0, target().startOffset(group, topic), reset.toString());
        try (KafkaShareConsumer<String, String> c = subscribed(target(), group, topic, false)) {
            List<ConsumerRecord<String, String>> again = pollUntil(c, "the records again", batch -> { },
                    seen -> seen.size() >= values.size());
            assertEquals(List.of("f-0#1", "f-1#1", "f-2#1"), describe(again));
            c.commitSync();
        }
        ShareTarget.await("the group empty", () -> {
            try {
                return target().describe(group).members().size();
            } catch (Exception e) {
                return -1;
            }
        }, n -> n == 0);

        KafkaCli.Result deleted = tool(cli, "--delete", "--group", group);
        assertEquals(0, deleted.exitCode(), deleted.toString());
        KafkaCli.Result after = tool(cli, "--list");
        assertEquals(0, after.exitCode(), after.toString());
        assertFalse(after.lines().contains(group), after.toString());
    }

    private KafkaCli.Result tool(KafkaCli cli, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--bootstrap-server", target().bootstrap));
        all.addAll(List.of(args));
        return cli.run(SHARE_GROUP_COMMAND, all.toArray(String[]::new));
    }

    /**
     * g) A read_committed share group (share.isolation.level) is never given the records of an
     * aborted transaction, and is given the committed ones; a read_uncommitted group gets both.
     */
    @Test
    void readCommittedGroup_skipsAbortedTransactions() throws Exception {
        String topic = "share-g";
        String committedGroup = topicAndGroup(topic, Map.of(ISOLATION, "read_committed"));
        String uncommittedGroup = topic + "-uncommitted";
        target().setGroupConfigs(uncommittedGroup, Map.of(AUTO_OFFSET_RESET, "earliest"));
        java.util.Properties p = target().producerProps();
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "share-g-txn");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            producer.initTransactions();
            transaction(producer, topic, true, "c1", "c2");
            transaction(producer, topic, false, "a1", "a2");
            transaction(producer, topic, true, "c3");
        }
        target().produce(topic, List.of("end"));
        try (KafkaShareConsumer<String, String> c = subscribed(target(), committedGroup, topic, false)) {
            List<ConsumerRecord<String, String>> got = pollUntil(c, "the end record", batch -> { },
                    seen -> hasValue(seen, "end"));
            assertEquals(List.of("c1", "c2", "c3", "end"), values(got));
        }
        try (KafkaShareConsumer<String, String> c = subscribed(target(), uncommittedGroup, topic, false)) {
            List<ConsumerRecord<String, String>> got = pollUntil(c, "the end record", batch -> { },
                    seen -> hasValue(seen, "end"));
            assertEquals(List.of("c1", "c2", "a1", "a2", "c3", "end"), values(got));
        }
    }

    private static void transaction(KafkaProducer<String, String> producer, String topic, boolean commit,
            String... values) throws Exception {
        producer.beginTransaction();
        for (String v : values) {
            producer.send(new ProducerRecord<>(topic, 0, v, v)).get(30, TimeUnit.SECONDS);
        }
        if (commit) {
            producer.commitTransaction();
        } else {
            producer.abortTransaction();
        }
    }

    /**
     * Polls {@code c} without acknowledging until it has as many records as {@code expected}, then
     * asserts them, in order, as value#delivery count. Returns them.
     */
    private static List<ConsumerRecord<String, String>> assertPolled(KafkaShareConsumer<String, String> c,
            String what, String... expected) {
        List<ConsumerRecord<String, String>> got = pollUntil(c, what, batch -> { },
                seen -> seen.size() >= expected.length);
        assertEquals(List.of(expected), describe(got));
        return got;
    }
}
