package io.aloft.broker.security.scram;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.TestBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.DuplicateResourceException;
import org.apache.kafka.common.errors.ResourceNotFoundException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.UnacceptableCredentialException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SCRAM-SHA-256 and SCRAM-SHA-512 (issue 20) with real kafka-clients on two brokers sharing a
 * controller: credentials set with Admin.alterUserScramCredentials (the admin client salts the
 * password; the broker keeps only salt, iterations and keys) authenticate producers and consumers
 * on both brokers; wrong passwords, unknown users and deleted credentials get
 * SaslAuthenticationException; Kafka's errors for bad alterations and descriptions; a restarted
 * broker still has the credentials.
 */
class ScramTest {
    private static final String MECHANISMS = "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512";
    private static final String GENERIC = "Authentication failed during authentication due to invalid credentials "
            + "with SASL mechanism ";

    @TempDir
    static Path dir;
    private static TestBroker one;
    private static TestBroker two;

    @BeforeAll
    static void start() throws Exception {
        String objects = dir.resolve("objects").toUri().toString();
        one = new TestBroker(dir.resolve("b1"), props(Map.of("aloft.object.storage.url", objects)));
        two = new TestBroker(dir.resolve("b2"), props(Map.of("node.id", "2", "process.roles", "broker",
                "controller.quorum.voters", one.props().get("controller.quorum.voters"),
                "aloft.object.storage.url", objects)));
    }

    private static Map<String, String> props(Map<String, String> more) {
        Map<String, String> p = new HashMap<>(more);
        p.put("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0");
        p.put("sasl.enabled.mechanisms", MECHANISMS);
        p.put("connection.failed.authentication.delay.ms", "0");
        p.put("listener.name.sasl_plaintext.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_admin=\"admin-secret\";");
        return p;
    }

    @AfterAll
    static void stop() {
        if (two != null) {
            two.close();
        }
        if (one != null) {
            one.close();
        }
    }

    private static Properties scram(TestBroker broker, String mechanism, String user, String password) {
        Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + broker.broker().port("SASL_PLAINTEXT"));
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        p.put(SaslConfigs.SASL_MECHANISM, mechanism);
        p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required "
                + "username=\"" + user + "\" password=\"" + password + "\";");
        p.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        p.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        return p;
    }

    private static Admin plainAdmin(TestBroker broker) {
        Properties p = broker.clientProps();
        p.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        p.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        return Admin.create(p);
    }

    private static void upsert(Admin admin, String user, ScramMechanism mechanism, int iterations, String password)
            throws Exception {
        admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
                new ScramCredentialInfo(mechanism, iterations), password))).all().get(30, TimeUnit.SECONDS);
    }

    @Test
    void scram256And512_produceConsume_onBothBrokers() throws Exception {
        try (Admin admin = plainAdmin(one)) {
            upsert(admin, "alice", ScramMechanism.SCRAM_SHA_256, 8192, "alice-secret");
            upsert(admin, "bob", ScramMechanism.SCRAM_SHA_512, 4096, "bob-secret");
            UserScramCredentialsDescription alice = admin.describeUserScramCredentials(List.of("alice"))
                    .description("alice").get(30, TimeUnit.SECONDS);
            assertEquals(List.of(new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192)),
                    alice.credentialInfos());
            admin.createTopics(List.of(new NewTopic("scram-topic", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        // The admin client may have sent the change through either broker; the other learns it a watch round later.
        awaitLogin(one, "SCRAM-SHA-256", "alice", "alice-secret");
        Properties pp = scram(one, "SCRAM-SHA-256", "alice", "alice-secret");
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>("scram-topic", "k", "v" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        // The other broker learns the credentials from the change feed.
        awaitLogin(two, "SCRAM-SHA-512", "bob", "bob-secret");
        Properties cp = scram(two, "SCRAM-SHA-512", "bob", "bob-secret");
        cp.put(ConsumerConfig.GROUP_ID_CONFIG, "scram-group");
        cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        int seen = 0;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
            consumer.subscribe(List.of("scram-topic"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (seen < 5 && System.nanoTime() < deadline) {
                for (var r : consumer.poll(Duration.ofMillis(500))) {
                    assertEquals("v" + seen, r.value());
                    seen++;
                }
            }
        }
        assertEquals(5, seen);
        // Restarted, broker two gets the credentials back from the controller's image.
        two.close();
        two = two.restart();
        awaitLogin(two, "SCRAM-SHA-256", "alice", "alice-secret");
        try (Admin admin = Admin.create(scram(two, "SCRAM-SHA-256", "alice", "alice-secret"))) {
            assertEquals(2, admin.describeUserScramCredentials().all().get(30, TimeUnit.SECONDS).size());
        }
    }

    @Test
    void wrongPasswordUnknownUserWrongMechanism_saslAuthenticationException() throws Exception {
        try (Admin admin = plainAdmin(one)) {
            upsert(admin, "carol", ScramMechanism.SCRAM_SHA_256, 4096, "carol-secret");
        }
        awaitLogin(one, "SCRAM-SHA-256", "carol", "carol-secret");
        assertDenied(scram(one, "SCRAM-SHA-256", "carol", "wrong"), GENERIC + "SCRAM-SHA-256");
        assertDenied(scram(one, "SCRAM-SHA-256", "mallory", "carol-secret"), GENERIC + "SCRAM-SHA-256");
        // Carol has no SCRAM-SHA-512 credential.
        assertDenied(scram(one, "SCRAM-SHA-512", "carol", "carol-secret"), GENERIC + "SCRAM-SHA-512");
    }

    @Test
    void deletedCredential_noLongerAuthenticates() throws Exception {
        try (Admin admin = plainAdmin(one)) {
            upsert(admin, "dave", ScramMechanism.SCRAM_SHA_512, 4096, "dave-secret");
            awaitLogin(one, "SCRAM-SHA-512", "dave", "dave-secret");
            admin.alterUserScramCredentials(List.of(new UserScramCredentialDeletion("dave",
                    ScramMechanism.SCRAM_SHA_512))).all().get(30, TimeUnit.SECONDS);
        }
        await(() -> !logsIn(one, "SCRAM-SHA-512", "dave", "dave-secret"));
        assertDenied(scram(one, "SCRAM-SHA-512", "dave", "dave-secret"), GENERIC + "SCRAM-SHA-512");
    }

    @Test
    void badAlterationsAndDescriptions_getKafkasErrors() throws Exception {
        try (Admin admin = plainAdmin(one)) {
            assertCause(UnacceptableCredentialException.class, "Too few iterations", () -> upsert(admin, "erin",
                    ScramMechanism.SCRAM_SHA_256, 4095, "x"));
            assertCause(UnacceptableCredentialException.class, "Too many iterations", () -> upsert(admin, "erin",
                    ScramMechanism.SCRAM_SHA_256, 16385, "x"));
            assertCause(ResourceNotFoundException.class, "Attempt to delete a user credential that does not exist",
                    () -> admin.alterUserScramCredentials(List.of(new UserScramCredentialDeletion("nobody",
                            ScramMechanism.SCRAM_SHA_256))).all().get(30, TimeUnit.SECONDS));
            // The same user twice in one request, even for two mechanisms: Kafka refuses both.
            assertCause(DuplicateResourceException.class, "A user credential cannot be altered twice in the same "
                    + "request", () -> admin.alterUserScramCredentials(List.of(
                            new UserScramCredentialUpsertion("frank", new ScramCredentialInfo(
                                    ScramMechanism.SCRAM_SHA_256, 4096), "f"),
                            new UserScramCredentialUpsertion("frank", new ScramCredentialInfo(
                                    ScramMechanism.SCRAM_SHA_512, 4096), "f"))).all().get(30, TimeUnit.SECONDS));
            assertTrue(!described(admin, "frank"));
            assertCause(ResourceNotFoundException.class, "Attempt to describe a user credential that does not exist: "
                    + "nobody", () -> admin.describeUserScramCredentials(List.of("nobody")).description("nobody")
                            .get(30, TimeUnit.SECONDS));
        }
    }

    /** Waits until {@code user} can log in to {@code broker} (bounded). */
    private static void awaitLogin(TestBroker broker, String mechanism, String user, String password)
            throws InterruptedException {
        await(() -> logsIn(broker, mechanism, user, password));
    }

    private static boolean logsIn(TestBroker broker, String mechanism, String user, String password) {
        try (Admin admin = Admin.create(scram(broker, mechanism, user, password))) {
            admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException e) {
            assertInstanceOf(SaslAuthenticationException.class, e.getCause());
            return false;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static boolean described(Admin admin, String user) {
        try {
            admin.describeUserScramCredentials(List.of(user)).description(user).get(30, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException e) {
            assertInstanceOf(ResourceNotFoundException.class, e.getCause());
            return false;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static void assertDenied(Properties props, String message) {
        try (Admin admin = Admin.create(props)) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS));
            SaslAuthenticationException cause = assertInstanceOf(SaslAuthenticationException.class, e.getCause());
            assertEquals(message, cause.getMessage());
        }
    }

    private interface Call {
        void run() throws Exception;
    }

    private static void assertCause(Class<? extends Throwable> type, String message, Call call) {
        ExecutionException e = assertThrows(ExecutionException.class, call::run);
        assertInstanceOf(type, e.getCause(), String.valueOf(e.getCause()));
        assertEquals(message, e.getCause().getMessage());
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition not met within 30 s");
            Thread.sleep(50);
        }
    }
}
