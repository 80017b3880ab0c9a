package io.aloft.broker.group;

import io.aloft.broker.group.consumer.ConsumerGroupConfig;
import io.aloft.broker.group.consumer.assignor.PartitionAssignor;
import io.aloft.broker.group.consumer.assignor.RangeAssignor;
import io.aloft.broker.group.consumer.assignor.UniformAssignor;
import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigException;
import io.aloft.config.ConfigKey;
import io.aloft.config.ConfigType;
import io.aloft.config.ConfigValues;
import io.aloft.config.Validator;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Settings of the group coordinator, under Kafka's key names and with Kafka's defaults, declared
 * once in {@link #DEFINITION}. Values are parsed once into typed fields; a bad value fails with a
 * {@link ConfigException} whose message starts with the key. Keys this class does not know are
 * ignored, since the broker's properties file holds many more. Immutable.
 */
public final class GroupCoordinatorConfig {

    public static final String INITIAL_REBALANCE_DELAY_MS_CONFIG = "group.initial.rebalance.delay.ms";
    public static final ConfigKey<Integer> INITIAL_REBALANCE_DELAY_MS = ConfigKey
            .intKey(INITIAL_REBALANCE_DELAY_MS_CONFIG).defaultValue(3000).validator(Validator.atLeast(0))
            .doc("How long the coordinator waits for more members to join a new (empty) group before the first "
                    + "rebalance, so a group starting many consumers at once does not rebalance once per consumer. "
                    + "Each member joining during the wait extends it by this much, up to the rebalance timeout.")
            .build();

    public static final String MIN_SESSION_TIMEOUT_MS_CONFIG = "group.min.session.timeout.ms";
    public static final ConfigKey<Integer> MIN_SESSION_TIMEOUT_MS = ConfigKey.intKey(MIN_SESSION_TIMEOUT_MS_CONFIG)
            .defaultValue(6000).validator(Validator.atLeast(0))
            .doc("The smallest session timeout a member may ask for; JoinGroup with a smaller one fails with "
                    + "INVALID_SESSION_TIMEOUT. At most group.max.session.timeout.ms.")
            .build();

    public static final String MAX_SESSION_TIMEOUT_MS_CONFIG = "group.max.session.timeout.ms";
    public static final ConfigKey<Integer> MAX_SESSION_TIMEOUT_MS = ConfigKey.intKey(MAX_SESSION_TIMEOUT_MS_CONFIG)
            .defaultValue(1_800_000).validator(Validator.atLeast(1))
            .doc("The largest session timeout a member may ask for; JoinGroup with a larger one fails with "
                    + "INVALID_SESSION_TIMEOUT.")
            .build();

    public static final String MAX_SIZE_CONFIG = "group.max.size";
    public static final ConfigKey<Integer> MAX_SIZE = ConfigKey.intKey(MAX_SIZE_CONFIG)
            .defaultValue(Integer.MAX_VALUE).validator(Validator.atLeast(1))
            .doc("The most members one group may have; a further member's JoinGroup fails with "
                    + "GROUP_MAX_SIZE_REACHED.")
            .build();

    public static final String OFFSETS_TOPIC_PARTITIONS_CONFIG = "offsets.topic.num.partitions";
    public static final ConfigKey<Integer> OFFSETS_TOPIC_PARTITIONS = ConfigKey
            .intKey(OFFSETS_TOPIC_PARTITIONS_CONFIG).defaultValue(50).validator(Validator.atLeast(1))
            .doc("Partitions of __consumer_offsets. A group lives in partition abs(groupId.hashCode()) % this, as "
                    + "in Kafka; changing it after groups exist strands them.")
            .build();

    public static final String OFFSETS_RETENTION_MINUTES_CONFIG = "offsets.retention.minutes";
    public static final ConfigKey<Integer> OFFSETS_RETENTION_MINUTES = ConfigKey
            .intKey(OFFSETS_RETENTION_MINUTES_CONFIG).defaultValue(10_080).validator(Validator.atLeast(1))
            .doc("Committed offsets of a group that has been empty this long are deleted (KIP-211).")
            .build();

    public static final String OFFSETS_RETENTION_CHECK_INTERVAL_MS_CONFIG = "offsets.retention.check.interval.ms";
    public static final ConfigKey<Long> OFFSETS_RETENTION_CHECK_INTERVAL_MS = ConfigKey
            .longKey(OFFSETS_RETENTION_CHECK_INTERVAL_MS_CONFIG).defaultValue(600_000L)
            .validator(Validator.atLeast(1L))
            .doc("How often expired offsets are looked for.")
            .build();

    public static final String OFFSET_METADATA_MAX_BYTES_CONFIG = "offset.metadata.max.bytes";
    public static final ConfigKey<Integer> OFFSET_METADATA_MAX_BYTES = ConfigKey
            .intKey(OFFSET_METADATA_MAX_BYTES_CONFIG).defaultValue(4096).validator(Validator.atLeast(0))
            .doc("The longest metadata string an offset commit may carry; a longer one fails that partition with "
                    + "OFFSET_METADATA_TOO_LARGE.")
            .build();

    public static final String COORDINATOR_THREADS_CONFIG = "group.coordinator.threads";
    public static final ConfigKey<Integer> COORDINATOR_THREADS = ConfigKey.intKey(COORDINATOR_THREADS_CONFIG)
            .defaultValue(1).validator(Validator.between(1, 64))
            .doc("Threads that run the group coordinator's shards (one __consumer_offsets partition is always "
                    + "served by the same thread).")
            .build();

    /** The group protocols a coordinator may serve. */
    public static final String CLASSIC_PROTOCOL = "classic";
    public static final String CONSUMER_PROTOCOL = "consumer";

    public static final String REBALANCE_PROTOCOLS_CONFIG = "group.coordinator.rebalance.protocols";
    public static final ConfigKey<List<String>> REBALANCE_PROTOCOLS = ConfigKey.customKey(REBALANCE_PROTOCOLS_CONFIG,
            ConfigType.LIST, text -> names(REBALANCE_PROTOCOLS_CONFIG, text, Set.of(CLASSIC_PROTOCOL,
                    CONSUMER_PROTOCOL)), ConfigKey::formatList)
            .defaultValue(List.of(CLASSIC_PROTOCOL, CONSUMER_PROTOCOL))
            .validator(Validator.of("classic, and optionally consumer", v -> null)) // checked while parsing
            .doc("The group protocols served: classic (JoinGroup/SyncGroup/Heartbeat) is always on; consumer is "
                    + "the KIP-848 protocol (ConsumerGroupHeartbeat, ConsumerGroupDescribe). Without consumer those "
                    + "APIs answer UNSUPPORTED_VERSION (ApiVersions still lists them, as Kafka 4.3 does).")
            .build();

    public static final String CONSUMER_SESSION_TIMEOUT_MS_CONFIG = "group.consumer.session.timeout.ms";
    public static final ConfigKey<Integer> CONSUMER_SESSION_TIMEOUT_MS = ConfigKey
            .intKey(CONSUMER_SESSION_TIMEOUT_MS_CONFIG).defaultValue(45_000).validator(Validator.atLeast(1))
            .doc("A member of a consumer group (KIP-848) that sends no heartbeat for this long is removed from the "
                    + "group and its partitions are reassigned; a static member that left with epoch -2 keeps its "
                    + "partitions this long. Between group.consumer.min.session.timeout.ms and "
                    + "group.consumer.max.session.timeout.ms.")
            .build();

    public static final String CONSUMER_MIN_SESSION_TIMEOUT_MS_CONFIG = "group.consumer.min.session.timeout.ms";
    public static final ConfigKey<Integer> CONSUMER_MIN_SESSION_TIMEOUT_MS = ConfigKey
            .intKey(CONSUMER_MIN_SESSION_TIMEOUT_MS_CONFIG).defaultValue(45_000).validator(Validator.atLeast(1))
            .doc("The smallest group.consumer.session.timeout.ms allowed.")
            .build();

    public static final String CONSUMER_MAX_SESSION_TIMEOUT_MS_CONFIG = "group.consumer.max.session.timeout.ms";
    public static final ConfigKey<Integer> CONSUMER_MAX_SESSION_TIMEOUT_MS = ConfigKey
            .intKey(CONSUMER_MAX_SESSION_TIMEOUT_MS_CONFIG).defaultValue(60_000).validator(Validator.atLeast(1))
            .doc("The largest group.consumer.session.timeout.ms allowed.")
            .build();

    public static final String CONSUMER_HEARTBEAT_INTERVAL_MS_CONFIG = "group.consumer.heartbeat.interval.ms";
    public static final ConfigKey<Integer> CONSUMER_HEARTBEAT_INTERVAL_MS = ConfigKey
            .intKey(CONSUMER_HEARTBEAT_INTERVAL_MS_CONFIG).defaultValue(5_000).validator(Validator.atLeast(1))
            .doc("How often members of consumer groups are told to heartbeat (every ConsumerGroupHeartbeat response "
                    + "says so); less than group.consumer.session.timeout.ms, between "
                    + "group.consumer.min.heartbeat.interval.ms and group.consumer.max.heartbeat.interval.ms.")
            .build();

    public static final String CONSUMER_MIN_HEARTBEAT_INTERVAL_MS_CONFIG = "group.consumer.min.heartbeat.interval.ms";
    public static final ConfigKey<Integer> CONSUMER_MIN_HEARTBEAT_INTERVAL_MS = ConfigKey
            .intKey(CONSUMER_MIN_HEARTBEAT_INTERVAL_MS_CONFIG).defaultValue(5_000).validator(Validator.atLeast(1))
            .doc("The smallest group.consumer.heartbeat.interval.ms allowed.")
            .build();

    public static final String CONSUMER_MAX_HEARTBEAT_INTERVAL_MS_CONFIG = "group.consumer.max.heartbeat.interval.ms";
    public static final ConfigKey<Integer> CONSUMER_MAX_HEARTBEAT_INTERVAL_MS = ConfigKey
            .intKey(CONSUMER_MAX_HEARTBEAT_INTERVAL_MS_CONFIG).defaultValue(15_000).validator(Validator.atLeast(1))
            .doc("The largest group.consumer.heartbeat.interval.ms allowed.")
            .build();

    public static final String CONSUMER_MAX_SIZE_CONFIG = "group.consumer.max.size";
    public static final ConfigKey<Integer> CONSUMER_MAX_SIZE = ConfigKey.intKey(CONSUMER_MAX_SIZE_CONFIG)
            .defaultValue(Integer.MAX_VALUE).validator(Validator.atLeast(1))
            .doc("The most members one consumer group may have; a further member's join fails with "
                    + "GROUP_MAX_SIZE_REACHED.")
            .build();

    /** The server-side assignors by the names clients choose them with (group.remote.assignor). */
    private static final Map<String, PartitionAssignor> ASSIGNORS = Map.of(
            UniformAssignor.NAME, new UniformAssignor(), RangeAssignor.NAME, new RangeAssignor());

    public static final String CONSUMER_ASSIGNORS_CONFIG = "group.consumer.assignors";
    public static final ConfigKey<List<String>> CONSUMER_ASSIGNORS = ConfigKey.customKey(CONSUMER_ASSIGNORS_CONFIG,
            ConfigType.LIST, text -> names(CONSUMER_ASSIGNORS_CONFIG, text, ASSIGNORS.keySet()), ConfigKey::formatList)
            .defaultValue(List.of(UniformAssignor.NAME, RangeAssignor.NAME))
            .validator(Validator.of("uniform and/or range", v -> null)) // checked while parsing
            .doc("The server-side assignors consumer groups may use, by name (uniform, range; Kafka takes class "
                    + "names here). The first is the default for members that choose none; a member asking for "
                    + "another gets UNSUPPORTED_ASSIGNOR.")
            .build();

    /** Every key the group coordinator reads. */
    public static final ConfigDefinition DEFINITION = ConfigDefinition.of("groups", INITIAL_REBALANCE_DELAY_MS,
            MIN_SESSION_TIMEOUT_MS, MAX_SESSION_TIMEOUT_MS, MAX_SIZE, OFFSETS_TOPIC_PARTITIONS,
            OFFSETS_RETENTION_MINUTES, OFFSETS_RETENTION_CHECK_INTERVAL_MS, OFFSET_METADATA_MAX_BYTES,
            COORDINATOR_THREADS, REBALANCE_PROTOCOLS, CONSUMER_SESSION_TIMEOUT_MS, CONSUMER_MIN_SESSION_TIMEOUT_MS,
            CONSUMER_MAX_SESSION_TIMEOUT_MS, CONSUMER_HEARTBEAT_INTERVAL_MS, CONSUMER_MIN_HEARTBEAT_INTERVAL_MS,
            CONSUMER_MAX_HEARTBEAT_INTERVAL_MS, CONSUMER_MAX_SIZE, CONSUMER_ASSIGNORS);

    /** A comma-separated list of distinct names out of {@code known}, case-insensitive, in order. */
    private static List<String> names(String key, String text, Set<String> known) {
        Set<String> out = new LinkedHashSet<>();
        for (String part : text.split(",")) {
            String name = part.trim().toLowerCase(Locale.ROOT);
            if (name.isEmpty()) {
                continue;
            }
            if (!known.contains(name)) {
                throw new ConfigException(key, "'" + part.trim() + "' is not one of " + new java.util.TreeSet<>(known));
            }
            out.add(name);
        }
        if (out.isEmpty()) {
            throw new ConfigException(key, "must name at least one of " + new java.util.TreeSet<>(known));
        }
        return new ArrayList<>(out);
    }

    private final int initialRebalanceDelayMs;
    private final int minSessionTimeoutMs;
    private final int maxSessionTimeoutMs;
    private final int maxSize;
    private final int offsetsTopicPartitions;
    private final long offsetsRetentionMs;
    private final long offsetsRetentionCheckIntervalMs;
    private final int offsetMetadataMaxBytes;
    private final int coordinatorThreads;
    private final boolean consumerProtocol;
    private final ConsumerGroupConfig consumerGroupConfig;

    private GroupCoordinatorConfig(ConfigValues v) {
        initialRebalanceDelayMs = v.get(INITIAL_REBALANCE_DELAY_MS);
        minSessionTimeoutMs = v.get(MIN_SESSION_TIMEOUT_MS);
        maxSessionTimeoutMs = v.get(MAX_SESSION_TIMEOUT_MS);
        maxSize = v.get(MAX_SIZE);
        offsetsTopicPartitions = v.get(OFFSETS_TOPIC_PARTITIONS);
        offsetsRetentionMs = v.get(OFFSETS_RETENTION_MINUTES) * 60_000L;
        offsetsRetentionCheckIntervalMs = v.get(OFFSETS_RETENTION_CHECK_INTERVAL_MS);
        offsetMetadataMaxBytes = v.get(OFFSET_METADATA_MAX_BYTES);
        coordinatorThreads = v.get(COORDINATOR_THREADS);
        if (minSessionTimeoutMs > maxSessionTimeoutMs) {
            throw new ConfigException(MIN_SESSION_TIMEOUT_MS_CONFIG, minSessionTimeoutMs + " exceeds "
                    + MAX_SESSION_TIMEOUT_MS_CONFIG + "=" + maxSessionTimeoutMs);
        }
        List<String> protocols = v.get(REBALANCE_PROTOCOLS);
        if (!protocols.contains(CLASSIC_PROTOCOL)) {
            throw new ConfigException(REBALANCE_PROTOCOLS_CONFIG, "must include " + CLASSIC_PROTOCOL);
        }
        consumerProtocol = protocols.contains(CONSUMER_PROTOCOL);
        int session = v.get(CONSUMER_SESSION_TIMEOUT_MS);
        int heartbeat = v.get(CONSUMER_HEARTBEAT_INTERVAL_MS);
        within(CONSUMER_SESSION_TIMEOUT_MS_CONFIG, session, v.get(CONSUMER_MIN_SESSION_TIMEOUT_MS),
                CONSUMER_MIN_SESSION_TIMEOUT_MS_CONFIG, v.get(CONSUMER_MAX_SESSION_TIMEOUT_MS),
                CONSUMER_MAX_SESSION_TIMEOUT_MS_CONFIG);
        within(CONSUMER_HEARTBEAT_INTERVAL_MS_CONFIG, heartbeat, v.get(CONSUMER_MIN_HEARTBEAT_INTERVAL_MS),
                CONSUMER_MIN_HEARTBEAT_INTERVAL_MS_CONFIG, v.get(CONSUMER_MAX_HEARTBEAT_INTERVAL_MS),
                CONSUMER_MAX_HEARTBEAT_INTERVAL_MS_CONFIG);
        if (heartbeat >= session) {
            throw new ConfigException(CONSUMER_HEARTBEAT_INTERVAL_MS_CONFIG, heartbeat + " must be less than "
                    + CONSUMER_SESSION_TIMEOUT_MS_CONFIG + "=" + session);
        }
        consumerGroupConfig = new ConsumerGroupConfig(session, heartbeat, v.get(CONSUMER_MAX_SIZE),
                v.get(CONSUMER_ASSIGNORS).stream().map(ASSIGNORS::get).toList());
    }

    private static void within(String key, int value, int min, String minKey, int max, String maxKey) {
        if (min > max) {
            throw new ConfigException(minKey, min + " exceeds " + maxKey + "=" + max);
        }
        if (value < min || value > max) {
            throw new ConfigException(key, value + " is outside [" + minKey + "=" + min + ", " + maxKey + "=" + max
                    + "]");
        }
    }

    /**
     * Parses the keys of {@link #DEFINITION} from {@code props} (text or typed values); missing keys default.
     *
     * @throws ConfigException naming the first bad key
     */
    public static GroupCoordinatorConfig fromProperties(Map<?, ?> props) {
        return new GroupCoordinatorConfig(DEFINITION.parse(props));
    }

    /** Kafka's defaults for every key. */
    public static GroupCoordinatorConfig defaults() {
        return fromProperties(Map.of());
    }

    public int initialRebalanceDelayMs() {
        return initialRebalanceDelayMs;
    }

    public int minSessionTimeoutMs() {
        return minSessionTimeoutMs;
    }

    public int maxSessionTimeoutMs() {
        return maxSessionTimeoutMs;
    }

    public int maxSize() {
        return maxSize;
    }

    public int offsetsTopicPartitions() {
        return offsetsTopicPartitions;
    }

    public long offsetsRetentionMs() {
        return offsetsRetentionMs;
    }

    public long offsetsRetentionCheckIntervalMs() {
        return offsetsRetentionCheckIntervalMs;
    }

    public int offsetMetadataMaxBytes() {
        return offsetMetadataMaxBytes;
    }

    /** Whether the KIP-848 consumer protocol is served (group.coordinator.rebalance.protocols). */
    public boolean consumerProtocolEnabled() {
        return consumerProtocol;
    }

    /** The settings of consumer groups (group.consumer.*). */
    public ConsumerGroupConfig consumerGroupConfig() {
        return consumerGroupConfig;
    }

    /** Threads running the coordinator's shards; a shard always runs on the same one. */
    public int coordinatorThreads() {
        return coordinatorThreads;
    }
}
