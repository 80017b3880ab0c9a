package io.aloft.broker.conformance;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.TestBroker;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
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
 * Every API Aloft advertises, at every version it advertises, answered as Apache Kafka 4.3.1 answers
 * (issue 11, item 1). For each (API, version) each request shape of the catalog is sent as raw bytes
 * to an in-process Aloft and to a real Kafka 4.3.1: each response must arrive within
 * {@link RawConnection#READ_TIMEOUT_MS}, decode at the request's version and consume its bytes
 * exactly, and the two brokers' transcripts (every error code by its place in the response, the
 * offsets and counts a case notes, a closed connection) must be equal. Where they may not be, the
 * difference is listed in {@link #KNOWN_DIFFERENCES} with its reason, and the README's API table
 * says so; a listed difference that no longer occurs fails the test too, so the list stays true.
 */
class ApiConformanceTest {
    /**
     * Shapes (by {@link Shape#id()}) on which Aloft deliberately answers otherwise than Kafka, and
     * why. Each must still differ at one version at least.
     */
    static final Map<String, String> KNOWN_DIFFERENCES = Map.of(
            "Metadata unknown topic auto-created", "Aloft answers once the topic exists, with its partitions; "
                    + "Kafka answers UNKNOWN_TOPIC_OR_PARTITION while its controller creates it, and the client asks "
                    + "again",
            "CreateTopics replication factor above the broker count", "Aloft accepts any replication factor: "
                    + "durability comes from the WAL and object storage, and every partition has one replica; Kafka "
                    + "answers INVALID_REPLICATION_FACTOR",
            "FindCoordinator transaction key", "no transactions yet: INVALID_REQUEST with a message, which clients "
                    + "do not retry (Kafka finds its transaction coordinator)",
            "InitProducerId transactional", "no transactions yet: INVALID_REQUEST, not retried by clients (Kafka "
                    + "issues a transactional producer id)",
            "ShareFetch unknown topic id", "Aloft answers the partition UNKNOWN_TOPIC_ID; Kafka 4.3.1 fails the "
                    + "whole request, and every later fetch of the session, with UNKNOWN_SERVER_ERROR");

    @TempDir
    static Path dir;
    static TestBroker aloftBroker;
    static Target aloft;
    static Target kafka;
    static ApiVersionsResponseData advertised;
    private static final Set<String> differencesSeen = ConcurrentHashMap.newKeySet();

    @BeforeAll
    static void start() throws Exception {
        // Transactions off: the transaction APIs are compared with a Kafka at transaction.version 1 on
        // their own (TransactionConformanceTest, WriteTxnMarkersTest); the cases here include how a
        // broker without them refuses transactional producers.
        aloftBroker = new TestBroker(dir, Map.of("group.initial.rebalance.delay.ms", "0",
                "aloft.transactions.enable", "false"));
        aloft = Target.prepare("Aloft", aloftBroker.bootstrap());
        kafka = Target.prepare("Kafka 4.3.1", KafkaOracle.bootstrap());
        kafka.awaitTransactionCoordinatorSettled();
        // Both make __share_group_state on the first share-key lookup; compare answers once it is there.
        ShareStateCases.awaitShareKey(aloft, GroupCases.SHARE_KEY);
        ShareStateCases.awaitShareKey(kafka, GroupCases.SHARE_KEY);
        try (RawConnection c = RawConnection.open(aloft.bootstrap)) {
            advertised = (ApiVersionsResponseData) c.send(ApiKeys.API_VERSIONS, (short) 3, new ApiVersionsRequestData()
                    .setClientSoftwareName("aloft-conformance").setClientSoftwareVersion("1")).body();
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
        if (aloftBroker != null) {
            aloftBroker.close();
        }
    }

    static List<Shape> catalog() {
        List<Shape> all = new ArrayList<>();
        all.addAll(ProduceCases.shapes());
        all.addAll(ReadCases.shapes());
        all.addAll(TopicCases.shapes());
        all.addAll(ReassignmentCases.shapes());
        all.addAll(ConfigCases.shapes());
        all.addAll(GroupCases.shapes());
        all.addAll(ConsumerGroupCases.shapes());
        all.addAll(ShareGroupCases.shapes());
        all.addAll(SaslCases.shapes());
        all.addAll(AclCases.shapes());
        all.addAll(ScramCases.shapes());
        all.addAll(QuotaCases.shapes());
        all.addAll(ShareStateCases.shapes());
        // Share groups (issue 21): compared once Aloft advertises the share APIs; proven on Kafka by ShareApiOracleTest.
        all.addAll(ShareCases.shapes());
        all.addAll(ShareAdminCases.shapes());
        return all;
    }

    @TestFactory
    Stream<DynamicNode> everyAdvertisedApiAndVersion() {
        List<Shape> catalog = catalog();
        List<DynamicNode> apis = new ArrayList<>();
        for (ApiVersion range : advertised.apiKeys()) {
            ApiKeys api = ApiKeys.forId(range.apiKey());
            List<DynamicNode> versions = new ArrayList<>();
            // Produce v0-2 are advertised but refused (KAFKA-18659); their shape covers them.
            for (short v = range.minVersion(); v <= range.maxVersion(); v++) {
                short version = v;
                List<DynamicTest> tests = catalog.stream().filter(s -> s.api() == api && s.covers(version))
                        .map(s -> DynamicTest.dynamicTest(s.name(), () -> compare(s, version))).toList();
                versions.add(tests.isEmpty()
                        ? DynamicTest.dynamicTest("has a case", () -> {
                            throw new AssertionError(api + " v" + version + " is advertised but no conformance case "
                                    + "covers it: add one to the catalog");
                        })
                        : DynamicContainer.dynamicContainer("v" + v, tests));
            }
            apis.add(DynamicContainer.dynamicContainer(api.name, versions));
        }
        apis.add(DynamicTest.dynamicTest("every known difference still occurs", () -> {
            Set<String> stale = new TreeSet<>(KNOWN_DIFFERENCES.keySet());
            stale.removeAll(differencesSeen);
            assertTrue(stale.isEmpty(), "listed as known differences but answered as Kafka does now; remove them "
                    + "from KNOWN_DIFFERENCES and the README: " + stale);
        }));
        return apis.stream();
    }

    private static void compare(Shape shape, short version) throws Exception {
        Map<String, String> got = run(aloft, shape, version);
        Map<String, String> expected = shape.expected() != null ? shape.expected() : run(kafka, shape, version);
        if (got.equals(expected)) {
            return;
        }
        differencesSeen.add(shape.id());
        if (KNOWN_DIFFERENCES.containsKey(shape.id())) {
            return;
        }
        throw new AssertionError(shape.id() + " v" + version + ": Aloft answers otherwise than "
                + (shape.expected() != null ? "expected (" + shape.noOracleReason() + ")" : KafkaOracle.description())
                + "\n" + diff(got, expected));
    }

    private static Map<String, String> run(Target target, Shape shape, short version) throws Exception {
        try (Session s = new Session(target)) {
            shape.script().run(s, version);
            return s.transcript();
        }
    }

    /** One line per path whose values differ: "path: Aloft X, Kafka Y". */
    static String diff(Map<String, String> aloft, Map<String, String> kafka) {
        Map<String, String> lines = new LinkedHashMap<>();
        Set<String> paths = new TreeSet<>(aloft.keySet());
        paths.addAll(kafka.keySet());
        for (String p : paths) {
            String a = aloft.getOrDefault(p, "(absent)");
            String k = kafka.getOrDefault(p, "(absent)");
            if (!a.equals(k)) {
                lines.put(p, "  " + p + ": Aloft " + a + ", Kafka " + k);
            }
        }
        return String.join("\n", lines.values());
    }
}
