package io.aloft.broker.security.acl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.TestBroker;
import io.aloft.servers.ApacheKafkaServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Kafka 4.3.1 with its StandardAuthorizer as the oracle for refusals: both brokers run ACLs
 * with no binding and {@code allow.everyone.if.no.acl.found=false}, and a PLAINTEXT client
 * (User:ANONYMOUS, not a super user) sends each request of {@link AclMatrixTest}'s table to both;
 * the error codes must be the same. Kafka's broker reaches its controller on a SASL listener as
 * User:admin (its super user), so its client listener can stay PLAINTEXT and unprivileged. The
 * matrix proves the codes flip once granted; this proves the refusals are Kafka's.
 */
class AclOracleTest {

    @TempDir
    static Path dir;
    private static ApacheKafkaServer kafka;
    private static TestBroker aloft;

    @BeforeAll
    static void start() throws Exception {
        Map<String, String> k = new LinkedHashMap<>();
        k.put("authorizer.class.name", AuthorizerConfig.KAFKA_STANDARD_AUTHORIZER);
        k.put("super.users", "User:admin");
        k.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:SASL_PLAINTEXT");
        k.put("sasl.mechanism.controller.protocol", "PLAIN");
        k.put("listener.name.controller.sasl.enabled.mechanisms", "PLAIN");
        k.put("listener.name.controller.plain.sasl.jaas.config", "org.apache.kafka.common.security.plain."
                + "PlainLoginModule required username=\"admin\" password=\"admin-secret\" "
                + "user_admin=\"admin-secret\";");
        kafka = new ApacheKafkaServer(ApacheKafkaServer.findLibsDir(), "512m", false,
                Files.createDirectories(dir.resolve("kafka")), k, Duration.ofSeconds(120));
        kafka.start();
        aloft = new TestBroker(Files.createDirectories(dir.resolve("aloft")), Map.of(
                "authorizer.class.name", AuthorizerConfig.KAFKA_STANDARD_AUTHORIZER));
    }

    @AfterAll
    static void stop() throws Exception {
        if (aloft != null) {
            aloft.close();
        }
        if (kafka != null) {
            kafka.stop();
        }
    }

    @TestFactory
    Stream<DynamicTest> refusals_asKafka() throws Exception {
        AclMatrixTest.topicIdForOracle();
        return AclMatrixTest.rows().stream().filter(r -> r.request() != null)
                .map(r -> DynamicTest.dynamicTest(r.api().name, () -> {
                    AbstractResponse fromKafka;
                    AbstractResponse fromAloft;
                    try (AclWire k = new AclWire(kafka.bootstrap()); AclWire a = new AclWire(aloft.bootstrap())) {
                        AbstractRequest.Builder<?> builder = r.request().build();
                        short version = (short) Math.min(builder.latestAllowedVersion(),
                                Math.min(k.maxVersion(r.api()), a.maxVersion(r.api())));
                        fromKafka = k.send(builder.build(version));
                        fromAloft = a.send(r.request().build().build(version));
                    }
                    assertEquals(errors(fromKafka), errors(fromAloft), r.api() + ": Kafka " + fromKafka + "\nAloft "
                            + fromAloft);
                }));
    }

    @TestFactory
    Stream<DynamicTest> metadata_hidesAsKafka() {
        return Stream.of(DynamicTest.dynamicTest("all topics and named ones", () -> {
            try (AclWire k = new AclWire(kafka.bootstrap()); AclWire a = new AclWire(aloft.bootstrap())) {
                for (MetadataRequest.Builder b : List.of(MetadataRequest.Builder.allTopics(),
                        new MetadataRequest.Builder(List.of("acl-nope", "__consumer_offsets"), true))) {
                    MetadataResponse fromKafka = k.send(b);
                    MetadataResponse fromAloft = a.send(b);
                    assertEquals(topics(fromKafka), topics(fromAloft));
                }
            }
        }));
    }

    /** As Kafka: only brokers look share coordinators up, refused before the key is even parsed. */
    @TestFactory
    Stream<DynamicTest> findCoordinator_shareKeys_refusedAsKafka() {
        return Stream.of(DynamicTest.dynamicTest("well-formed and malformed share keys", () -> {
            FindCoordinatorRequest.Builder b = new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData()
                    .setKeyType((byte) 2).setCoordinatorKeys(List.of("acl-share:AAAAAAAAAAAAAAAAAAAAAQ:0",
                            "acl-share:not-an-id:0")));
            try (AclWire k = new AclWire(kafka.bootstrap()); AclWire a = new AclWire(aloft.bootstrap())) {
                FindCoordinatorResponse fromKafka = k.send(b);
                FindCoordinatorResponse fromAloft = a.send(b);
                assertEquals(coordinatorErrors(fromKafka), coordinatorErrors(fromAloft));
            }
        }));
    }

    private static List<String> coordinatorErrors(FindCoordinatorResponse r) {
        return r.data().coordinators().stream().map(c -> c.key() + ":" + Errors.forCode(c.errorCode())).toList();
    }

    private static Set<String> topics(MetadataResponse r) {
        Set<String> out = new HashSet<>();
        r.data().topics().forEach(t -> out.add(t.name() + ":" + Errors.forCode(t.errorCode())));
        return out;
    }

    private static Set<Errors> errors(AbstractResponse r) {
        Set<Errors> out = new HashSet<>(r.errorCounts().keySet());
        out.remove(Errors.NONE);
        return out;
    }
}
