package io.aloft.broker.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.TestBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API versions Aloft advertises, against Apache Kafka 4.3.1's own ApiVersions (issue 11, item 2):
 * every advertised API is one Kafka serves, with the same minimum version (KIP-896 removed old
 * versions in Kafka 4; Aloft neither advertises one Kafka dropped nor drops one Kafka serves) and a
 * maximum no higher than Kafka's. And the README's table of served versions is exactly what the
 * broker advertises, so it cannot drift: the table is rendered here, and a difference fails with the
 * table to paste (or {@code -Daloft.readme.write=true} rewrites it).
 */
class AdvertisedVersionsTest {
    static final String BEGIN = "<!-- api-versions -->";
    static final String END = "<!-- /api-versions -->";

    /** What a reader must know about an API beyond its versions: the deliberate differences from Kafka. */
    static final Map<ApiKeys, String> NOTES = Map.ofEntries(
            Map.entry(ApiKeys.PRODUCE, "v0-2 advertised and refused by closing the connection, as Kafka 4 does for "
                    + "librdkafka's sake (KAFKA-18659)"),
            Map.entry(ApiKeys.FETCH, "incremental fetch sessions (KIP-227); follower fetches refused (no "
                    + "followers)"),
            Map.entry(ApiKeys.METADATA, "an auto-created topic is answered once it exists (Kafka 4.3 answers "
                    + "UNKNOWN_TOPIC_OR_PARTITION while creating it)"),
            Map.entry(ApiKeys.CREATE_TOPICS, "any replication factor is accepted and every partition has one "
                    + "replica: durability comes from the WAL and object storage"),
            Map.entry(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, "a target of exactly one broker moves the partition "
                    + "(no data copied); several replicas get INVALID_REPLICA_ASSIGNMENT: one replica on shared "
                    + "storage"),
            Map.entry(ApiKeys.LIST_PARTITION_REASSIGNMENTS, "always empty: a move completes when the controller "
                    + "makes it"),
            Map.entry(ApiKeys.WRITE_TXN_MARKERS, "a partition another broker leads answers NOT_LEADER_OR_FOLLOWER "
                    + "(Kafka: UNKNOWN_TOPIC_OR_PARTITION on a broker without a replica of it)"),
            Map.entry(ApiKeys.UNREGISTER_BROKER, "answered once the broker is fenced (its session lapsed) and its WAL "
                    + "recovered by a live broker, so nothing it acknowledged is lost; a running broker so removed "
                    + "stops itself"),
            Map.entry(ApiKeys.SASL_HANDSHAKE, "mechanisms PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512, on SASL_PLAINTEXT "
                    + "and SASL_SSL listeners; elsewhere ILLEGAL_SASL_STATE, as Kafka answers"),
            Map.entry(ApiKeys.SASL_AUTHENTICATE, "PLAIN, SCRAM-SHA-256/512; re-authentication (KIP-368) with "
                    + "connections.max.reauth.ms"),
            Map.entry(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, "not atomic across users (each credential is its own "
                    + "controller entry)"),
            Map.entry(ApiKeys.ALTER_CLIENT_QUOTAS, "producer_byte_rate, consumer_byte_rate and request_percentage "
                    + "are enforced; controller_mutation_rate and ip connection_creation_rate are stored only"),
            Map.entry(ApiKeys.SHARE_FETCH, "an unknown topic id is answered UNKNOWN_TOPIC_ID for its partition (Kafka "
                    + "4.3.1 fails the request, and the session's later fetches, with UNKNOWN_SERVER_ERROR); share "
                    + "sessions end when idle, not when the connection closes"),
            Map.entry(ApiKeys.WRITE_SHARE_GROUP_STATE, "a state batch whose last offset is below its first gets "
                    + "INVALID_REQUEST (Kafka stores it as sent)"),
            Map.entry(ApiKeys.CONSUMER_GROUP_HEARTBEAT, "a group with members is not converted between the classic "
                    + "and consumer protocols online: answered as Kafka does with group.consumer.migration.policy="
                    + "disabled"));

    @TempDir
    static Path dir;
    static TestBroker aloftBroker;
    static ApiVersionsResponseData aloft;
    static ApiVersionsResponseData kafka;

    @BeforeAll
    static void start() throws Exception {
        aloftBroker = new TestBroker(dir);
        aloft = apiVersions(aloftBroker.bootstrap());
        kafka = apiVersions(KafkaOracle.bootstrap());
    }

    @AfterAll
    static void stop() {
        if (aloftBroker != null) {
            aloftBroker.close();
        }
    }

    private static ApiVersionsResponseData apiVersions(String bootstrap) throws Exception {
        try (RawConnection c = RawConnection.open(bootstrap)) {
            ApiVersionsResponseData r = (ApiVersionsResponseData) c.send(ApiKeys.API_VERSIONS,
                    ApiKeys.API_VERSIONS.latestVersion(), new ApiVersionsRequestData()
                            .setClientSoftwareName("aloft-conformance").setClientSoftwareVersion("1")).body();
            assertEquals(Errors.NONE.code(), r.errorCode(), bootstrap);
            return r;
        }
    }

    @Test
    void advertisedRanges_areKafkas_minimumEqual_maximumNotAbove() {
        List<String> wrong = new ArrayList<>();
        for (ApiVersion a : aloft.apiKeys()) {
            ApiKeys api = ApiKeys.forId(a.apiKey());
            ApiVersion k = kafka.apiKeys().find(a.apiKey());
            if (k == null) {
                wrong.add(api + " is advertised but Kafka 4.3.1 does not serve it");
                continue;
            }
            if (a.minVersion() != k.minVersion()) {
                wrong.add(api + " from v" + a.minVersion() + ", Kafka from v" + k.minVersion());
            }
            if (a.maxVersion() > k.maxVersion()) {
                wrong.add(api + " up to v" + a.maxVersion() + ", above Kafka's v" + k.maxVersion());
            }
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    @Test
    void everyAdvertisedVersion_isOneKafkaClientsCanWrite() {
        for (ApiVersion a : aloft.apiKeys()) {
            ApiKeys api = ApiKeys.forId(a.apiKey());
            // Produce v0-2: advertised for old clients, refused (kafka-clients no longer writes them).
            short first = api == ApiKeys.PRODUCE ? api.oldestVersion() : a.minVersion();
            assertTrue(first >= api.oldestVersion() && a.maxVersion() <= api.latestVersion(),
                    api + " v" + first + "-" + a.maxVersion() + " is outside kafka-clients' " + api.oldestVersion()
                            + "-" + api.latestVersion());
        }
    }

    /**
     * APIs compared with Kafka by a test of their own rather than ApiConformanceTest's catalog: the
     * transaction APIs (transaction version 2 and KIP-890's verification also in
     * TransactionVerificationOracleTest), and TxnOffsetCommit, in a real transaction on each broker.
     */
    static final Map<ApiKeys, String> COMPARED_ELSEWHERE = Map.of(
            ApiKeys.TXN_OFFSET_COMMIT, "TxnOffsetCommitOracleTest",
            ApiKeys.ADD_PARTITIONS_TO_TXN, "TransactionConformanceTest",
            ApiKeys.ADD_OFFSETS_TO_TXN, "TransactionConformanceTest",
            ApiKeys.END_TXN, "TransactionConformanceTest",
            ApiKeys.DESCRIBE_TRANSACTIONS, "TransactionConformanceTest",
            ApiKeys.LIST_TRANSACTIONS, "TransactionConformanceTest",
            ApiKeys.WRITE_TXN_MARKERS, "WriteTxnMarkersTest");

    @Test
    void everyAdvertisedApi_hasConformanceCases() {
        for (ApiVersion a : aloft.apiKeys()) {
            ApiKeys api = ApiKeys.forId(a.apiKey());
            if (COMPARED_ELSEWHERE.containsKey(api)) {
                continue;
            }
            assertTrue(ApiConformanceTest.catalog().stream().anyMatch(s -> s.api() == api),
                    api + " is advertised but ApiConformanceTest has no case for it");
        }
    }

    @Test
    void readme_apiTable_isWhatTheBrokerAdvertises() throws Exception {
        Path readme = Path.of(System.getProperty("aloft.project.root", "..")).resolve("README.md");
        String text = Files.readString(readme, StandardCharsets.UTF_8);
        int begin = text.indexOf(BEGIN);
        int end = text.indexOf(END);
        assertTrue(begin >= 0 && end > begin, "README.md has no " + BEGIN + " ... " + END + " section");
        String expected = table();
        String actual = text.substring(begin + BEGIN.length(), end).strip();
        if (!expected.equals(actual)) {
            if (Boolean.getBoolean("aloft.readme.write")) {
                Files.writeString(readme, text.substring(0, begin + BEGIN.length()) + "\n" + expected + "\n"
                        + text.substring(end), StandardCharsets.UTF_8);
            }
            throw new AssertionError("README.md's API table differs from what the broker advertises; replace the "
                    + "section between " + BEGIN + " and " + END + " with the following (or run this test with "
                    + "-Daloft.readme.write=true):\n" + expected);
        }
        assertTrue(NOTES.keySet().stream().allMatch(k -> aloft.apiKeys().find(k.id) != null),
                "a note for an API that is not advertised: " + NOTES.keySet());
    }

    /** The table: one row per advertised API, in key order, with Kafka 4.3.1's range beside it. */
    static String table() {
        StringBuilder b = new StringBuilder();
        b.append("| API | key | versions | Apache Kafka 4.3.1 | differences from Kafka |\n");
        b.append("|---|---|---|---|---|\n");
        List<ApiVersion> rows = new ArrayList<>(aloft.apiKeys());
        rows.sort((x, y) -> Short.compare(x.apiKey(), y.apiKey()));
        for (ApiVersion a : rows) {
            ApiKeys api = ApiKeys.forId(a.apiKey());
            ApiVersion k = kafka.apiKeys().find(a.apiKey());
            b.append("| ").append(api.name).append(" | ").append(api.id).append(" | ")
                    .append(range(a)).append(" | ").append(k == null ? "not served" : range(k)).append(" | ")
                    .append(NOTES.getOrDefault(api, "")).append(" |\n");
        }
        return b.toString().strip();
    }

    private static String range(ApiVersion v) {
        return v.minVersion() == v.maxVersion() ? Short.toString(v.minVersion()) : v.minVersion() + "-" + v.maxVersion();
    }
}
