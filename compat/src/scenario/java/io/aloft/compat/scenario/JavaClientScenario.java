package io.aloft.compat.scenario;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Timer;
import java.util.TimerTask;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Aloft's client-compatibility scenario with one generation of kafka-clients, run by the harness in
 * a child JVM whose class path holds that generation's jars only. Uses only APIs present from 2.8 to
 * 4.x (Admin {@code describeTopics} aside: {@link TopicDescriptions} comes in two versions), so the
 * same source compiles against every generation tested, and each runs with its own defaults
 * (idempotent producer with acks=all from 3.0 on).
 *
 * <p>The scenario: create a topic, produce keyed records, list offsets, consume them with a
 * consumer group from the beginning, commit, then read the committed offsets back and list and
 * describe the group and the topic. Every step prints one line; the last line is "OK ..." and the
 * exit status 0, or the failure on stderr with status 1. A step still waiting when the time limit
 * passes halts the JVM with status 2, naming the step; the JVM also halts when the harness that
 * started it is gone.
 *
 * <p>Usage: {@code bootstrap topic group partitions records timeoutSeconds [consumerKey=value...]}.
 *
 * <p>Confined to the main thread; the watchdog timer only reads {@link #step}.
 */
public final class JavaClientScenario {
    private static final int KEY_COUNT = 17; // record i: key "key-<i mod 17>", value "<i>"
    private static final long CALL_TIMEOUT_S = 10;

    private static volatile String step = "start";

    private final String bootstrap;
    private final String topic;
    private final String group;
    private final int partitions;
    private final int records;
    private final Map<String, String> consumerExtras;

    private JavaClientScenario(String[] args) {
        bootstrap = args[0];
        topic = args[1];
        group = args[2];
        partitions = Integer.parseInt(args[3]);
        records = Integer.parseInt(args[4]);
        consumerExtras = new HashMap<>();
        for (int i = 6; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            consumerExtras.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 6) {
            System.err.println("usage: bootstrap topic group partitions records timeoutSeconds [consumerKey=value...]");
            System.exit(64);
        }
        watch(Long.parseLong(args[5]));
        JavaClientScenario scenario = new JavaClientScenario(args);
        try {
            scenario.run();
        } catch (ScenarioFailure | ExecutionException | TimeoutException e) {
            System.err.println("FAILED: at step '" + step + "': " + e);
            e.printStackTrace();
            System.exit(1);
        }
        System.out.println("OK kafka-clients " + org.apache.kafka.common.utils.AppInfoParser.getVersion() + ": "
                + scenario.records + " records in " + scenario.partitions + " partitions produced, consumed in order"
                + " by group " + scenario.group + ", offsets committed");
        System.exit(0); // the clients' daemon threads are no reason to linger
    }

    /** Halts with status 2 naming the step once the time limit passes, or with 3 when the harness is gone. */
    private static void watch(long timeoutSeconds) {
        ProcessHandle.current().parent().ifPresent(p -> p.onExit().thenRun(() -> Runtime.getRuntime().halt(3)));
        new Timer("scenario-watchdog", true).schedule(new TimerTask() {
            @Override
            public void run() {
                System.err.println("TIMEOUT: no progress within " + timeoutSeconds + " s; stuck at step: " + step);
                System.err.flush();
                Runtime.getRuntime().halt(2);
            }
        }, TimeUnit.SECONDS.toMillis(timeoutSeconds));
    }

    private static void step(String text) {
        step = text;
        System.out.println("step: " + text);
    }

    private static String keyOf(int i) {
        return "key-" + i % KEY_COUNT;
    }

    private void run() throws Exception {
        Properties adminProps = base();
        try (Admin admin = Admin.create(adminProps)) {
            step("create topic " + topic + " with " + partitions + " partitions");
            admin.createTopics(Collections.singleton(new NewTopic(topic, partitions, (short) 1))).all()
                    .get(CALL_TIMEOUT_S, TimeUnit.SECONDS);

            step("list and describe topics");
            describeTopic(admin);

            step("produce " + records + " keyed records");
            Map<TopicPartition, Map<Long, Integer>> acked = produce();
            Map<TopicPartition, Long> ends = checkAcked(acked);

            step("list start and end offsets (ListOffsets)");
            checkListedOffsets(admin, ends);

            step("consume from the beginning with group " + group);
            Properties c = base();
            c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            c.putAll(consumerExtras);
            try (KafkaConsumer<String, String> consumer =
                         new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
                consumer.subscribe(Collections.singletonList(topic));
                consume(consumer, acked);

                step("commit");
                consumer.commitSync(Duration.ofSeconds(CALL_TIMEOUT_S));

                step("describe group " + group + " while its member is active");
                describeGroup(admin, "Stable", 1);

                step("fetch committed offsets (OffsetFetch)");
                Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(ends.keySet(),
                        Duration.ofSeconds(CALL_TIMEOUT_S));
                sameOffsets("committed offsets (consumer)", offsetsOf(committed), ends);
                sameOffsets("committed offsets (admin)", offsetsOf(admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata().get(CALL_TIMEOUT_S, TimeUnit.SECONDS)), ends);
            }

            step("leave the group, then list groups and read offsets again");
            Set<String> groups = new TreeSet<>();
            for (ConsumerGroupListing g : admin.listConsumerGroups().all().get(CALL_TIMEOUT_S, TimeUnit.SECONDS)) {
                groups.add(g.groupId());
            }
            check(groups.contains(group), "list groups: " + group + " missing from " + groups);
            describeGroup(admin, "Empty", 0);
            sameOffsets("committed offsets (admin)", offsetsOf(admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(CALL_TIMEOUT_S, TimeUnit.SECONDS)), ends);
        }
    }

    private Properties base() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "aloft-compat-java");
        return p;
    }

    private void describeTopic(Admin admin) throws Exception {
        // A broker learns a topic it just created from its metadata log asynchronously (Apache
        // Kafka's KRaft brokers do), so a listing right after CreateTopics may not show it yet.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Set<String> names = admin.listTopics().names().get(CALL_TIMEOUT_S, TimeUnit.SECONDS);
        while (!names.contains(topic) && System.nanoTime() < deadline) {
            Thread.sleep(100);
            names = admin.listTopics().names().get(CALL_TIMEOUT_S, TimeUnit.SECONDS);
        }
        check(names.contains(topic), "list topics: " + topic + " missing from " + names);
        TopicDescription d = TopicDescriptions.describe(admin, topic, CALL_TIMEOUT_S);
        check(d != null && d.partitions().size() == partitions, "describe topics: " + d);
        for (TopicPartitionInfo p : d.partitions()) {
            check(p.leader() != null && p.leader().id() >= 0, "describe topics: partition without leader: " + d);
        }
    }

    /** Sends every record, then reads each acknowledgement: (partition, offset) to record number. */
    private Map<TopicPartition, Map<Long, Integer>> produce() throws Exception {
        Properties p = base();
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer =
                     new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            System.out.println("producer: enable.idempotence default "
                    + ProducerConfig.configDef().defaultValues().get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG)
                    + ", acks default " + ProducerConfig.configDef().defaultValues().get(ProducerConfig.ACKS_CONFIG));
            for (int i = 0; i < records; i++) {
                sent.add(producer.send(new ProducerRecord<>(topic, keyOf(i), Integer.toString(i))));
            }
            producer.flush();
        }
        Map<TopicPartition, Map<Long, Integer>> acked = new HashMap<>();
        for (int i = 0; i < records; i++) {
            RecordMetadata m = sent.get(i).get(CALL_TIMEOUT_S, TimeUnit.SECONDS);
            Integer previous = acked.computeIfAbsent(new TopicPartition(m.topic(), m.partition()), k -> new TreeMap<>())
                    .put(m.offset(), i);
            check(previous == null, "records " + previous + " and " + i + " both acknowledged at " + m);
        }
        return acked;
    }

    /** A fresh topic: each partition's offsets run 0..n-1, in send order, one partition per key. */
    private Map<TopicPartition, Long> checkAcked(Map<TopicPartition, Map<Long, Integer>> acked) {
        Map<TopicPartition, Long> ends = new TreeMap<>((a, b) -> Integer.compare(a.partition(), b.partition()));
        Map<String, Integer> keyPartition = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            TopicPartition tp = new TopicPartition(topic, p);
            Map<Long, Integer> byOffset = acked.getOrDefault(tp, Collections.emptyMap());
            long expectedOffset = 0;
            int last = -1;
            for (Map.Entry<Long, Integer> e : byOffset.entrySet()) {
                check(e.getKey() == expectedOffset, tp + ": offsets acknowledged are not 0.." + (byOffset.size() - 1)
                        + ": " + byOffset.keySet());
                check(e.getValue() > last, tp + ": record " + e.getValue() + " at offset " + e.getKey()
                        + " after record " + last);
                Integer q = keyPartition.putIfAbsent(keyOf(e.getValue()), p);
                check(q == null || q == p, "key " + keyOf(e.getValue()) + " acknowledged in partitions " + q + " and " + p);
                last = e.getValue();
                expectedOffset++;
            }
            ends.put(tp, expectedOffset);
        }
        for (TopicPartition tp : acked.keySet()) {
            check(tp.topic().equals(topic) && tp.partition() < partitions, "acknowledged in " + tp);
        }
        return ends;
    }

    private void checkListedOffsets(Admin admin, Map<TopicPartition, Long> ends) throws Exception {
        Map<TopicPartition, Long> zeros = new HashMap<>();
        Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (TopicPartition tp : ends.keySet()) {
            zeros.put(tp, 0L);
            earliest.put(tp, OffsetSpec.earliest());
            latest.put(tp, OffsetSpec.latest());
        }
        sameOffsets("admin start offsets", listed(admin.listOffsets(earliest)), zeros);
        sameOffsets("admin end offsets", listed(admin.listOffsets(latest)), ends);
        Properties c = base();
        try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            Duration timeout = Duration.ofSeconds(CALL_TIMEOUT_S);
            sameOffsets("consumer beginningOffsets", consumer.beginningOffsets(ends.keySet(), timeout), zeros);
            sameOffsets("consumer endOffsets", consumer.endOffsets(ends.keySet(), timeout), ends);
        }
    }

    private static Map<TopicPartition, Long> listed(ListOffsetsResult result) throws Exception {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e
                : result.all().get(CALL_TIMEOUT_S, TimeUnit.SECONDS).entrySet()) {
            offsets.put(e.getKey(), e.getValue().offset());
        }
        return offsets;
    }

    private void consume(KafkaConsumer<String, String> consumer, Map<TopicPartition, Map<Long, Integer>> acked) {
        Map<TopicPartition, Long> next = new HashMap<>();
        int count = 0;
        while (count < records) {
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                long expected = next.getOrDefault(tp, 0L);
                check(r.offset() == expected, tp + ": read offset " + r.offset() + ", expected " + expected
                        + " (records must arrive in order, once)");
                Integer want = acked.getOrDefault(tp, Collections.emptyMap()).get(r.offset());
                check(want != null && keyOf(want).equals(r.key()) && Integer.toString(want).equals(r.value()),
                        tp + " offset " + r.offset() + ": read key " + r.key() + " value " + r.value()
                                + ", produced record " + want);
                next.put(tp, r.offset() + 1);
                count++;
            }
        }
    }

    @SuppressWarnings("deprecation") // state(): the one accessor from 2.8 to 4.x (groupState() came in 4.0)
    private void describeGroup(Admin admin, String state, int members) throws Exception {
        ConsumerGroupDescription d = admin.describeConsumerGroups(Collections.singleton(group)).all()
                .get(CALL_TIMEOUT_S, TimeUnit.SECONDS).get(group);
        check(d != null && d.state().toString().equals(state) && d.members().size() == members,
                "describe group: " + d + "; expected state " + state + " with " + members + " members");
        for (MemberDescription m : d.members()) {
            Set<Integer> parts = new TreeSet<>();
            for (TopicPartition tp : m.assignment().topicPartitions()) {
                if (tp.topic().equals(topic)) {
                    parts.add(tp.partition());
                }
            }
            Set<Integer> all = new TreeSet<>();
            for (int p = 0; p < partitions; p++) {
                all.add(p);
            }
            check(parts.equals(all), "describe group: the member is assigned partitions " + parts + " of " + topic);
        }
    }

    private static Map<TopicPartition, Long> offsetsOf(Map<TopicPartition, OffsetAndMetadata> committed) {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : committed.entrySet()) {
            offsets.put(e.getKey(), e.getValue() == null ? null : e.getValue().offset());
        }
        return offsets;
    }

    private static void sameOffsets(String what, Map<TopicPartition, Long> got, Map<TopicPartition, Long> want) {
        for (Map.Entry<TopicPartition, Long> e : want.entrySet()) {
            check(e.getValue().equals(got.get(e.getKey())), what + ": " + new TreeMap<>(stringKeys(got))
                    + ", expected " + new TreeMap<>(stringKeys(want)));
        }
    }

    private static Map<String, Long> stringKeys(Map<TopicPartition, Long> m) {
        Map<String, Long> out = new HashMap<>();
        m.forEach((k, v) -> out.put(k.toString(), v));
        return out;
    }

    private static void check(boolean condition, String failure) {
        if (!condition) {
            throw new ScenarioFailure(failure);
        }
    }

    /** What the scenario saw that a correct broker and client would not produce. */
    private static final class ScenarioFailure extends RuntimeException {
        ScenarioFailure(String message) {
            super(message);
        }
    }
}
