package io.aloft.broker.config;

import io.aloft.broker.log.LogConfig;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.topic.TopicManager;
import io.aloft.controller.model.TopicInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Configs of topics and brokers as DescribeConfigs shows them and Alter(Incremental)Configs
 * changes them. Topic overrides live in the controller; broker settings are static (from the
 * properties file) and read-only: dynamic broker configs are not supported yet.
 */
public final class ConfigResources {

    /** Kafka's config sources (DescribeConfigs wire values). */
    public static final byte SOURCE_TOPIC = 1;
    public static final byte SOURCE_STATIC_BROKER = 4;
    public static final byte SOURCE_DEFAULT = 5;

    /** One config as described. */
    public record Entry(String name, String value, byte source, boolean readOnly) {
    }

    private final int brokerId;
    private final MetadataCache cache;
    private final TopicManager topics;
    private final LogConfig brokerDefaults;
    private final Map<String, String> brokerProperties;
    private final java.util.function.Consumer<TopicInfo> onTopicChanged;

    public ConfigResources(int brokerId, MetadataCache cache, TopicManager topics, LogConfig brokerDefaults,
            Map<String, String> brokerProperties, java.util.function.Consumer<TopicInfo> onTopicChanged) {
        this.onTopicChanged = onTopicChanged;
        this.brokerId = brokerId;
        this.cache = cache;
        this.topics = topics;
        this.brokerDefaults = brokerDefaults;
        this.brokerProperties = new TreeMap<>(brokerProperties);
    }

    /** The configs of a resource (all when {@code keys} is null or empty). */
    public List<Entry> describe(ConfigResource.Type type, String name, List<String> keys) {
        List<Entry> all = switch (type) {
            case TOPIC -> describeTopic(requireTopic(name));
            case BROKER -> describeBroker(name);
            default -> throw new InvalidRequestException("configs of " + type + " resources are not supported");
        };
        if (keys == null || keys.isEmpty()) {
            return all;
        }
        return all.stream().filter(e -> keys.contains(e.name())).toList();
    }

    private List<Entry> describeTopic(TopicInfo topic) {
        List<Entry> out = new ArrayList<>();
        Map<String, String> defaults = brokerDefaults.toMap();
        Map<String, String> merged = new TreeMap<>(defaults);
        merged.putAll(topic.configs());
        merged.forEach((k, v) -> out.add(new Entry(k, v, topic.configs().containsKey(k) ? SOURCE_TOPIC
                : SOURCE_DEFAULT, false)));
        return out;
    }

    private List<Entry> describeBroker(String name) {
        if (!name.isEmpty() && !name.equals(Integer.toString(brokerId))) {
            throw new InvalidRequestException("this is broker " + brokerId + ", not " + name);
        }
        List<Entry> out = new ArrayList<>();
        brokerProperties.forEach((k, v) -> out.add(new Entry(k, isSensitive(k) ? null : v, SOURCE_STATIC_BROKER,
                true)));
        return out;
    }

    private static boolean isSensitive(String key) {
        String k = key.toLowerCase(java.util.Locale.ROOT);
        return k.contains("secret") || k.contains("password") || k.contains("accesskey");
    }

    /** Applies topic config changes (validated first), or fails with the Kafka error the client should see. */
    public CompletableFuture<Void> alter(ConfigResource.Type type, String name, Map<String, String> set,
            List<String> delete, boolean validateOnly) {
        try {
            if (type == ConfigResource.Type.BROKER) {
                throw new InvalidRequestException("dynamic broker configs are not supported yet: set them in "
                        + "server.properties and restart the broker");
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
