package io.aloft.broker.conformance;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterConfigsResourceCollection;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterableConfigCollection;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * DescribeConfigs, AlterConfigs and IncrementalAlterConfigs on topics, brokers and broker loggers:
 * whole resources, chosen keys, unknown resources and keys, validate-only changes and real ones.
 *
 * <p>Stateless.
 */
final class ConfigCases {
    private static final byte TOPIC = 2;
    private static final byte BROKER = 4;
    private static final byte BROKER_LOGGER = 8;

    private ConfigCases() {
    }

    static List<Shape> shapes() {
        List<Shape> shapes = new ArrayList<>();
        shapes.add(Shape.of(ApiKeys.DESCRIBE_CONFIGS, "topic and broker, all keys", (t, v) -> describe(v,
                new DescribeConfigsResource().setResourceType(TOPIC).setResourceName(Target.DATA)
                        .setConfigurationKeys(null),
                new DescribeConfigsResource().setResourceType(BROKER).setResourceName("1").setConfigurationKeys(null))));
        shapes.add(Shape.of(ApiKeys.DESCRIBE_CONFIGS, "chosen keys, unknown key", (t, v) -> describe(v,
                new DescribeConfigsResource().setResourceType(TOPIC).setResourceName(Target.DATA)
                        .setConfigurationKeys(List.of("retention.ms", "no.such.config")))));
        shapes.add(Shape.of(ApiKeys.DESCRIBE_CONFIGS, "unknown topic, other broker, cluster-wide broker", (t, v) ->
                describe(v,
                        new DescribeConfigsResource().setResourceType(TOPIC).setResourceName("conf-missing")
                                .setConfigurationKeys(null),
                        new DescribeConfigsResource().setResourceType(BROKER).setResourceName("42")
                                .setConfigurationKeys(null),
                        new DescribeConfigsResource().setResourceType(BROKER).setResourceName("")
                                .setConfigurationKeys(List.of("log.retention.ms")))));
        shapes.add(Shape.of(ApiKeys.DESCRIBE_CONFIGS, "broker loggers", (t, v) -> describe(v,
                new DescribeConfigsResource().setResourceType(BROKER_LOGGER).setResourceName("1")
                        .setConfigurationKeys(List.of("root")))));

        shapes.add(Shape.of(ApiKeys.ALTER_CONFIGS, "validate only: valid, unknown key, unknown topic", (t, v) -> {
            AlterConfigsResourceCollection resources = new AlterConfigsResourceCollection();
            resources.add(alter(TOPIC, Target.DATA, "retention.ms", "3600000"));
            resources.add(alter(TOPIC, Target.EMPTY, "no.such.config", "1"));
            resources.add(alter(TOPIC, "conf-missing", "retention.ms", "1000"));
            return new AlterConfigsRequestData().setResources(resources).setValidateOnly(true);
        }));
        shapes.add(Shape.of(ApiKeys.ALTER_CONFIGS, "invalid value", (t, v) -> {
            AlterConfigsResourceCollection resources = new AlterConfigsResourceCollection();
            resources.add(alter(TOPIC, Target.DATA, "retention.ms", "soon"));
            return new AlterConfigsRequestData().setResources(resources).setValidateOnly(true);
        }));
        // Broker 1 rather than the cluster default: Kafka refuses a whole-resource replace of the cluster
        // default that drops min.insync.replicas while ELR is on, a rule of its replication.
        shapes.add(Shape.of(ApiKeys.ALTER_CONFIGS, "broker, validate only", (t, v) -> {
            AlterConfigsResourceCollection resources = new AlterConfigsResourceCollection();
            resources.add(alter(BROKER, "1", "log.retention.ms", "604800000"));
            return new AlterConfigsRequestData().setResources(resources).setValidateOnly(true);
        }));

        shapes.add(Shape.of(ApiKeys.INCREMENTAL_ALTER_CONFIGS, "set, delete, unknown key, unknown topic", (t, v) -> {
            IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection resources =
                    new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
            resources.add(incremental(TOPIC, Target.EMPTY, "retention.ms", "86400000", (byte) 0));
            resources.add(incremental(TOPIC, Target.DATA, "retention.bytes", null, (byte) 1));
            resources.add(incremental(TOPIC, "conf-missing", "retention.ms", "1000", (byte) 0));
            return new IncrementalAlterConfigsRequestData().setResources(resources);
        }));
        shapes.add(Shape.of(ApiKeys.INCREMENTAL_ALTER_CONFIGS, "unknown key, invalid value, append to a scalar",
                (t, v) -> {
                    IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection resources =
                            new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
                    resources.add(incremental(TOPIC, Target.EMPTY, "no.such.config", "1", (byte) 0));
                    resources.add(incremental(TOPIC, Target.DATA, "retention.ms", "soon", (byte) 0));
                    resources.add(incremental(TOPIC, "conf-produce", "retention.ms", "1", (byte) 2));
                    return new IncrementalAlterConfigsRequestData().setResources(resources).setValidateOnly(true);
                }));
        shapes.add(Shape.of(ApiKeys.INCREMENTAL_ALTER_CONFIGS, "broker default, validate only", (t, v) -> {
            IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection resources =
                    new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
            resources.add(incremental(BROKER, "", "log.retention.ms", "604800000", (byte) 0));
            return new IncrementalAlterConfigsRequestData().setResources(resources).setValidateOnly(true);
        }));
        // Log levels: validate-only, on the root logger, the one name both brokers have (the whole
        // exchange, with each broker's own loggers, is BrokerLoggersOracleTest's).
        shapes.add(Shape.of(ApiKeys.INCREMENTAL_ALTER_CONFIGS, "broker loggers: set root, other broker", (t, v) -> {
            IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection resources =
                    new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
            resources.add(incremental(BROKER_LOGGER, "1", "root", "WARN", (byte) 0));
            resources.add(incremental(BROKER_LOGGER, "42", "root", "WARN", (byte) 0));
            return new IncrementalAlterConfigsRequestData().setResources(resources).setValidateOnly(true);
        }));
        shapes.add(Shape.of(ApiKeys.INCREMENTAL_ALTER_CONFIGS, "broker loggers: bad level", (t, v) -> {
            IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection resources =
                    new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
            resources.add(incremental(BROKER_LOGGER, "1", "root", "LOUD", (byte) 0));
            return new IncrementalAlterConfigsRequestData().setResources(resources).setValidateOnly(true);
        }));
        shapes.add(Shape.of(ApiKeys.INCREMENTAL_ALTER_CONFIGS, "broker loggers: delete root", (t, v) -> {
            IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection resources =
                    new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
            resources.add(incremental(BROKER_LOGGER, "1", "root", null, (byte) 1));
            return new IncrementalAlterConfigsRequestData().setResources(resources).setValidateOnly(true);
        }));
        return shapes;
    }

    private static DescribeConfigsRequestData describe(short v, DescribeConfigsResource... resources) {
        DescribeConfigsRequestData r = new DescribeConfigsRequestData().setResources(List.of(resources))
                .setIncludeSynonyms(v >= 1);
        return v >= 3 ? r.setIncludeDocumentation(true) : r;
    }

    private static AlterConfigsResource alter(byte type, String name, String key, String value) {
        AlterableConfigCollection configs = new AlterableConfigCollection();
        configs.add(new AlterableConfig().setName(key).setValue(value));
        return new AlterConfigsResource().setResourceType(type).setResourceName(name).setConfigs(configs);
    }

    private static IncrementalAlterConfigsRequestData.AlterConfigsResource incremental(byte type, String name,
            String key, String value, byte operation) {
        IncrementalAlterConfigsRequestData.AlterableConfigCollection configs =
                new IncrementalAlterConfigsRequestData.AlterableConfigCollection();
        configs.add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName(key).setValue(value)
                .setConfigOperation(operation));
        return new IncrementalAlterConfigsRequestData.AlterConfigsResource().setResourceType(type)
                .setResourceName(name).setConfigs(configs);
    }
}
