package io.aloft.broker.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.TestBroker;
import io.aloft.broker.config.GroupConfigKeys;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfigCollection;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Group configs (GROUP config resources, KIP-848/KIP-932): the same DescribeConfigs,
 * IncrementalAlterConfigs and AlterConfigs requests, valid and not, sent to Aloft and to Apache
 * Kafka 4.3.1 must get the same error codes and messages, and describe the same values and sources
 * for the keys Aloft serves (Kafka also lists consumer.*, streams.* and share.assignment.interval.ms,
 * which Aloft does not honour and so does not serve). Each side uses a group id of its own run (the
 * oracle is shared with other tests and keeps group configs).
 */
class GroupConfigsOracleTest {
    private static final byte GROUP = 32;
    private static final byte SET = 0;
    private static final byte DELETE = 1;
    private static final byte APPEND = 2;
    private static final byte SUBTRACT = 3;

    @TempDir
    static Path dir;
    static TestBroker aloft;

    @BeforeAll
    static void start() throws Exception {
        aloft = new TestBroker(dir);
    }

    @AfterAll
    static void stop() {
        if (aloft != null) {
            aloft.close();
        }
    }

    @Test
    void alterAndDescribe_group_answersAsKafka() throws Exception {
        assertSame(transcript(KafkaOracle.bootstrap()), transcript(aloft.bootstrap()));
    }

    private static void assertSame(Map<String, String> kafka, Map<String, String> aloft) {
        StringBuilder diff = new StringBuilder();
        kafka.forEach((k, v) -> {
            if (!v.equals(aloft.get(k))) {
                diff.append(k).append("\n  kafka: ").append(v).append("\n  aloft: ").append(aloft.get(k)).append('\n');
            }
        });
        assertEquals("", diff.toString(), KafkaOracle.description());
        assertEquals(kafka.keySet(), aloft.keySet());
    }

    private static Map<String, String> transcript(String bootstrap) throws Exception {
        String g = "group-configs-" + UUID.randomUUID();
        Map<String, String> t = new TreeMap<>();
        try (RawConnection c = RawConnection.open(bootstrap)) {
            t.put("00 describe before", describe(c, g, null));
            t.put("01 set lock duration", alter(c, g, false, op(SET, "share.record.lock.duration.ms", "20000")));
            t.put("02 set every served key", alter(c, g, false,
                    op(SET, "share.delivery.count.limit", "7"), op(SET, "share.partition.max.record.locks", "150"),
                    op(SET, "share.session.timeout.ms", "50000"), op(SET, "share.heartbeat.interval.ms", "6000"),
                    op(SET, "share.auto.offset.reset", "by_duration:PT1H"),
                    op(SET, "share.isolation.level", "read_committed"),
                    op(SET, "share.renew.acknowledge.enable", "false")));
            t.put("03 describe after set", describe(c, g, null));
            t.put("04 describe some keys", describe(c, g, List.of("share.delivery.count.limit", "no.such.key")));
            t.put("05 validate only", alter(c, g, true, op(SET, "share.delivery.count.limit", "9")));
            t.put("06 after validate only", describe(c, g, List.of("share.delivery.count.limit")));
            String[][] bad = {
                {"share.record.lock.duration.ms", "1000"}, {"share.record.lock.duration.ms", "999"},
                {"share.record.lock.duration.ms", "abc"}, {"share.record.lock.duration.ms", "2147483648"},
                {"share.record.lock.duration.ms", ""}, {"share.record.lock.duration.ms", "99999999"},
                {"share.delivery.count.limit", "1"}, {"share.delivery.count.limit", "11"},
                {"share.partition.max.record.locks", "99"}, {"share.partition.max.record.locks", "4001"},
                {"share.session.timeout.ms", "0"}, {"share.session.timeout.ms", "10"},
                {"share.session.timeout.ms", "60001"}, {"share.heartbeat.interval.ms", "10"},
                {"share.heartbeat.interval.ms", "15001"}, {"share.auto.offset.reset", "bogus"},
                {"share.auto.offset.reset", "EARLIEST"}, {"share.auto.offset.reset", "by_duration:xx"},
                {"share.auto.offset.reset", "by_duration:-PT1H"}, {"share.isolation.level", "READ_COMMITTED"},
                {"share.isolation.level", ""}, {"share.renew.acknowledge.enable", "maybe"},
                {"no.such.key", "1"},
            };
            for (String[] b : bad) {
                t.put("10 bad " + b[0] + "=" + b[1], alter(c, g, false, op(SET, b[0], b[1])));
            }
            t.put("11 good and bad together", alter(c, g, false, op(SET, "share.delivery.count.limit", "3"),
                    op(SET, "no.such.key", "1")));
            t.put("12 after good and bad", describe(c, g, List.of("share.delivery.count.limit")));
            t.put("13 spaces around a number", alter(c, g, false, op(SET, "share.delivery.count.limit", " 4 ")));
            t.put("14 set null", alter(c, g, false, op(SET, "share.delivery.count.limit", null)));
            t.put("15 append", alter(c, g, false, op(APPEND, "share.delivery.count.limit", "1")));
            t.put("16 subtract unknown", alter(c, g, false, op(SUBTRACT, "no.such.key", "1")));
            t.put("17 delete", alter(c, g, false, op(DELETE, "share.record.lock.duration.ms", null),
                    op(DELETE, "no.such.key", null)));
            t.put("18 describe after delete", describe(c, g, List.of("share.record.lock.duration.ms")));
            t.put("19 empty group name: alter", alter(c, "", false, op(SET, "share.delivery.count.limit", "3")));
            t.put("19 empty group name: describe", describe(c, "", null));
            t.put("20 legacy AlterConfigs", legacyAlter(c, g, "share.delivery.count.limit", "6"));
            t.put("21 after legacy: only its key set", describe(c, g, null));
            t.put("22 legacy AlterConfigs, unknown key", legacyAlter(c, g, "no.such.key", "6"));
        }
        return t;
    }

    private static AlterableConfig op(byte operation, String name, String value) {
        return new AlterableConfig().setConfigOperation(operation).setName(name).setValue(value);
    }

    /** The served keys of a group's description: name=value (source, type, read-only), or the error. */
    private static String describe(RawConnection c, String group, List<String> keys) throws Exception {
        DescribeConfigsRequestData request = new DescribeConfigsRequestData().setResources(List.of(
                new DescribeConfigsResource().setResourceType(GROUP).setResourceName(group)
                        .setConfigurationKeys(keys))).setIncludeSynonyms(false).setIncludeDocumentation(false);
        DescribeConfigsResult r = ((DescribeConfigsResponseData) c.send(ApiKeys.DESCRIBE_CONFIGS, (short) 4, request)
                .body()).results().get(0);
        if (r.errorCode() != Errors.NONE.code()) {
            return Errors.forCode(r.errorCode()).name() + ": " + r.errorMessage();
        }
        StringBuilder out = new StringBuilder();
        new TreeMap<String, DescribeConfigsResourceResult>(Map.ofEntries(r.configs().stream()
                .filter(e -> GroupConfigKeys.names().contains(e.name()))
                .map(e -> Map.entry(e.name(), e)).toArray(Map.Entry[]::new))).values().forEach(e -> out
                        .append(e.name()).append('=').append(e.value()).append(" (source ").append(e.configSource())
                        .append(", type ").append(e.configType()).append(e.readOnly() ? ", read-only" : "")
                        .append(e.isSensitive() ? ", sensitive" : "").append(") "));
        return out.toString();
    }

    private static String alter(RawConnection c, String group, boolean validateOnly, AlterableConfig... ops)
            throws Exception {
        AlterableConfigCollection configs = new AlterableConfigCollection();
        for (AlterableConfig o : ops) {
            configs.mustAdd(o.duplicate());
        }
        AlterConfigsResourceCollection resources = new AlterConfigsResourceCollection();
        resources.add(new AlterConfigsResource().setResourceType(GROUP).setResourceName(group).setConfigs(configs));
        IncrementalAlterConfigsResponseData r = (IncrementalAlterConfigsResponseData) c.send(
                ApiKeys.INCREMENTAL_ALTER_CONFIGS, (short) 1, new IncrementalAlterConfigsRequestData()
                        .setResources(resources).setValidateOnly(validateOnly)).body();
        var response = r.responses().get(0);
        return Errors.forCode(response.errorCode()).name() + ": " + response.errorMessage();
    }

    private static String legacyAlter(RawConnection c, String group, String name, String value) throws Exception {
        AlterConfigsRequestData.AlterableConfigCollection configs =
                new AlterConfigsRequestData.AlterableConfigCollection();
        configs.add(new AlterConfigsRequestData.AlterableConfig().setName(name).setValue(value));
        AlterConfigsRequestData.AlterConfigsResourceCollection resources =
                new AlterConfigsRequestData.AlterConfigsResourceCollection();
        resources.add(new AlterConfigsRequestData.AlterConfigsResource().setResourceType(GROUP)
                .setResourceName(group).setConfigs(configs));
        AlterConfigsResponseData r = (AlterConfigsResponseData) c.send(ApiKeys.ALTER_CONFIGS, (short) 2,
                new AlterConfigsRequestData().setResources(resources)).body();
        var response = r.responses().get(0);
        return Errors.forCode(response.errorCode()).name() + ": " + response.errorMessage();
    }
}
