package io.aloft.broker.share;

import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigException;
import io.aloft.config.ConfigKey;
import io.aloft.config.ConfigValues;
import io.aloft.config.Validator;
import java.util.Map;

/**
 * Broker settings of share groups (KIP-932), under Kafka 4.3's key names and with its defaults,
 * declared once in {@link #DEFINITION}. A group's own configs ({@code share.record.lock.duration.ms}
 * and the others of {@link ShareGroupSettings}) override the {@code group.share.*} defaults within
 * the min/max bounds here. A bad value fails with a {@link ConfigException} whose message starts
 * with the key. Immutable.
 */
public final class ShareGroupConfig {

    /**
     * The finalized level of Kafka's {@code share.version} feature that ApiVersions reports. Like
     * {@code aloft.transaction.version}, a static broker setting (Kafka changes it with
     * kafka-features.sh, whose UpdateFeatures Aloft does not serve), the same on every broker.
     */
    public static final String SHARE_VERSION_CONFIG = "aloft.share.version";
    public static final ConfigKey<Integer> SHARE_VERSION = ConfigKey.intKey(SHARE_VERSION_CONFIG)
            .defaultValue(1).validator(Validator.between(0, 1))
            .doc("The finalized level of Kafka's share.version feature (KIP-932 share groups) that ApiVersions "
                    + "reports: 1 serves share groups (ShareGroupHeartbeat, ShareFetch, ShareAcknowledge and their "
                    + "admin APIs); 0 neither serves nor advertises them, as a Kafka cluster with share.version=0. "
                    + "Must be the same on every broker; a change takes a rolling restart.")
            .build();

    public static final String STATE_TOPIC_PARTITIONS_CONFIG = "share.coordinator.state.topic.num.partitions";
    public static final ConfigKey<Integer> STATE_TOPIC_PARTITIONS = ConfigKey.intKey(STATE_TOPIC_PARTITIONS_CONFIG)
            .defaultValue(50).validator(Validator.atLeast(1))
            .doc("Partitions of __share_group_state, the compacted topic holding every share partition's "
                    + "acknowledgement state. The state of (group, topic id, partition) lives in partition "
                    + "abs(\"group:topicId:partition\".hashCode()) % this, as in Kafka; changing it after share "
                    + "groups exist strands their state.")
            .build();

    public static final String RECORD_LOCK_DURATION_MS_CONFIG = "group.share.record.lock.duration.ms";
    public static final ConfigKey<Integer> RECORD_LOCK_DURATION_MS = ConfigKey.intKey(RECORD_LOCK_DURATION_MS_CONFIG)
            .defaultValue(30_000).validator(Validator.atLeast(1))
            .doc("How long a share consumer holds records it acquired before they become available to others "
                    + "again (the group's share.record.lock.duration.ms overrides it).")
            .build();
    public static final String MIN_RECORD_LOCK_DURATION_MS_CONFIG = "group.share.min.record.lock.duration.ms";
    public static final ConfigKey<Integer> MIN_RECORD_LOCK_DURATION_MS = ConfigKey
            .intKey(MIN_RECORD_LOCK_DURATION_MS_CONFIG).defaultValue(15_000).validator(Validator.atLeast(1))
            .doc("The smallest share.record.lock.duration.ms a group may set.")
            .build();
    public static final String MAX_RECORD_LOCK_DURATION_MS_CONFIG = "group.share.max.record.lock.duration.ms";
    public static final ConfigKey<Integer> MAX_RECORD_LOCK_DURATION_MS = ConfigKey
            .intKey(MAX_RECORD_LOCK_DURATION_MS_CONFIG).defaultValue(60_000).validator(Validator.atLeast(1))
            .doc("The largest share.record.lock.duration.ms a group may set.")
            .build();

    public static final String DELIVERY_COUNT_LIMIT_CONFIG = "group.share.delivery.count.limit";
    public static final ConfigKey<Integer> DELIVERY_COUNT_LIMIT = ConfigKey.intKey(DELIVERY_COUNT_LIMIT_CONFIG)
            .defaultValue(5).validator(Validator.atLeast(1))
            .doc("How many times a record is delivered before it is archived instead of delivered again (a "
                    + "poison record). The group's share.delivery.count.limit overrides it.")
            .build();
    public static final String MIN_DELIVERY_COUNT_LIMIT_CONFIG = "group.share.min.delivery.count.limit";
    public static final ConfigKey<Integer> MIN_DELIVERY_COUNT_LIMIT = ConfigKey.intKey(MIN_DELIVERY_COUNT_LIMIT_CONFIG)
            .defaultValue(2).validator(Validator.atLeast(1))
            .doc("The smallest share.delivery.count.limit a group may set.")
            .build();
    public static final String MAX_DELIVERY_COUNT_LIMIT_CONFIG = "group.share.max.delivery.count.limit";
    public static final ConfigKey<Integer> MAX_DELIVERY_COUNT_LIMIT = ConfigKey.intKey(MAX_DELIVERY_COUNT_LIMIT_CONFIG)
            .defaultValue(10).validator(Validator.atLeast(1))
            .doc("The largest share.delivery.count.limit a group may set.")
            .build();

    public static final String PARTITION_MAX_RECORD_LOCKS_CONFIG = "group.share.partition.max.record.locks";
    public static final ConfigKey<Integer> PARTITION_MAX_RECORD_LOCKS = ConfigKey
            .intKey(PARTITION_MAX_RECORD_LOCKS_CONFIG).defaultValue(2000).validator(Validator.atLeast(1))
            .doc("How many records of one share partition may be in flight (acquired, or delivered and not yet "
                    + "acknowledged past the start offset) at once; fetches acquire nothing more until some are "
                    + "acknowledged. The group's share.partition.max.record.locks overrides it.")
            .build();
    public static final String MIN_PARTITION_MAX_RECORD_LOCKS_CONFIG = "group.share.min.partition.max.record.locks";
    public static final ConfigKey<Integer> MIN_PARTITION_MAX_RECORD_LOCKS = ConfigKey
            .intKey(MIN_PARTITION_MAX_RECORD_LOCKS_CONFIG).defaultValue(100).validator(Validator.atLeast(1))
            .doc("The smallest share.partition.max.record.locks a group may set.")
            .build();
    public static final String MAX_PARTITION_MAX_RECORD_LOCKS_CONFIG = "group.share.max.partition.max.record.locks";
    public static final ConfigKey<Integer> MAX_PARTITION_MAX_RECORD_LOCKS = ConfigKey
            .intKey(MAX_PARTITION_MAX_RECORD_LOCKS_CONFIG).defaultValue(4000).validator(Validator.atLeast(1))
            .doc("The largest share.partition.max.record.locks a group may set.")
            .build();

    public static final String MAX_SIZE_CONFIG = "group.share.max.size";
    public static final ConfigKey<Integer> MAX_SIZE = ConfigKey.intKey(MAX_SIZE_CONFIG)
            .defaultValue(200).validator(Validator.atLeast(1))
            .doc("The most members a share group may have; one more is refused with GROUP_MAX_SIZE_REACHED.")
            .build();

    public static final String SESSION_TIMEOUT_MS_CONFIG = "group.share.session.timeout.ms";
    public static final ConfigKey<Integer> SESSION_TIMEOUT_MS = ConfigKey.intKey(SESSION_TIMEOUT_MS_CONFIG)
            .defaultValue(45_000).validator(Validator.atLeast(1))
            .doc("A share group member that sends no heartbeat for this long is removed and the records it "
                    + "holds are released (the group's share.session.timeout.ms overrides it).")
            .build();
    public static final String MIN_SESSION_TIMEOUT_MS_CONFIG = "group.share.min.session.timeout.ms";
    public static final ConfigKey<Integer> MIN_SESSION_TIMEOUT_MS = ConfigKey.intKey(MIN_SESSION_TIMEOUT_MS_CONFIG)
            .defaultValue(45_000).validator(Validator.atLeast(1))
            .doc("The smallest share.session.timeout.ms a group may set.")
            .build();
    public static final String MAX_SESSION_TIMEOUT_MS_CONFIG = "group.share.max.session.timeout.ms";
    public static final ConfigKey<Integer> MAX_SESSION_TIMEOUT_MS = ConfigKey.intKey(MAX_SESSION_TIMEOUT_MS_CONFIG)
            .defaultValue(60_000).validator(Validator.atLeast(1))
            .doc("The largest share.session.timeout.ms a group may set.")
            .build();

    public static final String HEARTBEAT_INTERVAL_MS_CONFIG = "group.share.heartbeat.interval.ms";
    public static final ConfigKey<Integer> HEARTBEAT_INTERVAL_MS = ConfigKey.intKey(HEARTBEAT_INTERVAL_MS_CONFIG)
            .defaultValue(5_000).validator(Validator.atLeast(1))
            .doc("The heartbeat interval share group members are told (the group's share.heartbeat.interval.ms "
                    + "overrides it).")
            .build();
    public static final String MIN_HEARTBEAT_INTERVAL_MS_CONFIG = "group.share.min.heartbeat.interval.ms";
    public static final ConfigKey<Integer> MIN_HEARTBEAT_INTERVAL_MS = ConfigKey
            .intKey(MIN_HEARTBEAT_INTERVAL_MS_CONFIG).defaultValue(5_000).validator(Validator.atLeast(1))
            .doc("The smallest share.heartbeat.interval.ms a group may set.")
            .build();
    public static final String MAX_HEARTBEAT_INTERVAL_MS_CONFIG = "group.share.max.heartbeat.interval.ms";
    public static final ConfigKey<Integer> MAX_HEARTBEAT_INTERVAL_MS = ConfigKey
            .intKey(MAX_HEARTBEAT_INTERVAL_MS_CONFIG).defaultValue(15_000).validator(Validator.atLeast(1))
            .doc("The largest share.heartbeat.interval.ms a group may set.")
            .build();

    public static final String MAX_SHARE_SESSIONS_CONFIG = "group.share.max.share.sessions";
    public static final ConfigKey<Integer> MAX_SHARE_SESSIONS = ConfigKey.intKey(MAX_SHARE_SESSIONS_CONFIG)
            .defaultValue(2000).validator(Validator.atLeast(1))
            .doc("The most share sessions (one per share consumer and broker) a broker keeps; a new one beyond "
                    + "is refused with SHARE_SESSION_LIMIT_REACHED.")
            .build();

    /** Every key of share groups. */
    public static final ConfigDefinition DEFINITION = ConfigDefinition.of("share-groups", SHARE_VERSION,
            STATE_TOPIC_PARTITIONS, RECORD_LOCK_DURATION_MS, MIN_RECORD_LOCK_DURATION_MS, MAX_RECORD_LOCK_DURATION_MS,
            DELIVERY_COUNT_LIMIT, MIN_DELIVERY_COUNT_LIMIT, MAX_DELIVERY_COUNT_LIMIT, PARTITION_MAX_RECORD_LOCKS,
            MIN_PARTITION_MAX_RECORD_LOCKS, MAX_PARTITION_MAX_RECORD_LOCKS, MAX_SIZE, SESSION_TIMEOUT_MS,
            MIN_SESSION_TIMEOUT_MS, MAX_SESSION_TIMEOUT_MS, HEARTBEAT_INTERVAL_MS, MIN_HEARTBEAT_INTERVAL_MS,
            MAX_HEARTBEAT_INTERVAL_MS, MAX_SHARE_SESSIONS);

    private final ConfigValues values;

    private ShareGroupConfig(ConfigValues v) {
        this.values = v;
        within(v, RECORD_LOCK_DURATION_MS, MIN_RECORD_LOCK_DURATION_MS, MAX_RECORD_LOCK_DURATION_MS);
        within(v, DELIVERY_COUNT_LIMIT, MIN_DELIVERY_COUNT_LIMIT, MAX_DELIVERY_COUNT_LIMIT);
        within(v, PARTITION_MAX_RECORD_LOCKS, MIN_PARTITION_MAX_RECORD_LOCKS, MAX_PARTITION_MAX_RECORD_LOCKS);
        within(v, SESSION_TIMEOUT_MS, MIN_SESSION_TIMEOUT_MS, MAX_SESSION_TIMEOUT_MS);
        within(v, HEARTBEAT_INTERVAL_MS, MIN_HEARTBEAT_INTERVAL_MS, MAX_HEARTBEAT_INTERVAL_MS);
        if (v.get(HEARTBEAT_INTERVAL_MS) >= v.get(SESSION_TIMEOUT_MS)) {
            throw new ConfigException(HEARTBEAT_INTERVAL_MS_CONFIG, "must be below " + SESSION_TIMEOUT_MS_CONFIG);
        }
    }

    private static void within(ConfigValues v, ConfigKey<Integer> key, ConfigKey<Integer> min, ConfigKey<Integer> max) {
        int value = v.get(key);
        if (v.get(min) > v.get(max)) {
            throw new ConfigException(min.name(), v.get(min) + " must not exceed " + max.name() + " ("
                    + v.get(max) + ")");
        }
        if (value < v.get(min) || value > v.get(max)) {
            throw new ConfigException(key.name(), "must be between " + min.name() + " (" + v.get(min) + ") and "
                    + max.name() + " (" + v.get(max) + "), got " + value);
        }
    }

    /** Parses the keys of {@link #DEFINITION} from {@code props}; missing keys default. */
    public static ShareGroupConfig fromProperties(Map<?, ?> props) {
        return new ShareGroupConfig(DEFINITION.parse(props));
    }

    public static ShareGroupConfig defaults() {
        return fromProperties(Map.of());
    }

    public boolean enabled() {
        return shareVersion() > 0;
    }

    /** The finalized share.version (0 or 1). */
    public short shareVersion() {
        return values.get(SHARE_VERSION).shortValue();
    }

    public int stateTopicPartitions() {
        return values.get(STATE_TOPIC_PARTITIONS);
    }

    public int get(ConfigKey<Integer> key) {
        return values.get(key);
    }

    /** The settings of a group that sets none of its own. */
    public ShareGroupSettings brokerDefaults() {
        return new ShareGroupSettings(get(RECORD_LOCK_DURATION_MS), get(DELIVERY_COUNT_LIMIT),
                get(PARTITION_MAX_RECORD_LOCKS), ShareGroupSettings.AutoOffsetReset.LATEST, false,
                get(SESSION_TIMEOUT_MS), get(HEARTBEAT_INTERVAL_MS), true);
    }
}
