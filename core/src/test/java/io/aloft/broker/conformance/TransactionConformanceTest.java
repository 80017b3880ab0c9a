package io.aloft.broker.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.TestBroker;
import io.aloft.servers.ApacheKafkaServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transaction APIs answered as Apache Kafka 4.3.1 answers (issue 16): each case of
 * {@link TransactionCases} runs, as raw requests, on an in-process Aloft with
 * {@code aloft.transactions.enable=true} and on a Kafka 4.3.1 of its own, at every version of the
 * API Aloft advertises; the transcripts (error codes by place, and what each case notes) must be
 * equal.
 *
 * <p>Aloft offers transaction version 1 only (no KIP-890 part 2 yet), and Kafka 4.3.1 finalizes
 * {@code transaction.version=2} when formatted; some answers depend on the finalized version, so
 * this Kafka is set to transaction version 1 (a downgrade through the Admin API, which Kafka allows
 * for this feature) before any transaction is made, and checked to be at 1. That is why it is not
 * the shared {@link KafkaOracle}.
 */
class TransactionConformanceTest {
    private static final String TRANSACTION_VERSION = "transaction.version";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    /** transaction.abort.timed.out.transaction.cleanup.interval.ms on both, so a case sees a timeout's abort soon. */
    static final int ABORT_CHECK_INTERVAL_MS = 100;

    @TempDir
    static Path dir;
    static TestBroker aloftBroker;
    static ApacheKafkaServer kafkaServer;
    static Target aloft;
    static Target kafka;
    static ApiVersionsResponseData advertised;

    @BeforeAll
    static void start() throws Exception {
        String abortCheck = Integer.toString(ABORT_CHECK_INTERVAL_MS);
        aloftBroker = new TestBroker(dir.resolve("aloft"), Map.of("aloft.transactions.enable", "true",
                "transaction.state.log.num.partitions", "4", "group.initial.rebalance.delay.ms", "0",
                "transaction.abort.timed.out.transaction.cleanup.interval.ms", abortCheck));
        kafkaServer = new ApacheKafkaServer(ApacheKafkaServer.findLibsDir(), "512m", false,
                Files.createDirectories(dir.resolve("kafka")), Map.of("transaction.state.log.num.partitions", "4",
                        // As TestBroker: AddOffsetsToTxn adds the group's partition, which must be the same on both.
                        "offsets.topic.num.partitions", "4",
                        "transaction.abort.timed.out.transaction.cleanup.interval.ms", abortCheck),
                START_TIMEOUT);
        kafkaServer.start();
        transactionVersion1(kafkaServer.bootstrap());
        aloft = Target.prepare("Aloft", aloftBroker.bootstrap());
        kafka = Target.prepare("Kafka 4.3.1 (transaction.version=1)", kafkaServer.bootstrap());
        aloft.awaitTransactionCoordinatorSettled();
        kafka.awaitTransactionCoordinatorSettled();
        try (RawConnection c = RawConnection.open(aloft.bootstrap)) {
            advertised = (ApiVersionsResponseData) c.send(ApiKeys.API_VERSIONS, (short) 3, new ApiVersionsRequestData()
                    .setClientSoftwareName("aloft-conformance").setClientSoftwareVersion("1")).body();
        }
    }

    /** Finalizes transaction.version=1 on a fresh Kafka and waits until its broker reports it. */
    private static void transactionVersion1(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.updateFeatures(Map.of(TRANSACTION_VERSION, new FeatureUpdate((short) 1,
                    FeatureUpdate.UpgradeType.SAFE_DOWNGRADE)), new UpdateFeaturesOptions())
                    .all().get(60, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                FinalizedVersionRange range = admin.describeFeatures().featureMetadata().get(60, TimeUnit.SECONDS)
                        .finalizedFeatures().get(TRANSACTION_VERSION);
                if (range != null && range.maxVersionLevel() == 1) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("Kafka still finalizes " + TRANSACTION_VERSION + " " + range);
                }
                Target.pause();
            }
        }
    }

    @AfterAll
    static void stop() {
        if (aloft != null) {
            aloft.close();
        }
        if (kafka != null) {
            kafka.close();
        }
        if (kafkaServer != null) {
            kafkaServer.stop();
        }
        if (aloftBroker != null) {
            aloftBroker.close();
        }
    }

    @TestFactory
    Stream<DynamicNode> transactionApis_answerAsKafka() {
        List<Shape> cases = TransactionCases.shapes();
        List<DynamicNode> apis = new ArrayList<>();
        for (ApiKeys api : cases.stream().map(Shape::api).distinct().toList()) {
            ApiVersion range = advertised.apiKeys().find(api.id);
            if (range == null) {
                apis.add(DynamicTest.dynamicTest(api.name + " is advertised", () -> {
                    throw new AssertionError(api + " is not advertised with transactions on");
                }));
                continue;
            }
            List<DynamicNode> versions = new ArrayList<>();
            for (short v = range.minVersion(); v <= range.maxVersion(); v++) {
                short version = v;
                List<DynamicTest> tests = cases.stream().filter(s -> s.api() == api && s.covers(version))
                        .map(s -> DynamicTest.dynamicTest(s.name(), () -> compare(s, version))).toList();
                if (!tests.isEmpty()) {
                    versions.add(DynamicContainer.dynamicContainer("v" + v, tests));
                }
            }
            apis.add(DynamicContainer.dynamicContainer(api.name, versions));
        }
        return apis.stream();
    }

    private static void compare(Shape shape, short version) throws Exception {
        Map<String, String> got = run(aloft, shape, version);
        Map<String, String> expected = run(kafka, shape, version);
        assertEquals(expected, got, () -> shape.id() + " v" + version + ": Aloft answers otherwise than "
                + kafka.name + "\n" + ApiConformanceTest.diff(got, expected));
    }

    private static Map<String, String> run(Target target, Shape shape, short version) throws Exception {
        try (Session s = new Session(target)) {
            shape.script().run(s, version);
            return s.transcript();
        }
    }
}
