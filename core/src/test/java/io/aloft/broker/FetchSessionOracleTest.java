package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.servers.ApacheKafkaServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchRequestData.ForgottenTopic;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Kafka 4.3.1 as the oracle of fetch sessions on the wire: the same sequence of raw Fetch
 * requests goes to Kafka (a child process) and to Aloft, and each pair of responses must agree on
 * the top-level error, whether a session id is given, and which partitions the response carries
 * with their errors, high watermarks, log start offsets and whether they hold records. Session ids
 * themselves differ (each broker draws its own); the test follows each broker's ids by name.
 */
class FetchSessionOracleTest {
    @TempDir
    static Path dir;
    static ApacheKafkaServer kafkaServer;
    static TestBroker aloftBroker;
    static Side kafka;
    static Side aloft;
    /** The highest Fetch version both serve (v13+ names topics by id). */
    static short latest;
    static final short BY_NAMES = 12;

    @BeforeAll
    static void start() throws Exception {
        kafkaServer = new ApacheKafkaServer(ApacheKafkaServer.findLibsDir(), "512m", false,
                Files.createDirectories(dir.resolve("kafka")), Map.of(), Duration.ofSeconds(120));
        kafkaServer.start();
        aloftBroker = new TestBroker(Files.createDirectories(dir.resolve("aloft")));
        kafka = new Side("kafka", kafkaServer.bootstrap());
        aloft = new Side("aloft", aloftBroker.bootstrap());
        latest = (short) Math.min(kafka.conn.maxVersion(ApiKeys.FETCH), aloft.conn.maxVersion(ApiKeys.FETCH));
        for (Side s : List.of(kafka, aloft)) {
            s.createTopic("s1", 3);
            s.createTopic("s2", 1);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        for (Side s : new Side[] {kafka, aloft}) {
            if (s != null) {
                s.close();
            }
        }
        if (aloftBroker != null) {
            aloftBroker.close();
        }
        if (kafkaServer != null) {
            kafkaServer.stop();
        }
    }

    /** A partition of a request: topic, partition, fetch offset. */
    record P(String topic, int partition, long offset) {
    }

    /** What is compared of one response. */
    record Obs(Errors error, boolean hasSession, TreeMap<String, String> partitions) {
        int size() {
            return partitions.size();
        }
    }

    /** One broker under test: a raw connection, clients for setup, and its session ids by name. */
    static final class Side implements AutoCloseable {
        final String name;
        final String bootstrap;
        RawKafkaClient conn;
        final Admin admin;
        final KafkaProducer<String, String> producer;
        final Map<String, Uuid> ids = new HashMap<>();
        final Map<String, Integer> sessions = new HashMap<>();
        int lastSessionId;

        Side(String name, String bootstrap) throws Exception {
            this.name = name;
            this.bootstrap = bootstrap;
            conn = new RawKafkaClient(bootstrap);
            Properties p = new Properties();
            p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            admin = Admin.create(p);
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, "500");
            producer = new KafkaProducer<>(p);
        }

        void createTopic(String topic, int partitions) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                try {
                    admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all()
                            .get(30, TimeUnit.SECONDS);
                    break;
                } catch (ExecutionException e) {
                    // Kafka deletes a topic in the background: its name is free again a little later.
                    assertTrue(e.getCause() instanceof TopicExistsException && System.nanoTime() < deadline,
                            e.toString());
                    Thread.onSpinWait();
                }
            }
            Uuid id = null;
            while (id == null) {
                try {
                    id = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
                            .topicId();
                } catch (ExecutionException e) {
                    // Kafka's broker learns of the topic from its controller a little after the create returns.
                    assertTrue(System.nanoTime() < deadline, name + ": " + topic + " not described: " + e);
                    Thread.onSpinWait();
                }
            }
            ids.put(topic, id);
            // Wait until every partition answers a sessionless fetch without error (leaders elected).
            List<P> parts = new ArrayList<>();
            for (int i = 0; i < partitions; i++) {
                parts.add(new P(topic, i, 0));
            }
            while (true) {
                Obs o = fetch(latest(), 0, -1, parts, List.of());
                if (o.partitions().values().stream().allMatch(v -> v.startsWith("NONE"))) {
                    return;
                }
                assertTrue(System.nanoTime() < deadline, name + ": " + topic + " not ready: " + o);
                Thread.onSpinWait();
            }
        }

        void deleteTopic(String topic) throws Exception {
            admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        }

        void produce(String topic, int partition, int records) throws Exception {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, partition, null, "v" + i)).get(30, TimeUnit.SECONDS);
            }
        }

        int session(String symbol) {
            Integer id = sessions.get(symbol);
            return id == null ? 0 : id;
        }

        Obs fetch(short version, int sessionId, int epoch, List<P> parts, List<P> forgotten) throws Exception {
            boolean byIds = version >= 13;
            Map<String, FetchTopic> topics = new LinkedHashMap<>();
            for (P p : parts) {
                FetchTopic t = topics.computeIfAbsent(p.topic(), k -> byIds
                        ? new FetchTopic().setTopicId(ids.getOrDefault(k, Uuid.ZERO_UUID))
                        : new FetchTopic().setTopic(k));
                t.partitions().add(new FetchPartition().setPartition(p.partition()).setFetchOffset(p.offset())
                        .setPartitionMaxBytes(1 << 20).setCurrentLeaderEpoch(-1).setLogStartOffset(-1));
            }
            Map<String, ForgottenTopic> forget = new LinkedHashMap<>();
            for (P p : forgotten) {
                forget.computeIfAbsent(p.topic(), k -> byIds
                        ? new ForgottenTopic().setTopicId(ids.get(k)) : new ForgottenTopic().setTopic(k))
                        .partitions().add(p.partition());
            }
            FetchRequestData data = new FetchRequestData().setMaxWaitMs(0).setMinBytes(1).setMaxBytes(50 << 20)
                    .setTopics(new ArrayList<>(topics.values()));
            if (version >= 7) {
                data.setSessionId(sessionId).setSessionEpoch(epoch)
                        .setForgottenTopicsData(new ArrayList<>(forget.values()));
            }
            FetchResponse r = (FetchResponse) conn.send(new FetchRequest(data, version));
            lastSessionId = r.data().sessionId();
            Map<Uuid, String> names = new HashMap<>();
            ids.forEach((n, id) -> names.put(id, n));
            TreeMap<String, String> out = new TreeMap<>();
            for (FetchableTopicResponse t : r.data().responses()) {
                String topic = byIds ? names.getOrDefault(t.topicId(), "id:" + t.topicId()) : t.topic();
                for (PartitionData pd : t.partitions()) {
                    out.put(topic + "-" + pd.partitionIndex(), Errors.forCode(pd.errorCode()) + " hw="
                            + pd.highWatermark() + " start=" + pd.logStartOffset()
                            + (FetchResponse.recordsSize(pd) > 0 ? " records" : ""));
                }
            }
            return new Obs(Errors.forCode(r.data().errorCode()), r.data().sessionId() != 0, out);
        }

        @Override
        public void close() throws Exception {
            conn.close();
            producer.close(Duration.ofSeconds(5));
            admin.close(Duration.ofSeconds(5));
        }
    }

    private static short latest() {
        return latest;
    }

    /** Runs {@code step} on both brokers, checks they agree, and returns what they saw. */
    private static Obs both(String what, Function<Side, Obs> step) {
        Obs k = step.apply(kafka);
        Obs a = step.apply(aloft);
        assertEquals(k, a, what + ": Aloft's answer differs from Kafka's");
        return k;
    }

    /**
     * A fetch on both brokers, naming a session by {@code symbol}; a session id in the answer is
     * kept under {@code keepAs}.
     */
    private static Obs fetch(String what, short version, String symbol, int epoch, List<P> parts, List<P> forgotten,
            String keepAs) {
        return both(what, s -> {
            try {
                Obs o = s.fetch(version, s.session(symbol), epoch, parts, forgotten);
                if (keepAs != null && o.hasSession()) {
                    s.sessions.put(keepAs, s.lastSessionId);
                }
                return o;
            } catch (Exception e) {
                throw new AssertionError(s.name + ": " + what, e);
            }
        });
    }

    private static void onBoth(ThrowingConsumer<Side> action) throws Exception {
        action.accept(kafka);
        action.accept(aloft);
    }

    interface ThrowingConsumer<T> {
        void accept(T t) throws Exception;
    }

    private static final List<P> NONE = List.of();

    @Test
    void sessionLifecycle_incrementalAnswers_andErrors_matchKafka() throws Exception {
        List<P> s1 = List.of(new P("s1", 0, 0), new P("s1", 1, 0), new P("s1", 2, 0));
        Obs o = fetch("full fetch, epoch 0", latest, null, 0, s1, NONE, "A");
        assertTrue(o.hasSession());
        assertEquals(3, o.size());
        o = fetch("incremental, nothing new", latest, "A", 1, NONE, NONE, null);
        assertEquals(Errors.NONE, o.error());
        assertTrue(o.hasSession());
        assertEquals(0, o.size());

        onBoth(s -> s.produce("s1", 1, 2));
        o = fetch("incremental, records on s1-1", latest, "A", 2, NONE, NONE, null);
        assertEquals(List.of("s1-1"), List.copyOf(o.partitions().keySet()));
        o = fetch("incremental, s1-1 moved to its end", latest, "A", 3, List.of(new P("s1", 1, 2)), NONE, null);
        assertEquals(0, o.size());

        o = fetch("wrong epoch", latest, "A", 7, List.of(new P("s2", 0, 0)), NONE, null);
        assertEquals(Errors.INVALID_FETCH_SESSION_EPOCH, o.error());
        assertTrue(!o.hasSession() && o.size() == 0);
        o = fetch("the right epoch after a failed request", latest, "A", 4, NONE, NONE, null);
        assertEquals(Errors.NONE, o.error());

        o = both("unknown session id", s -> {
            try {
                return s.fetch(latest, s.session("A") ^ 0x5a5a5a5, 1, NONE, NONE);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        assertEquals(Errors.FETCH_SESSION_ID_NOT_FOUND, o.error());

        o = fetch("incremental, s2-0 added", latest, "A", 5, List.of(new P("s2", 0, 0)), NONE, null);
        assertEquals(List.of("s2-0"), List.copyOf(o.partitions().keySet()));
        onBoth(s -> s.produce("s1", 0, 1));
        o = fetch("incremental, s1-0 forgotten as it gets a record", latest, "A", 6, NONE, List.of(new P("s1", 0, 0)),
                null);
        assertEquals(0, o.size());

        onBoth(s -> {
            s.conn.close();
            s.conn = new RawKafkaClient(s.bootstrap);
        });
        onBoth(s -> s.produce("s2", 0, 1));
        o = fetch("incremental on a new connection", latest, "A", 7, NONE, NONE, null);
        assertEquals(List.of("s2-0"), List.copyOf(o.partitions().keySet()));

        o = fetch("a by-ids session fetched by names", BY_NAMES, "A", 8, NONE, NONE, null);
        assertEquals(Errors.FETCH_SESSION_TOPIC_ID_ERROR, o.error());

        o = fetch("epoch -1 closes the session; full answer without one", latest, "A", -1, List.of(new P("s1", 1, 0)),
                NONE, null);
        assertTrue(!o.hasSession());
        assertEquals(List.of("s1-1"), List.copyOf(o.partitions().keySet()));
        o = fetch("the closed session", latest, "A", 8, NONE, NONE, null);
        assertEquals(Errors.FETCH_SESSION_ID_NOT_FOUND, o.error());
    }

    @Test
    void sessionsByNames_replacedByAFullFetch_andBelowVersion7_matchKafka() throws Exception {
        Obs o = fetch("full fetch by names", BY_NAMES, null, 0, List.of(new P("s1", 2, 0)), NONE, "B");
        assertTrue(o.hasSession());
        assertEquals(0, fetch("incremental by names", BY_NAMES, "B", 1, NONE, NONE, null).size());
        onBoth(s -> s.produce("s1", 2, 1));
        o = fetch("incremental by names, records", BY_NAMES, "B", 2, NONE, NONE, null);
        assertEquals(List.of("s1-2"), List.copyOf(o.partitions().keySet()));
        o = fetch("a by-names session fetched by ids", latest, "B", 3, NONE, NONE, null);
        assertEquals(Errors.FETCH_SESSION_TOPIC_ID_ERROR, o.error());

        o = fetch("full fetch naming session B with epoch 0", BY_NAMES, "B", 0, List.of(new P("s2", 0, 0)), NONE, "C");
        assertTrue(o.hasSession());
        onBoth(s -> assertNotEquals(s.session("B"), s.session("C"), s.name));
        assertEquals(Errors.FETCH_SESSION_ID_NOT_FOUND, fetch("replaced session B", BY_NAMES, "B", 3, NONE, NONE,
                null).error());
        assertEquals(Errors.NONE, fetch("its replacement", BY_NAMES, "C", 1, NONE, NONE, null).error());
        o = fetch("incremental forgetting every partition", BY_NAMES, "C", 2, NONE, List.of(new P("s2", 0, 0)), null);
        assertEquals(Errors.NONE, o.error());
        assertEquals(0, o.size());
        o = fetch("the session after all was forgotten", BY_NAMES, "C", 3, NONE, NONE, null);
        assertEquals(Errors.FETCH_SESSION_ID_NOT_FOUND, o.error());

        o = fetch("version 6 (no sessions)", (short) 6, null, -1, List.of(new P("s1", 0, 0)), NONE, null);
        assertTrue(!o.hasSession());
        fetch("full fetch of no partition", latest, null, 0, NONE, NONE, "E");
        fetch("epoch -1 with no partition", latest, "E", -1, NONE, NONE, null);
    }

    @Test
    void unknownTopicId_andTopicRecreatedWithANewId_matchKafka() throws Exception {
        onBoth(s -> s.ids.put("ghost", Uuid.randomUuid()));
        Obs o = fetch("full fetch of an unknown topic id", latest, null, 0, List.of(new P("ghost", 0, 0),
                new P("s2", 0, 0)), NONE, "G");
        assertEquals(Errors.UNKNOWN_TOPIC_ID.name(), o.partitions().get("ghost-0").split(" ")[0]);
        o = fetch("incremental with the unknown topic id", latest, "G", 1, NONE, NONE, null);
        assertTrue(o.partitions().containsKey("ghost-0"), o.toString());

        onBoth(s -> s.createTopic("s3", 1));
        o = fetch("session on s3", latest, null, 0, List.of(new P("s3", 0, 0)), NONE, "D");
        assertTrue(o.hasSession());
        Map<String, Uuid> oldIds = new HashMap<>();
        onBoth(s -> {
            oldIds.put(s.name, s.ids.get("s3"));
            s.deleteTopic("s3");
            s.createTopic("s3", 1);
            s.produce("s3", 0, 1);
            // Requests name the old id as "s3-old", the new one as "s3".
            s.ids.put("s3-old", oldIds.get(s.name));
        });
        o = fetch("incremental after the topic was recreated", latest, "D", 1, NONE, NONE, null);
        assertEquals(1, o.size(), o.toString());
        // The session knew the id as s3's: s3 now has another id.
        assertTrue(o.partitions().get("s3-old-0").startsWith("INCONSISTENT_TOPIC_ID"), o.toString());
        o = fetch("new id added, old id forgotten", latest, "D", 2, List.of(new P("s3", 0, 0)),
                List.of(new P("s3-old", 0, 0)), null);
        assertEquals(List.of("s3-0"), List.copyOf(o.partitions().keySet()));
        assertTrue(o.partitions().get("s3-0").endsWith("records"), o.toString());
        o = fetch("a full fetch naming the old id", latest, null, -1, List.of(new P("s3-old", 0, 0)), NONE, null);
        assertTrue(o.partitions().get("s3-old-0").startsWith("UNKNOWN_TOPIC_ID"), o.toString());
    }

    @Test
    void topicDeletedUnderASession_matchesKafka() throws Exception {
        onBoth(s -> s.createTopic("s4", 2));
        Obs o = fetch("session on s4", latest, null, 0, List.of(new P("s4", 0, 0), new P("s4", 1, 0)), NONE, "F");
        assertTrue(o.hasSession());
        onBoth(s -> s.deleteTopic("s4"));
        // Kafka's broker learns of the deletion asynchronously: ask until both answer the same.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int epoch = 1;
        while (true) {
            int e = epoch;
            Obs k = step(kafka, "F", e);
            Obs a = step(aloft, "F", e);
            epoch++;
            if (k.size() == 2 && k.equals(a)) {
                assertTrue(k.partitions().values().stream().allMatch(v -> !v.startsWith("NONE")), k.toString());
                break;
            }
            assertTrue(System.nanoTime() < deadline, "Kafka " + k + ", Aloft " + a);
            Thread.onSpinWait();
        }
    }

    /** An incremental fetch with no change on one broker. */
    private static Obs step(Side s, String symbol, int epoch) throws Exception {
        return s.fetch(latest, s.session(symbol), epoch, NONE, NONE);
    }
}
