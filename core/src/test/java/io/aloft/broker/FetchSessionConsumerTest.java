package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.fetch.FetchSessionCache;
import io.aloft.broker.fetch.FetchSessionStats;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real kafka-clients consumers, which use fetch sessions by default, against the broker's sessions:
 * every record is read exactly once and in order through incremental fetches, a broker restart
 * (the session gone with it), two consumers of the same partitions, and sessions evicting each
 * other from a one-slot cache (FETCH_SESSION_ID_NOT_FOUND under a live connection, then a full
 * fetch).
 */
class FetchSessionConsumerTest {
    private static final Duration DEADLINE = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    /** What one consumer has read: the next sequence number expected per partition. */
    private static final class Reader implements AutoCloseable {
        final KafkaConsumer<String, String> consumer;
        final Map<TopicPartition, Integer> next = new HashMap<>();
        final List<TopicPartition> assigned;

        Reader(String bootstrap, List<TopicPartition> partitions) {
            Properties p = new Properties();
            p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "200");
            p.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
            consumer = new KafkaConsumer<>(p);
            consumer.assign(partitions);
            assigned = partitions;
            partitions.forEach(tp -> next.put(tp, 0));
        }

        /** One poll; fails on a record out of order or seen twice. */
        void pollOnce() {
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                int expected = next.get(tp);
                int seq = Integer.parseInt(r.value());
                assertEquals(expected, seq, tp + ": record " + seq + " at offset " + r.offset()
                        + " (lost or repeated)");
                assertEquals(expected, r.offset(), tp + " offset");
                next.put(tp, expected + 1);
            }
        }

        boolean hasAll(Map<TopicPartition, Integer> produced) {
            return assigned.stream().allMatch(tp -> next.get(tp).equals(produced.getOrDefault(tp, 0)));
        }

        @Override
        public void close() {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    /** Produces {@code perPartition} records to each partition, values counting up per partition. */
    private static void produce(String bootstrap, List<TopicPartition> partitions, int perPartition,
            Map<TopicPartition, Integer> produced) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (TopicPartition tp : partitions) {
                for (int i = 0; i < perPartition; i++) {
                    int seq = produced.merge(tp, 1, Integer::sum) - 1;
                    producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), null, Integer.toString(seq)));
                }
            }
            producer.flush();
        }
    }

    /** Polls every reader until each has read everything produced to its partitions. */
    private static void readAll(Map<TopicPartition, Integer> produced, Reader... readers) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (true) {
            boolean done = true;
            for (Reader r : readers) {
                if (!r.hasAll(produced)) {
                    done = false;
                    r.pollOnce();
                }
            }
            if (done) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, "consumers did not read everything within " + DEADLINE);
        }
    }

    private static List<TopicPartition> createTopic(String bootstrap, String topic, int partitions) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        List<TopicPartition> out = new ArrayList<>();
        for (int i = 0; i < partitions; i++) {
            out.add(new TopicPartition(topic, i));
        }
        return out;
    }

    @Test
    void consumerOfManyPartitions_readsEverythingOnceThroughIncrementalFetches() throws Exception {
        try (TestBroker broker = new TestBroker(dir)) {
            List<TopicPartition> all = createTopic(broker.bootstrap(), "many", 100);
            Map<TopicPartition, Integer> produced = new HashMap<>();
            Random random = new Random(7);
            try (Reader reader = new Reader(broker.bootstrap(), all)) {
                for (int round = 0; round < 6; round++) {
                    // Each round writes to a random fifth of the partitions: most partitions of most
                    // fetches have nothing new, the case sessions leave out of responses.
                    List<TopicPartition> some = all.stream().filter(tp -> random.nextInt(5) == 0).toList();
                    produce(broker.bootstrap(), some, 3, produced);
                    readAll(produced, reader);
                }
            }
            FetchSessionStats stats = broker.broker().fetchSessions().stats();
            assertTrue(stats.sessionsCreated() >= 1, "the consumer got a session");
            assertTrue(stats.incrementalFetches() >= 6, "incremental fetches: " + stats.incrementalFetches());
            assertEquals(0, stats.sessionIdNotFound());
            assertEquals(0, stats.invalidEpoch());
        }
    }

    @Test
    void consumerAcrossABrokerRestart_losesAndRepeatsNothing() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        // A fixed listener port, so the consumer finds the restarted broker where it was.
        TestBroker broker = new TestBroker(dir, Map.of("listeners", "PLAINTEXT://127.0.0.1:" + port));
        try {
            List<TopicPartition> all = createTopic(broker.bootstrap(), "restart", 20);
            Map<TopicPartition, Integer> produced = new HashMap<>();
            try (Reader reader = new Reader(broker.bootstrap(), all)) {
                produce(broker.bootstrap(), all, 5, produced);
                readAll(produced, reader);
                assertTrue(broker.broker().fetchSessions().size() == 1, "the consumer holds a session");
                broker.close();
                broker = broker.restart(); // its sessions are gone with it
                produce(broker.bootstrap(), all, 5, produced);
                readAll(produced, reader);
                produce(broker.bootstrap(), all.subList(0, 3), 2, produced);
                readAll(produced, reader);
                // kafka-clients learns of the restart from its connection failing under a fetch, and
                // then starts over with a full fetch (naming its old session with epoch 0, which the
                // new broker does not know and ignores), which opens a new session.
                FetchSessionStats stats = broker.broker().fetchSessions().stats();
                assertTrue(stats.fullFetches() >= 1);
                assertTrue(stats.sessionsCreated() >= 1, "the consumer got a new session");
                assertTrue(stats.incrementalFetches() >= 1);
            }
        } finally {
            broker.close();
        }
    }

    @Test
    void twoConsumersOfTheSamePartitions_eachReadEverythingInTheirOwnSession() throws Exception {
        try (TestBroker broker = new TestBroker(dir)) {
            List<TopicPartition> all = createTopic(broker.bootstrap(), "shared", 12);
            Map<TopicPartition, Integer> produced = new HashMap<>();
            try (Reader a = new Reader(broker.bootstrap(), all);
                    Reader b = new Reader(broker.bootstrap(), all.subList(4, 12))) {
                for (int round = 0; round < 4; round++) {
                    produce(broker.bootstrap(), all.subList(round * 3, round * 3 + 3), 4, produced);
                    readAll(produced, a, b);
                }
            }
            FetchSessionStats stats = broker.broker().fetchSessions().stats();
            assertTrue(stats.sessionsCreated() >= 2, "one session per consumer: " + stats.sessionsCreated());
            assertTrue(stats.incrementalFetches() >= 8);
            assertEquals(0, stats.sessionIdNotFound());
        }
    }

    @Test
    void oneSlotThreeConsumers_sessionsEvictEachOther_allKeepConsuming() throws Exception {
        // One slot, sessions evictable after 50 ms unused. The consumers take turns: each reads what
        // was produced and then keeps fetching for 150 ms while the other two are idle, so the
        // session in the slot (another consumer's) has gone unused long enough for this consumer's
        // full fetch to evict it, and that consumer's next incremental fetch is answered
        // FETCH_SESSION_ID_NOT_FOUND, upon which it must fall back to a full fetch.
        try (TestBroker broker = TestBroker.withFetchSessionEvictionMs(dir,
                Map.of("max.incremental.fetch.session.cache.slots", "1"), 50)) {
            List<TopicPartition> all = createTopic(broker.bootstrap(), "evict", 10);
            Map<TopicPartition, Integer> produced = new HashMap<>();
            FetchSessionCache sessions = broker.broker().fetchSessions();
            try (Reader small = new Reader(broker.bootstrap(), all.subList(0, 2));
                    Reader middle = new Reader(broker.bootstrap(), all.subList(0, 5));
                    Reader large = new Reader(broker.bootstrap(), all)) {
                long deadline = System.nanoTime() + DEADLINE.toNanos();
                for (int round = 0; round < 4 || sessions.stats().sessionIdNotFound() < 3; round++) {
                    produce(broker.bootstrap(), all, 2, produced);
                    for (Reader r : List.of(small, middle, large)) {
                        readAll(produced, r);
                        long turnEnds = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(150);
                        while (System.nanoTime() < turnEnds) {
                            r.pollOnce();
                        }
                        assertTrue(sessions.size() <= 1);
                    }
                    assertTrue(System.nanoTime() < deadline, "too few sessions evicted: "
                            + sessions.stats().sessionIdNotFound());
                }
            }
            FetchSessionStats stats = sessions.stats();
            assertTrue(stats.sessionsEvicted() >= 3, "evicted " + stats.sessionsEvicted());
            assertTrue(stats.incrementalFetches() > 0);
        }
    }
}
