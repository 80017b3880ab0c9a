package io.aloft.broker.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.TestBroker;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasRequestData.EntityData;
import org.apache.kafka.common.message.AlterClientQuotasRequestData.EntryData;
import org.apache.kafka.common.message.AlterClientQuotasRequestData.OpData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData.ComponentData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client quotas (issue 20): the same AlterClientQuotas and DescribeClientQuotas requests, valid and
 * not, sent to Aloft and to Apache Kafka 4.3.1, must get the same error codes and messages, and the
 * quotas stored must describe the same under every filter. Every quota a case sets is removed before
 * it ends (Kafka is shared with other tests).
 */
class ClientQuotasOracleTest {
    private static final byte EXACT = 0;
    private static final byte DEFAULT = 1;
    private static final byte ANY = 2;

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
    void alterClientQuotas_validateOnly_checksAsKafka() throws Exception {
        assertSame(validationTranscript(KafkaOracle.bootstrap()), validationTranscript(aloftBroker.bootstrap()));
    }

    @Test
    void alterAndDescribeClientQuotas_storeAndFilterAsKafka() throws Exception {
        assertSame(storeTranscript(KafkaOracle.bootstrap()), storeTranscript(aloftBroker.bootstrap()));
    }

    private static void assertSame(Map<String, String> kafkaSays, Map<String, String> aloftSays) {
        assertEquals(kafkaSays, aloftSays, "Aloft answers otherwise than " + KafkaOracle.description() + "\n"
                + ApiConformanceTest.diff(aloftSays, kafkaSays));
    }

    private static Map<String, String> validationTranscript(String bootstrap) throws Exception {
        Map<String, String> t = new TreeMap<>();
        try (RawConnection c = RawConnection.open(bootstrap)) {
            for (short v : new short[] {0, 1}) {
                String p = "v" + v + " ";
                t.put(p + "user producer_byte_rate", alter(c, v, true, entry(user("q-alice"), set("producer_byte_rate",
                        1024))));
                t.put(p + "empty entity", alter(c, v, true, entry(List.of(), set("producer_byte_rate", 1024))));
                t.put(p + "unknown entity type", alter(c, v, true, entry(List.of(entity("group", "g")),
                        set("producer_byte_rate", 1024))));
                t.put(p + "empty user name", alter(c, v, true, entry(user(""), set("producer_byte_rate", 1024))));
                t.put(p + "empty client id", alter(c, v, true, entry(client(""), set("producer_byte_rate", 1024))));
                t.put(p + "user twice", alter(c, v, true, entry(List.of(entity("user", "a"), entity("user", "b")),
                        set("producer_byte_rate", 1024))));
                t.put(p + "user and ip", alter(c, v, true, entry(List.of(entity("user", "a"), entity("ip",
                        "10.0.0.1")), set("producer_byte_rate", 1024))));
                t.put(p + "ip connection_creation_rate", alter(c, v, true, entry(List.of(entity("ip", "10.0.0.1")),
                        set("connection_creation_rate", 10))));
                t.put(p + "default ip", alter(c, v, true, entry(List.of(entity("ip", null)),
                        set("connection_creation_rate", 10))));
                t.put(p + "ipv6", alter(c, v, true, entry(List.of(entity("ip", "::1")),
                        set("connection_creation_rate", 10))));
                t.put(p + "bad ip", alter(c, v, true, entry(List.of(entity("ip", "300.1.2.3")),
                        set("connection_creation_rate", 10))));
                t.put(p + "ip fractional", alter(c, v, true, entry(List.of(entity("ip", "10.0.0.1")),
                        set("connection_creation_rate", 2.5))));
                t.put(p + "ip too large", alter(c, v, true, entry(List.of(entity("ip", "10.0.0.1")),
                        set("connection_creation_rate", 3e9))));
                t.put(p + "ip producer_byte_rate", alter(c, v, true, entry(List.of(entity("ip", "10.0.0.1")),
                        set("producer_byte_rate", 10))));
                t.put(p + "user connection_creation_rate", alter(c, v, true, entry(user("a"),
                        set("connection_creation_rate", 10))));
                t.put(p + "unknown key", alter(c, v, true, entry(user("a"), set("foo_rate", 10))));
                t.put(p + "remove unknown key", alter(c, v, true, entry(user("a"), remove("foo_rate"))));
                t.put(p + "negative", alter(c, v, true, entry(user("a"), set("producer_byte_rate", -5))));
                t.put(p + "zero", alter(c, v, true, entry(user("a"), set("consumer_byte_rate", 0))));
                t.put(p + "negative percentage", alter(c, v, true, entry(user("a"), set("request_percentage", -1))));
                t.put(p + "fractional byte rate", alter(c, v, true, entry(user("a"), set("producer_byte_rate", 1.5))));
                t.put(p + "fractional percentage", alter(c, v, true, entry(user("a"), set("request_percentage",
                        12.5))));
                t.put(p + "huge byte rate", alter(c, v, true, entry(user("a"), set("producer_byte_rate", 1e30))));
                t.put(p + "NaN", alter(c, v, true, entry(user("a"), set("request_percentage", Double.NaN))));
                t.put(p + "controller_mutation_rate", alter(c, v, true, entry(user("a"),
                        set("controller_mutation_rate", 5))));
                t.put(p + "same key twice", alter(c, v, true, entry(user("a"), set("producer_byte_rate", 5),
                        set("producer_byte_rate", 6))));
                t.put(p + "same key twice, bad value", alter(c, v, true, entry(user("a"), set("producer_byte_rate",
                        -5), set("producer_byte_rate", -6))));
                t.put(p + "same key twice, unknown type", alter(c, v, true, entry(List.of(entity("group", "g")),
                        set("producer_byte_rate", 5), remove("producer_byte_rate"))));
                t.put(p + "same key twice, two types", alter(c, v, true, entry(List.of(entity("user", "a"),
                        entity("client-id", null)), set("producer_byte_rate", 5), remove("producer_byte_rate"))));
                t.put(p + "same entity in two entries", alter(c, v, true, entry(user("a"), set("producer_byte_rate",
                        5)), entry(user("a"), set("consumer_byte_rate", 6))));
                t.put(p + "no ops", alter(c, v, true, entry(user("a"))));
                t.put(p + "user and client", alter(c, v, true, entry(List.of(entity("user", "a"),
                        entity("client-id", "c")), set("producer_byte_rate", 5))));
                t.put(p + "defaults", alter(c, v, true, entry(List.of(entity("user", null),
                        entity("client-id", null)), set("request_percentage", 5))));
                t.put(p + "good and bad entries", alter(c, v, true, entry(user("a"), set("producer_byte_rate", 5)),
                        entry(user("b"), set("producer_byte_rate", -5))));
            }
            t.put("validate only stored nothing", describe(c, false));
        }
        return t;
    }

    private static Map<String, String> storeTranscript(String bootstrap) throws Exception {
        Map<String, String> t = new TreeMap<>();
        markerValue = 0;
        try (RawConnection c = RawConnection.open(bootstrap)) {
            List<EntryData> setUp = List.of(
                    entry(user("q-alice"), set("producer_byte_rate", 1000), set("consumer_byte_rate", 2000)),
                    entry(List.of(entity("user", null)), set("request_percentage", 50)),
                    entry(List.of(entity("user", "q-alice"), entity("client-id", "q-c1")), set("producer_byte_rate",
                            500)),
                    entry(List.of(entity("client-id", null)), set("consumer_byte_rate", 300)),
                    entry(client("q-c2"), set("producer_byte_rate", 700)),
                    entry(List.of(entity("user", null), entity("client-id", null)), set("producer_byte_rate", 100)),
                    entry(List.of(entity("user", "q-a/b c<default>")), set("producer_byte_rate", 42)));
            t.put("set up", alterAndWait(c, (short) 1, setUp.toArray(EntryData[]::new)));
            t.put("all", describe(c, false));
            t.put("all strict", describe(c, true));
            t.put("user q-alice", describe(c, false, component("user", EXACT, "q-alice")));
            t.put("user q-alice strict", describe(c, true, component("user", EXACT, "q-alice")));
            t.put("odd user name", describe(c, true, component("user", EXACT, "q-a/b c<default>")));
            t.put("default user", describe(c, false, component("user", DEFAULT, null)));
            t.put("default user strict", describe(c, true, component("user", DEFAULT, null)));
            t.put("any user", describe(c, false, component("user", ANY, null)));
            t.put("any user strict", describe(c, true, component("user", ANY, null)));
            t.put("any client strict", describe(c, true, component("client-id", ANY, null)));
            t.put("any user, any client", describe(c, false, component("user", ANY, null),
                    component("client-id", ANY, null)));
            t.put("user q-alice, client q-c1", describe(c, true, component("user", EXACT, "q-alice"),
                    component("client-id", EXACT, "q-c1")));
            t.put("no such user", describe(c, false, component("user", EXACT, "q-nobody")));
            t.put("ip any", describe(c, false, component("ip", ANY, null)));
            t.put("bad: empty type", describe(c, false, component("", ANY, null)));
            t.put("bad: type twice", describe(c, false, component("user", ANY, null), component("user", DEFAULT,
                    null)));
            t.put("bad: unsupported type", describe(c, false, component("group", ANY, null)));
            t.put("bad: exact without name", describe(c, false, component("user", EXACT, null)));
            t.put("bad: default with name", describe(c, false, component("user", DEFAULT, "x")));
            t.put("bad: any with name", describe(c, false, component("user", ANY, "x")));
            t.put("bad: match type 7", describe(c, false, component("user", (byte) 7, null)));
            t.put("bad: ip and user", describe(c, false, component("ip", ANY, null), component("user", ANY, null)));

            t.put("remove one key", alterAndWait(c, (short) 1, entry(user("q-alice"), remove("consumer_byte_rate"))));
            t.put("after removing one key", describe(c, true, component("user", EXACT, "q-alice")));
            t.put("change a value", alterAndWait(c, (short) 0, entry(user("q-alice"), set("producer_byte_rate",
                    1500))));
            t.put("after changing", describe(c, true, component("user", EXACT, "q-alice")));
            t.put("remove from a missing entity", alterAndWait(c, (short) 1, entry(user("q-nobody"),
                    remove("producer_byte_rate"))));
            t.put("after removing from a missing entity", describe(c, false, component("user", EXACT, "q-nobody")));

            List<EntryData> tearDown = List.of(
                    entry(user("q-alice"), remove("producer_byte_rate")),
                    entry(List.of(entity("user", null)), remove("request_percentage")),
                    entry(List.of(entity("user", "q-alice"), entity("client-id", "q-c1")),
                            remove("producer_byte_rate")),
                    entry(List.of(entity("client-id", null)), remove("consumer_byte_rate")),
                    entry(client("q-c2"), remove("producer_byte_rate")),
                    entry(List.of(entity("user", null), entity("client-id", null)), remove("producer_byte_rate")),
                    entry(List.of(entity("user", "q-a/b c<default>")), remove("producer_byte_rate")));
            t.put("tear down", alterAndWait(c, (short) 1, tearDown.toArray(EntryData[]::new)));
            alter(c, (short) 1, false, entry(client(MARKER), remove("request_percentage")));
            long deadline = System.nanoTime() + 15_000_000_000L;
            while (!describe(c, false).equals("[]") && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            t.put("after tear down", describe(c, false));
        }
        return t;
    }

    private static final String MARKER = "q-marker";
    private static int markerValue;

    /**
     * Alters for real, then waits until the broker answering DescribeClientQuotas shows it: Kafka's
     * brokers describe their metadata image, which may lag the controller that acknowledged the
     * alteration. A marker entity (client id {@value #MARKER}) is changed in the same request (one
     * controller batch): once the marker shows its new value, so does the rest. The marker's own
     * entry is left out of the transcript.
     */
    static String alterAndWait(RawConnection c, short version, EntryData... entries) throws Exception {
        int value = ++markerValue;
        List<EntryData> all = new ArrayList<>(Arrays.asList(entries));
        all.add(entry(client(MARKER), set("request_percentage", value)));
        String answer = alter(c, version, false, all.toArray(EntryData[]::new));
        String expected = "[[client-id=" + MARKER + "] {request_percentage=" + (double) value + "}]";
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (!describe(c, true, component("client-id", EXACT, MARKER)).equals(expected)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the alteration did not show in DescribeClientQuotas within 15 s");
            }
            Thread.sleep(20);
        }
        return answer.replace("; [client-id=" + MARKER + "] NONE", "").replace("[client-id=" + MARKER + "] NONE; ",
                "");
    }

    static EntityData entity(String type, String name) {
        return new EntityData().setEntityType(type).setEntityName(name);
    }

    static List<EntityData> user(String name) {
        return List.of(entity("user", name));
    }

    static List<EntityData> client(String name) {
        return List.of(entity("client-id", name));
    }

    static OpData set(String key, double value) {
        return new OpData().setKey(key).setValue(value);
    }

    static OpData remove(String key) {
        return new OpData().setKey(key).setRemove(true);
    }

    static EntryData entry(List<EntityData> entity, OpData... ops) {
        List<EntityData> copy = new ArrayList<>();
        entity.forEach(e -> copy.add(e.duplicate()));
        return new EntryData().setEntity(copy).setOps(new ArrayList<>(Arrays.asList(ops)));
    }

    /** Each entry's entity (as answered) and error code and message, in the order answered. */
    static String alter(RawConnection c, short version, boolean validateOnly, EntryData... entries)
            throws Exception {
        AlterClientQuotasResponseData r = (AlterClientQuotasResponseData) c.send(ApiKeys.ALTER_CLIENT_QUOTAS, version,
                new AlterClientQuotasRequestData().setEntries(new ArrayList<>(Arrays.asList(entries)))
                        .setValidateOnly(validateOnly)).body();
        TreeSet<String> out = new TreeSet<>(); // Kafka answers in no particular order
        for (AlterClientQuotasResponseData.EntryData e : r.entries()) {
            TreeSet<String> names = new TreeSet<>();
            e.entity().forEach(x -> names.add(x.entityType() + "=" + x.entityName()));
            out.add(names + " " + Errors.forCode(e.errorCode()).name() + (e.errorMessage() == null ? ""
                    : " '" + e.errorMessage() + "'"));
        }
        return String.join("; ", out);
    }

    static ComponentData component(String type, byte matchType, String match) {
        return new ComponentData().setEntityType(type).setMatchType(matchType).setMatch(match);
    }

    /** The error, or the matching entities and their values, sorted. */
    static String describe(RawConnection c, boolean strict, ComponentData... components) throws Exception {
        DescribeClientQuotasResponseData r = (DescribeClientQuotasResponseData) c.send(ApiKeys.DESCRIBE_CLIENT_QUOTAS,
                (short) 1, new DescribeClientQuotasRequestData().setComponents(new ArrayList<>(Arrays.asList(
                        components))).setStrict(strict)).body();
        if (r.errorCode() != Errors.NONE.code()) {
            return Errors.forCode(r.errorCode()).name() + " '" + r.errorMessage() + "' entries "
                    + (r.entries() == null ? "null" : r.entries().size());
        }
        TreeSet<String> out = new TreeSet<>();
        for (DescribeClientQuotasResponseData.EntryData e : r.entries()) {
            TreeSet<String> names = new TreeSet<>();
            e.entity().forEach(x -> names.add(x.entityType() + "=" + x.entityName()));
            TreeMap<String, Double> values = new TreeMap<>();
            e.values().forEach(v -> values.put(v.key(), v.value()));
            out.add(names + " " + values);
        }
        return out.toString();
    }
}
