package io.aloft.broker.group;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * Settings of the classic group coordinator, under Kafka's key names and with Kafka's defaults.
 * Values are parsed once by {@link #CONFIG_DEF} into typed fields; a bad value fails with a
 * {@link ConfigException} whose message names the key. Keys this class does not know are
 * ignored, since the broker's properties file holds many more. Immutable.
 */
public final class GroupCoordinatorConfig {

    public static final String INITIAL_REBALANCE_DELAY_MS_CONFIG = "group.initial.rebalance.delay.ms";
    public static final String INITIAL_REBALANCE_DELAY_MS_DOC = "How long the coordinator waits for more members "
            + "to join a new (empty) group before the first rebalance, so a group starting many consumers at "
            + "once does not rebalance once per consumer. Each member joining during the wait extends it by "
            + "this much, up to the rebalance timeout.";
    public static final int INITIAL_REBALANCE_DELAY_MS_DEFAULT = 3000;

    public static final String MIN_SESSION_TIMEOUT_MS_CONFIG = "group.min.session.timeout.ms";
    public static final String MIN_SESSION_TIMEOUT_MS_DOC = "The smallest session timeout a member may ask for; "
            + "JoinGroup with a smaller one fails with INVALID_SESSION_TIMEOUT.";
    public static final int MIN_SESSION_TIMEOUT_MS_DEFAULT = 6000;

    public static final String MAX_SESSION_TIMEOUT_MS_CONFIG = "group.max.session.timeout.ms";
    public static final String MAX_SESSION_TIMEOUT_MS_DOC = "The largest session timeout a member may ask for; "
            + "JoinGroup with a larger one fails with INVALID_SESSION_TIMEOUT.";
    public static final int MAX_SESSION_TIMEOUT_MS_DEFAULT = 1_800_000;

    public static final String MAX_SIZE_CONFIG = "group.max.size";
    public static final String MAX_SIZE_DOC = "The most members one group may have; a further member's JoinGroup "
            + "fails with GROUP_MAX_SIZE_REACHED.";
    public static final int MAX_SIZE_DEFAULT = Integer.MAX_VALUE;

    public static final String OFFSETS_TOPIC_PARTITIONS_CONFIG = "offsets.topic.num.partitions";
    public static final String OFFSETS_TOPIC_PARTITIONS_DOC = "Partitions of __consumer_offsets. A group lives in "
            + "partition abs(groupId.hashCode()) % this, as in Kafka; changing it after groups exist strands them.";
    public static final int OFFSETS_TOPIC_PARTITIONS_DEFAULT = 50;

    public static final String OFFSETS_RETENTION_MINUTES_CONFIG = "offsets.retention.minutes";
    public static final String OFFSETS_RETENTION_MINUTES_DOC = "Committed offsets of a group that has been empty "
            + "this long are deleted (KIP-211).";
    public static final int OFFSETS_RETENTION_MINUTES_DEFAULT = 10_080;

    public static final String OFFSETS_RETENTION_CHECK_INTERVAL_MS_CONFIG = "offsets.retention.check.interval.ms";
    public static final String OFFSETS_RETENTION_CHECK_INTERVAL_MS_DOC = "How often expired offsets are looked for.";
    public static final long OFFSETS_RETENTION_CHECK_INTERVAL_MS_DEFAULT = 600_000L;

    public static final String OFFSET_METADATA_MAX_BYTES_CONFIG = "offset.metadata.max.bytes";
    public static final String OFFSET_METADATA_MAX_BYTES_DOC = "The longest metadata string an offset commit may "
            + "carry; a longer one fails that partition with OFFSET_METADATA_TOO_LARGE.";
    public static final int OFFSET_METADATA_MAX_BYTES_DEFAULT = 4096;

    /** Declares every key with its type, default, validator and documentation. */
    public static final ConfigDef CONFIG_DEF = new ConfigDef()
            .define(INITIAL_REBALANCE_DELAY_MS_CONFIG, Type.INT, INITIAL_REBALANCE_DELAY_MS_DEFAULT,
                    Range.atLeast(0), Importance.MEDIUM, INITIAL_REBALANCE_DELAY_MS_DOC)
            .define(MIN_SESSION_TIMEOUT_MS_CONFIG, Type.INT, MIN_SESSION_TIMEOUT_MS_DEFAULT,
                    Range.atLeast(0), Importance.MEDIUM, MIN_SESSION_TIMEOUT_MS_DOC)
            .define(MAX_SESSION_TIMEOUT_MS_CONFIG, Type.INT, MAX_SESSION_TIMEOUT_MS_DEFAULT,
                    Range.atLeast(1), Importance.MEDIUM, MAX_SESSION_TIMEOUT_MS_DOC)
            .define(MAX_SIZE_CONFIG, Type.INT, MAX_SIZE_DEFAULT,
                    Range.atLeast(1), Importance.MEDIUM, MAX_SIZE_DOC)
            .define(OFFSETS_TOPIC_PARTITIONS_CONFIG, Type.INT, OFFSETS_TOPIC_PARTITIONS_DEFAULT,
                    Range.atLeast(1), Importance.HIGH, OFFSETS_TOPIC_PARTITIONS_DOC)
            .define(OFFSETS_RETENTION_MINUTES_CONFIG, Type.INT, OFFSETS_RETENTION_MINUTES_DEFAULT,
                    Range.atLeast(1), Importance.HIGH, OFFSETS_RETENTION_MINUTES_DOC)
            .define(OFFSETS_RETENTION_CHECK_INTERVAL_MS_CONFIG, Type.LONG,
                    OFFSETS_RETENTION_CHECK_INTERVAL_MS_DEFAULT, Range.atLeast(1), Importance.LOW,
                    OFFSETS_RETENTION_CHECK_INTERVAL_MS_DOC)
            .define(OFFSET_METADATA_MAX_BYTES_CONFIG, Type.INT, OFFSET_METADATA_MAX_BYTES_DEFAULT,
                    Range.atLeast(0), Importance.LOW, OFFSET_METADATA_MAX_BYTES_DOC);

    private final int initialRebalanceDelayMs;
    private final int minSessionTimeoutMs;
    private final int maxSessionTimeoutMs;
    private final int maxSize;
    private final int offsetsTopicPartitions;
    private final long offsetsRetentionMs;
    private final long offsetsRetentionCheckIntervalMs;
    private final int offsetMetadataMaxBytes;

    private GroupCoordinatorConfig(Map<String, Object> v) {
        initialRebalanceDelayMs = (Integer) v.get(INITIAL_REBALANCE_DELAY_MS_CONFIG);
        minSessionTimeoutMs = (Integer) v.get(MIN_SESSION_TIMEOUT_MS_CONFIG);
        maxSessionTimeoutMs = (Integer) v.get(MAX_SESSION_TIMEOUT_MS_CONFIG);
        maxSize = (Integer) v.get(MAX_SIZE_CONFIG);
        offsetsTopicPartitions = (Integer) v.get(OFFSETS_TOPIC_PARTITIONS_CONFIG);
        offsetsRetentionMs = ((Integer) v.get(OFFSETS_RETENTION_MINUTES_CONFIG)) * 60_000L;
        offsetsRetentionCheckIntervalMs = (Long) v.get(OFFSETS_RETENTION_CHECK_INTERVAL_MS_CONFIG);
        offsetMetadataMaxBytes = (Integer) v.get(OFFSET_METADATA_MAX_BYTES_CONFIG);
        if (minSessionTimeoutMs > maxSessionTimeoutMs) {
            throw new ConfigException(MIN_SESSION_TIMEOUT_MS_CONFIG, minSessionTimeoutMs,
                    "must not exceed " + MAX_SESSION_TIMEOUT_MS_CONFIG + "=" + maxSessionTimeoutMs);
        }
    }

    /** Parses the keys of {@link #CONFIG_DEF} from {@code props} (string or typed values); missing keys default. */
    public static GroupCoordinatorConfig fromProperties(Map<?, ?> props) {
        Map<String, Object> known = new HashMap<>();
        for (String key : CONFIG_DEF.names()) {
            Object value = props.get(key);
            if (value != null) {
                known.put(key, value instanceof String s ? s.trim() : value);
            }
        }
        return new GroupCoordinatorConfig(CONFIG_DEF.parse(known));
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
}
