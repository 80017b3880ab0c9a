package io.aloft.broker.group;

import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigException;
import io.aloft.config.ConfigKey;
import io.aloft.config.ConfigValues;
import io.aloft.config.Validator;
import java.util.Map;

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

    /** Every key the group coordinator reads. */
    public static final ConfigDefinition DEFINITION = ConfigDefinition.of("groups", INITIAL_REBALANCE_DELAY_MS,
            MIN_SESSION_TIMEOUT_MS, MAX_SESSION_TIMEOUT_MS, MAX_SIZE, OFFSETS_TOPIC_PARTITIONS,
            OFFSETS_RETENTION_MINUTES, OFFSETS_RETENTION_CHECK_INTERVAL_MS, OFFSET_METADATA_MAX_BYTES,
            COORDINATOR_THREADS);

    private final int initialRebalanceDelayMs;
    private final int minSessionTimeoutMs;
    private final int maxSessionTimeoutMs;
    private final int maxSize;
    private final int offsetsTopicPartitions;
    private final long offsetsRetentionMs;
    private final long offsetsRetentionCheckIntervalMs;
    private final int offsetMetadataMaxBytes;
    private final int coordinatorThreads;

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

    /** Threads running the coordinator's shards; a shard always runs on the same one. */
    public int coordinatorThreads() {
        return coordinatorThreads;
    }
}
