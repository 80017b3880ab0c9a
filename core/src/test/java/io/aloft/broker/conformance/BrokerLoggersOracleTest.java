package io.aloft.broker.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.TestBroker;
import io.aloft.broker.config.DynamicBrokerConfigs;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
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
 * Log levels as a config resource (BROKER_LOGGER, issue 17): the same DescribeConfigs,
 * IncrementalAlterConfigs and AlterConfigs requests, valid and not, sent to Aloft and to Apache Kafka
 * 4.3.1, must get the same error codes and change levels the same way. Logger names differ between
 * the two, so each side names one of its own class loggers that has no level of its own, and the
 * transcripts record facts (listed or not, changed or not) rather than names and levels.
 *
 * <p>Every level a case changes is set back before it ends (both brokers are shared with other tests).
 */
class BrokerLoggersOracleTest {
    private static final byte BROKER_LOGGER = 8;
    private static final short SET = 0;
    private static final short DELETE = 1;
    private static final short APPEND = 2;
    private static final short SUBTRACT = 3;
    private static final Set<String> LOG4J_LEVELS = Set.of("OFF", "FATAL", "ERROR", "WARN", "INFO", "DEBUG",
            "TRACE", "ALL");

    /** A broker, and a logger of its that some class uses and no configuration sets (it follows the root). */
    private record Side(String bootstrap, String logger) {
    }

    @TempDir
    static Path dir;
    static TestBroker aloftBroker;
    static Side aloft;
    static Side kafka;

    @BeforeAll
    static void start() throws Exception {
        aloftBroker = new TestBroker(dir);
        aloft = new Side(aloftBroker.bootstrap(), DynamicBrokerConfigs.class.getName());
        kafka = new Side(KafkaOracle.bootstrap(), "kafka.server.ReplicaManager");
    }

    @AfterAll
    static void stop() {
        if (aloftBroker != null) {
            aloftBroker.close();
        }
    }

    @Test
    void describeConfigs_brokerLogger_answersAsKafka() throws Exception {
        assertSame(describeTranscript(kafka), describeTranscript(aloft));
    }

    @Test
    void incrementalAlterConfigs_brokerLogger_answersAndAppliesAsKafka() throws Exception {
        assertSame(alterTranscript(kafka), alterTranscript(aloft));
    }

    private static void assertSame(Map<String, String> kafkaSays, Map<String, String> aloftSays) {
        assertEquals(kafkaSays, aloftSays, "Aloft answers otherwise than " + KafkaOracle.description() + "\n"
                + ApiConformanceTest.diff(aloftSays, kafkaSays));
    }

    private static Map<String, String> describeTranscript(Side side) throws Exception {
        Map<String, String> t = new TreeMap<>();
        try (RawConnection c = RawConnection.open(side.bootstrap())) {
            for (short v : new short[] {1, 4}) {
                DescribeConfigsResult all = describe(c, v, "1", null);
                t.put("v" + v + " all: error", Errors.forCode(all.errorCode()).name());
                Set<String> names = new TreeSet<>();
                Set<String> shapes = new TreeSet<>();
                boolean levelsValid = true;
                for (DescribeConfigsResourceResult e : all.configs()) {
                    names.add(e.name());
                    shapes.add("source " + e.configSource() + ", readOnly " + e.readOnly() + ", sensitive "
                            + e.isSensitive() + ", type " + e.configType() + ", synonyms " + e.synonyms()
                            + ", documentation '" + e.documentation() + "'");
                    levelsValid &= LOG4J_LEVELS.contains(e.value());
                }
                t.put("v" + v + " all: root listed", Boolean.toString(names.contains("root")));
                t.put("v" + v + " all: the class logger listed", Boolean.toString(names.contains(side.logger())));
                t.put("v" + v + " all: entries", shapes.toString());
                t.put("v" + v + " all: every value a level", Boolean.toString(levelsValid));
            }
            DescribeConfigsResult chosen = describe(c, (short) 4, "1", List.of("root", "no.such.logger"));
            t.put("chosen: listed", chosen.configs().stream().map(DescribeConfigsResourceResult::name).toList()
                    .toString());
            for (String name : List.of("42", "abc", "", " 1", "01")) {
                t.put("resource '" + name + "': error", Errors.forCode(describe(c, (short) 4, name, null).errorCode())
                        .name());
            }
        }
        return t;
    }

    private static Map<String, String> alterTranscript(Side side) throws Exception {
        Map<String, String> t = new TreeMap<>();
        String logger = side.logger();
        try (RawConnection c = RawConnection.open(side.bootstrap())) {
            String root = level(c, "root");
            String before = level(c, logger);
            // Validate-only: what is accepted and what is refused, and with which code.
            t.put("set root WARN", alter(c, true, "1", op(SET, "root", "WARN")));
            t.put("set logger DEBUG", alter(c, true, "1", op(SET, logger, "DEBUG")));
            t.put("set unknown logger", alter(c, true, "1", op(SET, "no.such.logger", "DEBUG")));
            t.put("set empty name", alter(c, true, "1", op(SET, "", "DEBUG")));
            for (String level : List.of("LOUD", "debug", "OFF", "ALL")) {
                t.put("set level " + level, alter(c, true, "1", op(SET, logger, level)));
            }
            t.put("set no value", alter(c, true, "1", op(SET, logger, null)));
            t.put("delete root", alter(c, true, "1", op(DELETE, "root", null)));
            t.put("delete unknown logger", alter(c, true, "1", op(DELETE, "no.such.logger", null)));
            t.put("append", alter(c, true, "1", op(APPEND, logger, "DEBUG")));
            t.put("subtract", alter(c, true, "1", op(SUBTRACT, logger, "DEBUG")));
            t.put("same logger twice", alter(c, true, "1", op(SET, logger, "DEBUG"), op(DELETE, logger, null)));
            for (String name : List.of("42", "abc", "", "01")) {
                t.put("resource '" + name + "'", alter(c, true, name, op(SET, logger, "DEBUG")));
            }
            t.put("validate only changed nothing", Boolean.toString(before.equals(level(c, logger))
                    && root.equals(level(c, "root"))));

            // One bad change refuses the whole resource: the good one before it is not applied either.
            t.put("set good and bad", alter(c, false, "1", op(SET, logger, "TRACE"), op(SET, "root", "LOUD")));
            t.put("after good and bad: unchanged", Boolean.toString(before.equals(level(c, logger))));

            t.put("set logger TRACE", alter(c, false, "1", op(SET, logger, "TRACE")));
            t.put("after set: level", level(c, logger));
            t.put("delete logger", alter(c, false, "1", op(DELETE, logger, null)));
            t.put("after delete: back to the level before", Boolean.toString(before.equals(level(c, logger))));
            t.put("delete logger again", alter(c, false, "1", op(DELETE, logger, null)));

            t.put("legacy AlterConfigs", legacyAlter(c, logger));
        }
        return t;
    }

    private static DescribeConfigsResult describe(RawConnection c, short version, String name, List<String> keys)
            throws Exception {
        DescribeConfigsRequestData request = new DescribeConfigsRequestData().setResources(List.of(
                new DescribeConfigsResource().setResourceType(BROKER_LOGGER).setResourceName(name)
                        .setConfigurationKeys(keys))).setIncludeSynonyms(true).setIncludeDocumentation(version >= 3);
        return ((DescribeConfigsResponseData) c.send(ApiKeys.DESCRIBE_CONFIGS, version, request).body()).results()
                .get(0);
    }

    private static String level(RawConnection c, String logger) throws Exception {
        DescribeConfigsResult r = describe(c, (short) 4, "1", List.of(logger));
        if (r.errorCode() != Errors.NONE.code() || r.configs().size() != 1) {
            throw new AssertionError("cannot read the level of " + logger + ": " + r);
        }
        return r.configs().get(0).value();
    }

    private static AlterableConfig op(short operation, String name, String value) {
        return new AlterableConfig().setConfigOperation((byte) operation).setName(name).setValue(value);
    }

    /** The error code IncrementalAlterConfigs v1 gives one BROKER_LOGGER resource with these changes. */
    private static String alter(RawConnection c, boolean validateOnly, String name, AlterableConfig... ops)
            throws Exception {
        AlterableConfigCollection configs = new AlterableConfigCollection();
        for (AlterableConfig o : ops) {
            configs.mustAdd(o.duplicate());
        }
        AlterConfigsResourceCollection resources = new AlterConfigsResourceCollection();
        resources.add(new AlterConfigsResource().setResourceType(BROKER_LOGGER).setResourceName(name)
                .setConfigs(configs));
        IncrementalAlterConfigsResponseData r = (IncrementalAlterConfigsResponseData) c.send(
                ApiKeys.INCREMENTAL_ALTER_CONFIGS, (short) 1, new IncrementalAlterConfigsRequestData()
                        .setResources(resources).setValidateOnly(validateOnly)).body();
        return Errors.forCode(r.responses().get(0).errorCode()).name();
    }

    /** The error code AlterConfigs (the whole-set form) gives a BROKER_LOGGER resource. */
    private static String legacyAlter(RawConnection c, String logger) throws Exception {
        AlterConfigsRequestData.AlterableConfigCollection configs = new AlterConfigsRequestData.AlterableConfigCollection();
        configs.add(new AlterConfigsRequestData.AlterableConfig().setName(logger).setValue("DEBUG"));
        AlterConfigsRequestData.AlterConfigsResourceCollection resources =
                new AlterConfigsRequestData.AlterConfigsResourceCollection();
        resources.add(new AlterConfigsRequestData.AlterConfigsResource().setResourceType(BROKER_LOGGER)
                .setResourceName("1").setConfigs(configs));
        AlterConfigsResponseData r = (AlterConfigsResponseData) c.send(ApiKeys.ALTER_CONFIGS, (short) 2,
                new AlterConfigsRequestData().setResources(resources).setValidateOnly(true)).body();
        return Errors.forCode(r.responses().get(0).errorCode()).name();
    }
}
