package io.aloft.broker.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The share group wire cases ({@link ShareCases}, {@link ShareAdminCases}) proven on Apache Kafka 4.3.1 before Aloft serves
 * share groups: each case, at each version, gets the same transcript on two runs (so comparing it
 * with Aloft's is meaningful) and Kafka answers each error path with the code listed here (so the
 * case reaches the path it is named after). {@link ApiConformanceTest} compares Aloft with Kafka on
 * these cases once Aloft advertises the share APIs.
 */
class ShareApiOracleTest {
    /**
     * What Kafka 4.3.1 answers on each case's error paths (top-level codes unless the path says
     * otherwise), by case id ("API name") or, where one name serves one API, case name, and step:
     * the facts these cases were written to pin down.
     */
    static final Map<String, Map<String, String>> KAFKA_ANSWERS = Map.ofEntries(
            Map.entry("join, heartbeat, fenced, unknown member, leave", Map.of(
                    "heartbeat: errorCode", "NONE",
                    "epoch ahead: errorCode", "FENCED_MEMBER_EPOCH",
                    "unknown member: errorCode", "UNKNOWN_MEMBER_ID",
                    "unknown group: errorCode", "GROUP_ID_NOT_FOUND",
                    "leave: errorCode", "NONE",
                    "heartbeat after leaving: errorCode", "UNKNOWN_MEMBER_ID")),
            Map.entry("bad input", Map.of(
                    "empty group id: errorCode", "INVALID_REQUEST",
                    "empty member id: errorCode", "INVALID_REQUEST",
                    "no subscription: errorCode", "INVALID_REQUEST",
                    "negative epoch: errorCode", "INVALID_REQUEST")),
            Map.entry("session errors", Map.of(
                    "acknowledgements on epoch 0: errorCode", "INVALID_REQUEST",
                    "unknown session: errorCode", "SHARE_SESSION_NOT_FOUND",
                    "open: errorCode", "NONE",
                    "epoch ahead: errorCode", "INVALID_SHARE_SESSION_EPOCH",
                    "next epoch: errorCode", "NONE",
                    "stale epoch: errorCode", "INVALID_SHARE_SESSION_EPOCH",
                    "close: errorCode", "NONE",
                    "after close: errorCode", "SHARE_SESSION_NOT_FOUND",
                    // Kafka does not ask the group: any member id opens a session.
                    "member not in the group: errorCode", "NONE")),
            // Not UNKNOWN_TOPIC_ID: Kafka 4.3.1 answers the whole request with UNKNOWN_SERVER_ERROR.
            Map.entry("unknown topic id", Map.of("unknown topic id: errorCode", "UNKNOWN_SERVER_ERROR")),
            Map.entry("session and record errors", Map.of(
                    "no session: errorCode", "SHARE_SESSION_NOT_FOUND",
                    "epoch 0: errorCode", "INVALID_SHARE_SESSION_EPOCH",
                    "bad acknowledge type: errorCode", "NONE",
                    "bad acknowledge type: responses[topic=conf-data].partitions[partitionIndex=0].errorCode",
                    "INVALID_REQUEST",
                    // Not UNKNOWN_TOPIC_ID: no error, and the response leaves the topic out.
                    "unknown topic id: errorCode", "NONE",
                    "epoch ahead: errorCode", "INVALID_SHARE_SESSION_EPOCH",
                    "close: errorCode", "NONE",
                    "after close: errorCode", "SHARE_SESSION_NOT_FOUND")),
            Map.entry("live and unknown group", Map.of(
                    "describe: groups[groupId=conf-share-describe-v1].errorCode", "NONE",
                    "describe: groups[groupId=conf-share-no-such-group].errorCode", "GROUP_ID_NOT_FOUND")),
            // DescribeShareGroupOffsets answers an unknown group, and an unknown topic, without error.
            Map.entry("live and unknown group, unknown topic", Map.of(
                    "describe: groups[groupId=conf-share-no-such-group].errorCode", "NONE",
                    "describe: groups[groupId=conf-share-no-such-group].topics[topic=conf-data]"
                            + ".partitions[partitionIndex=0].errorCode", "NONE")),
            // AlterShareGroupOffsets of an unknown group succeeds: Kafka makes the group.
            Map.entry("AlterShareGroupOffsets live, empty and unknown group", Map.of(
                    "group has a member: errorCode", "NON_EMPTY_GROUP",
                    "empty group: errorCode", "NONE",
                    "unknown topic: errorCode", "NONE",
                    "unknown topic: responses[topic=conf-share-no-such-topic].partitions[partitionIndex=0].errorCode",
                    "UNKNOWN_TOPIC_OR_PARTITION",
                    "unknown group: errorCode", "NONE")),
            Map.entry("DeleteShareGroupOffsets live, empty and unknown group", Map.of(
                    "group has a member: errorCode", "NON_EMPTY_GROUP",
                    "empty group: errorCode", "NONE",
                    "empty group: responses[topic=conf-data].errorCode", "NONE",
                    "unknown topic: errorCode", "NONE",
                    "unknown topic: responses[topic=conf-share-no-such-topic].errorCode", "UNKNOWN_TOPIC_OR_PARTITION",
                    "unknown group: errorCode", "GROUP_ID_NOT_FOUND")));

    static Target kafka;

    @BeforeAll
    static void start() throws Exception {
        kafka = Target.prepare("Kafka 4.3.1", KafkaOracle.bootstrap());
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @TestFactory
    Stream<DynamicTest> everyShareCase_answeredByKafkaAlike_twice() {
        List<DynamicTest> tests = new ArrayList<>();
        List<Shape> shapes = new ArrayList<>(ShareCases.shapes());
        shapes.addAll(ShareAdminCases.shapes());
        for (Shape shape : shapes) {
            for (short v = shape.fromVersion(); v <= shape.toVersion(); v++) {
                short version = v;
                tests.add(DynamicTest.dynamicTest(shape.id() + " v" + v, () -> {
                    Map<String, String> first = run(shape, version);
                    Map<String, String> second = run(shape, version);
                    assertEquals(first, second, shape.id() + " v" + version + " answered differently on a second run");
                    Map<String, String> expected = KAFKA_ANSWERS.getOrDefault(shape.id(),
                            KAFKA_ANSWERS.get(shape.name()));
                    assertTrue(expected != null, "no answers listed for " + shape.id());
                    expected.forEach((step, code) -> assertEquals(code, first.get(step), shape.id() + " v" + version
                            + ": " + step + "\n" + first));
                }));
            }
        }
        return tests.stream();
    }

    private static Map<String, String> run(Shape shape, short version) throws Exception {
        try (Session s = new Session(kafka)) {
            shape.script().run(s, version);
            return s.transcript();
        }
    }
}
