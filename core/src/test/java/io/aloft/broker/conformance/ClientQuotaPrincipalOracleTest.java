package io.aloft.broker.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.TestBroker;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which quota entity a PLAINTEXT client (no authentication) falls under, Aloft against Apache Kafka
 * 4.3.1: a tiny producer_byte_rate is set on one entity at a time, a producer sends 200 KB, and the
 * transcript records whether it was throttled (its produce-throttle-time-max). Kafka names such a
 * client's user {@code ANONYMOUS}: {@code users/ANONYMOUS} and {@code users/<default>} apply to it,
 * {@code users/alice} does not.
 */
class ClientQuotaPrincipalOracleTest {
    private static final String TOPIC = "quota-principal";

    @TempDir
    static Path dir;
    static TestBroker aloftBroker;

    @BeforeAll
    static void start() throws Exception {
        aloftBroker = new TestBroker(dir);
    }

    @AfterAll
    static void stop() {
        if (aloftBroker != null) {
            aloftBroker.close();
        }
    }

    @Test
    void plaintextClient_fallsUnderTheSameUserEntities() throws Exception {
        Map<String, String> kafka = transcript(KafkaOracle.bootstrap());
        Map<String, String> aloft = transcript(aloftBroker.bootstrap());
        // Not vacuous: Kafka throttles the client under some of the entities, and not under all.
        assertTrue(kafka.containsValue("true") && kafka.containsValue("false"), "Kafka's transcript: " + kafka);
        assertEquals(kafka, aloft, "Aloft throttles otherwise than " + KafkaOracle.description());
    }

    private static Map<String, String> transcript(String bootstrap) throws Exception {
        Map<String, String> t = new TreeMap<>();
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            try {
                admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
            Map<String, String> anonymous = Map.of(ClientQuotaEntity.USER, "ANONYMOUS");
            Map<String, String> alice = Map.of(ClientQuotaEntity.USER, "alice");
            Map<String, String> defaultUser = new HashMap<>();
            defaultUser.put(ClientQuotaEntity.USER, null);
            int run = 0;
            for (Map<String, String> entity : List.of(anonymous, alice, defaultUser)) {
                set(admin, entity, 1024.0);
                t.put("users/" + entity.get(ClientQuotaEntity.USER) + ": throttled", Boolean.toString(
                        throttled(bootstrap, "principal-" + run++)));
                set(admin, entity, null);
            }
        }
        return t;
    }

    /** Sets (or with null removes) the entity's producer_byte_rate, and waits until the broker describes it. */
    private static void set(Admin admin, Map<String, String> entity, Double value) throws Exception {
        ClientQuotaEntity e = new ClientQuotaEntity(entity);
        admin.alterClientQuotas(List.of(new ClientQuotaAlteration(e, List.of(new ClientQuotaAlteration.Op(
                "producer_byte_rate", value))))).all().get(30, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (admin.describeClientQuotas(ClientQuotaFilter.all()).entities().get(30, TimeUnit.SECONDS)
                .containsKey(e) != (value != null)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the broker does not describe " + e + " with " + value + " after 15 s");
            }
            Thread.sleep(20);
        }
    }

    private static boolean throttled(String bootstrap, String clientId) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            // 200 KB against 1 KB/s, in 20 requests: the windows allow ~10 KB, so the later ones are throttled.
            for (int i = 0; i < 20; i++) {
                producer.send(new ProducerRecord<>(TOPIC, new byte[10_000])).get(60, TimeUnit.SECONDS);
                if (maxThrottle(producer) > 0) {
                    return true;
                }
            }
            return false;
        }
    }

    private static double maxThrottle(KafkaProducer<byte[], byte[]> producer) {
        return producer.metrics().entrySet().stream().filter(e -> e.getKey().name().equals(
                "produce-throttle-time-max") && e.getKey().group().equals("producer-metrics"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).findFirst().orElse(0);
    }
}
