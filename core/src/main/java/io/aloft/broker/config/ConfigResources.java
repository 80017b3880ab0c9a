package io.aloft.broker.config;

import io.aloft.broker.log.LogConfig;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.topic.TopicManager;
import io.aloft.config.ConfigKey;
import io.aloft.controller.model.TopicInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Configs of topics, brokers and groups ({@link GroupConfigs}) as DescribeConfigs shows them and
 * Alter(Incremental)Configs changes them. Topic overrides live in the controller; broker configs are the properties file
 * plus the dynamic values of {@link DynamicBrokerConfigs}. Which broker keys are writable, and each
 * key's type and documentation, come from the keys' declarations.
 */
public final class ConfigResources {

    /** Kafka's config sources (DescribeConfigs wire values). */
    public static final byte SOURCE_TOPIC = 1;
    public static final byte SOURCE_DYNAMIC_BROKER = 2;
    public static final byte SOURCE_DYNAMIC_DEFAULT_BROKER = 3;
    public static final byte SOURCE_STATIC_BROKER = 4;
    public static final byte SOURCE_DEFAULT = 5;
    public static final byte SOURCE_DYNAMIC_BROKER_LOGGER = 6;
    public static final byte SOURCE_GROUP = 8;

    /**
     * One config as described.
     *
     * @param key its declaration, for the type and documentation; {@code null} for a key no module
     *     reads (a Kafka topic config Aloft accepts and ignores, or an unknown key in the file)
     */
    public record Entry(String name, String value, byte source, boolean readOnly, ConfigKey<?> key) {
    }

    private final MetadataCache cache;
    private final TopicManager topics;
    private final DynamicBrokerConfigs brokerConfigs;
    private final BrokerLoggers loggers;
    private final GroupConfigs groups;
    private final java.util.function.Consumer<TopicInfo> onTopicChanged;

    public ConfigResources(MetadataCache cache, TopicManager topics, DynamicBrokerConfigs brokerConfigs,
            BrokerLoggers loggers, GroupConfigs groups, java.util.function.Consumer<TopicInfo> onTopicChanged) {
        this.onTopicChanged = onTopicChanged;
        this.groups = groups;
        this.cache = cache;
        this.topics = topics;
        this.brokerConfigs = brokerConfigs;
        this.loggers = loggers;
    }

    /** The log levels of this broker (resource type BROKER_LOGGER), which IncrementalAlterConfigs changes. */
    public BrokerLoggers loggers() {
        return loggers;
    }

    /** The configs of groups (resource type GROUP), which IncrementalAlterConfigs changes key by key. */
    public GroupConfigs groups() {
        return groups;
    }

    /** The configs of a resource (all when {@code keys} is null or empty). */
    public List<Entry> describe(ConfigResource.Type type, String name, List<String> keys) {
        List<Entry> all = switch (type) {
            case TOPIC -> describeTopic(requireTopic(name));
            case BROKER -> describeBroker(name);
            case BROKER_LOGGER -> describeLoggers(name);
            case GROUP -> describeGroup(name);
            default -> throw new InvalidRequestException("configs of " + type + " resources are not supported");
        };
        if (keys == null || keys.isEmpty()) {
            return all;
        }
        return all.stream().filter(e -> keys.contains(e.name())).toList();
    }

    private List<Entry> describeLoggers(String name) {
        List<Entry> out = new ArrayList<>();
        loggers.describe(name).forEach((logger, level) -> out.add(new Entry(logger, level,
                SOURCE_DYNAMIC_BROKER_LOGGER, false, null)));
        return out;
    }

    /** Every served group key: the group's value (source GROUP) or the broker default (source DEFAULT). */
    private List<Entry> describeGroup(String name) {
        Map<String, String> own = groups.overrides(name);
        List<Entry> out = new ArrayList<>();
        groups.keys().defaults().forEach((k, v) -> out.add(own.containsKey(k)
                ? new Entry(k, own.get(k), SOURCE_GROUP, false, GroupConfigKeys.declaration(k))
                : new Entry(k, v, SOURCE_DEFAULT, false, GroupConfigKeys.declaration(k))));
        return out;
    }

    private List<Entry> describeTopic(TopicInfo topic) {
        List<Entry> out = new ArrayList<>();
        Map<String, String> merged = new TreeMap<>(brokerConfigs.logDefaults().toMap());
        merged.putAll(topic.configs());
        merged.forEach((k, v) -> out.add(new Entry(k, v, topic.configs().containsKey(k) ? SOURCE_TOPIC
                : brokerSource(LogConfig.brokerSynonyms(k)), false, LogConfig.describedKey(k))));
        return out;
    }

    /** Where the broker-level value of a topic default comes from: the highest level setting any synonym. */
    private byte brokerSource(List<String> synonyms) {
        if (synonyms.stream().anyMatch(brokerConfigs.perBroker()::containsKey)) {
            return SOURCE_DYNAMIC_BROKER;
        }
        if (synonyms.stream().anyMatch(brokerConfigs.clusterDefault()::containsKey)) {
            return SOURCE_DYNAMIC_DEFAULT_BROKER;
        }
        if (synonyms.stream().anyMatch(brokerConfigs.staticProps()::containsKey)) {
            return SOURCE_STATIC_BROKER;
        }
        return SOURCE_DEFAULT;
    }

    /**
     * The cluster default ("") shows only the dynamic cluster-wide values, as in Kafka. A broker
     * shows its properties file and every dynamic key, each with the value in force and its source;
     * dynamic keys are the writable ones.
     */
    private List<Entry> describeBroker(String name) {
        if (name.equals(DynamicBrokerConfigs.CLUSTER_DEFAULT)) {
            List<Entry> out = new ArrayList<>();
            brokerConfigs.clusterDefault().forEach((k, v) -> out.add(new Entry(k, v, SOURCE_DYNAMIC_DEFAULT_BROKER,
                    false, brokerConfigs.key(k))));
            return out;
        }
        requireThisBroker(name);
        Map<String, Entry> entries = new TreeMap<>();
        brokerConfigs.staticProps().forEach((k, v) -> entries.put(k, new Entry(k, isSensitive(k) ? null : v,
                SOURCE_STATIC_BROKER, !brokerConfigs.dynamicKeys().contains(k), brokerConfigs.key(k))));
        // Every topic default with its broker key and the value in force, even where nothing sets it.
        Map<String, String> inForce = brokerConfigs.logDefaults().toMap();
        inForce.forEach((topicKey, value) -> {
            List<String> synonyms = LogConfig.brokerSynonyms(topicKey);
            if (!synonyms.isEmpty() && synonyms.stream().noneMatch(entries::containsKey)) {
                String brokerKey = synonyms.get(0);
                entries.put(brokerKey, new Entry(brokerKey, value, SOURCE_DEFAULT, false,
                        brokerConfigs.key(brokerKey)));
            }
        });
        brokerConfigs.clusterDefault().forEach((k, v) -> entries.put(k, new Entry(k, v,
                SOURCE_DYNAMIC_DEFAULT_BROKER, false, brokerConfigs.key(k))));
        brokerConfigs.perBroker().forEach((k, v) -> entries.put(k, new Entry(k, v, SOURCE_DYNAMIC_BROKER, false,
                brokerConfigs.key(k))));
        return List.copyOf(entries.values());
    }

    private void requireThisBroker(String name) {
        if (!name.equals(Integer.toString(brokerConfigs.brokerId()))) {
            throw new InvalidRequestException("this is broker " + brokerConfigs.brokerId() + ", not " + name);
        }
    }

    private static boolean isSensitive(String key) {
        String k = key.toLowerCase(java.util.Locale.ROOT);
        // ssl.keystore.key (and its listener.name.x. form) is an inline PEM private key.
        return k.contains("secret") || k.contains("password") || k.contains("accesskey")
                || k.endsWith("ssl.keystore.key") || k.contains("jaas.config");
    }

    /** The values set at a resource now: what a whole-set AlterConfigs replaces. */
    public Map<String, String> overrides(ConfigResource.Type type, String name) {
        if (type == ConfigResource.Type.TOPIC) {
            return requireTopic(name).configs();
        }
        if (type == ConfigResource.Type.BROKER) {
            if (!name.equals(DynamicBrokerConfigs.CLUSTER_DEFAULT)) {
                requireThisBroker(name);
            }
            return brokerConfigs.at(name);
        }
        if (type == ConfigResource.Type.GROUP) {
            return groups.overrides(name);
        }
        throw new InvalidRequestException("configs of " + type + " resources are not supported");
    }

    /** Applies config changes (validated first), or fails with the Kafka error the client should see. */
    public CompletableFuture<Void> alter(ConfigResource.Type type, String name, Map<String, String> set,
            List<String> delete, boolean validateOnly) {
        try {
            if (type == ConfigResource.Type.BROKER) {
                if (!name.equals(DynamicBrokerConfigs.CLUSTER_DEFAULT)) {
                    requireThisBroker(name);
                }
                return brokerConfigs.alter(name, set, delete, validateOnly);
            }
            if (type == ConfigResource.Type.GROUP) {
                List<GroupConfigs.Change> changes = new ArrayList<>();
                delete.forEach(k -> changes.add(new GroupConfigs.Change(k, AlterConfigOp.OpType.DELETE, null)));
                new TreeMap<>(set).forEach((k, v) -> changes.add(new GroupConfigs.Change(k, AlterConfigOp.OpType.SET,
                        v)));
                return groups.alter(name, changes, validateOnly);
            }
            if (type != ConfigResource.Type.TOPIC) {
                throw new InvalidRequestException("configs of " + type + " resources are not supported");
            }
            TopicInfo topic = requireTopic(name);
            if (validateOnly) {
                Map<String, String> merged = new TreeMap<>(topic.configs());
                delete.forEach(merged::remove);
                merged.putAll(set);
                topics.validateConfigs(merged);
                return CompletableFuture.completedFuture(null);
            }
            return topics.alterConfigs(topic, set, delete).thenApply(t -> {
                onTopicChanged.accept(t);
                return null;
            });
        } catch (ApiException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    public TopicInfo requireTopic(String name) {
        TopicInfo t = cache.view().topic(name);
        if (t == null) {
            throw new UnknownTopicOrPartitionException("topic " + name + " does not exist");
        }
        return t;
    }
}
