package io.aloft.broker.config;

import io.aloft.broker.share.ShareGroupConfig;
import io.aloft.broker.share.ShareGroupSettings;
import io.aloft.config.ConfigKey;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.kafka.common.errors.InvalidConfigurationException;

/**
 * The group configs (Kafka's GROUP config resource, KIP-848 / KIP-932) Aloft serves: Kafka 4.3's
 * share group keys whose meaning the share group code honours ({@link ShareGroupSettings}). Kafka's
 * {@code consumer.*}, {@code streams.*} and {@code share.assignment.interval.ms} group keys are not
 * served (nothing here would honour them), so setting one is refused as an unknown key, as Kafka
 * refuses any other name.
 *
 * <p>Each key has Kafka's name, type, static lower bound and error messages (checked against Kafka
 * 4.3.1); an integer key is also bounded by the broker's {@code group.share.min.*} and
 * {@code group.share.max.*} ({@link ShareGroupConfig}), and its default is the broker's
 * {@code group.share.*} value. Immutable.
 */
public final class GroupConfigKeys {
    public static final String SHARE_RECORD_LOCK_DURATION_MS = "share.record.lock.duration.ms";
    public static final String SHARE_DELIVERY_COUNT_LIMIT = "share.delivery.count.limit";
    public static final String SHARE_PARTITION_MAX_RECORD_LOCKS = "share.partition.max.record.locks";
    public static final String SHARE_SESSION_TIMEOUT_MS = "share.session.timeout.ms";
    public static final String SHARE_HEARTBEAT_INTERVAL_MS = "share.heartbeat.interval.ms";
    public static final String SHARE_AUTO_OFFSET_RESET = "share.auto.offset.reset";
    public static final String SHARE_ISOLATION_LEVEL = "share.isolation.level";
    public static final String SHARE_RENEW_ACKNOWLEDGE_ENABLE = "share.renew.acknowledge.enable";

    private static final String BY_DURATION = "by_duration:";

    /**
     * One served key.
     *
     * @param declaration its type and documentation, as DescribeConfigs shows them
     * @param atLeast Kafka's static lower bound of an integer key (its ConfigDef validator)
     * @param brokerKey the broker default's key (whose {@code min.}/{@code max.} forms bound it),
     *     for an integer key; null otherwise
     */
    record Key(ConfigKey<?> declaration, int atLeast, ConfigKey<Integer> brokerKey, ConfigKey<Integer> brokerMin,
            ConfigKey<Integer> brokerMax) {
        String name() {
            return declaration.name();
        }
    }

    private static Key intKey(String name, int atLeast, ConfigKey<Integer> broker, ConfigKey<Integer> min,
            ConfigKey<Integer> max, String doc) {
        return new Key(ConfigKey.intKey(name).doc(doc).build(), atLeast, broker, min, max);
    }

    private static final Map<String, Key> KEYS = byName(List.of(
            intKey(SHARE_RECORD_LOCK_DURATION_MS, 1000, ShareGroupConfig.RECORD_LOCK_DURATION_MS,
                    ShareGroupConfig.MIN_RECORD_LOCK_DURATION_MS, ShareGroupConfig.MAX_RECORD_LOCK_DURATION_MS,
                    "How long (ms) a member of this share group holds records it acquired before they become "
                            + "available again."),
            intKey(SHARE_DELIVERY_COUNT_LIMIT, 2, ShareGroupConfig.DELIVERY_COUNT_LIMIT,
                    ShareGroupConfig.MIN_DELIVERY_COUNT_LIMIT, ShareGroupConfig.MAX_DELIVERY_COUNT_LIMIT,
                    "How many times this share group is given a record before the record is archived."),
            intKey(SHARE_PARTITION_MAX_RECORD_LOCKS, 100, ShareGroupConfig.PARTITION_MAX_RECORD_LOCKS,
                    ShareGroupConfig.MIN_PARTITION_MAX_RECORD_LOCKS, ShareGroupConfig.MAX_PARTITION_MAX_RECORD_LOCKS,
                    "How many records of one share partition may be in flight for this share group at once."),
            intKey(SHARE_SESSION_TIMEOUT_MS, 1, ShareGroupConfig.SESSION_TIMEOUT_MS,
                    ShareGroupConfig.MIN_SESSION_TIMEOUT_MS, ShareGroupConfig.MAX_SESSION_TIMEOUT_MS,
                    "A member of this share group without a heartbeat for this long (ms) is removed."),
            intKey(SHARE_HEARTBEAT_INTERVAL_MS, 1, ShareGroupConfig.HEARTBEAT_INTERVAL_MS,
                    ShareGroupConfig.MIN_HEARTBEAT_INTERVAL_MS, ShareGroupConfig.MAX_HEARTBEAT_INTERVAL_MS,
                    "The heartbeat interval (ms) the members of this share group are told."),
            new Key(ConfigKey.stringKey(SHARE_AUTO_OFFSET_RESET).doc("Where a share partition of this group "
                    + "without state starts: latest (the default), earliest, or by_duration:<ISO-8601 duration> "
                    + "(the first record at or after now minus the duration; not negative).").build(), 0, null,
                    null, null),
            new Key(ConfigKey.stringKey(SHARE_ISOLATION_LEVEL).doc("read_uncommitted (the default) delivers every "
                    + "record; read_committed only records of committed transactions (and non-transactional "
                    + "ones).").build(), 0, null, null, null),
            new Key(ConfigKey.booleanKey(SHARE_RENEW_ACKNOWLEDGE_ENABLE).doc("Whether members of this share group "
                    + "may renew the lock of records they hold (acknowledge type RENEW).").build(), 0, null, null,
                    null)));

    private static Map<String, Key> byName(List<Key> keys) {
        Map<String, Key> m = new TreeMap<>();
        keys.forEach(k -> m.put(k.name(), k));
        return java.util.Collections.unmodifiableMap(m);
    }

    private final ShareGroupConfig broker;

    public GroupConfigKeys(ShareGroupConfig broker) {
        this.broker = broker;
    }

    /** The served key names, in name order. */
    public static java.util.Set<String> names() {
        return KEYS.keySet();
    }

    /** The declaration of a served key (type and documentation), or null. */
    public static ConfigKey<?> declaration(String name) {
        Key k = KEYS.get(name);
        return k == null ? null : k.declaration();
    }

    /** Every served key with the value a group that sets none has: the broker's, in name order. */
    public Map<String, String> defaults() {
        Map<String, String> out = new TreeMap<>();
        for (Key k : KEYS.values()) {
            out.put(k.name(), defaultValue(k));
        }
        return out;
    }

    private String defaultValue(Key k) {
        if (k.brokerKey() != null) {
            return Integer.toString(broker.get(k.brokerKey()));
        }
        return switch (k.name()) {
            case SHARE_AUTO_OFFSET_RESET -> "latest";
            case SHARE_ISOLATION_LEVEL -> "read_uncommitted";
            default -> "true"; // share.renew.acknowledge.enable
        };
    }

    /**
     * Checks {@code value} for {@code name} as Kafka does, failing with Kafka's INVALID_CONFIG message
     * (an unknown name, a value that does not parse or is below the key's static bound, an integer
     * outside the broker's min/max).
     */
    public void validate(String name, String value) {
        Key k = KEYS.get(name);
        if (k == null) {
            throw new InvalidConfigurationException("Unknown group config name: " + name);
        }
        String text = value.trim();
        if (k.brokerKey() != null) {
            int v = parseInt(name, value, text);
            if (v < k.atLeast()) {
                throw invalid(name, value, "Value must be at least " + k.atLeast());
            }
            if (v < broker.get(k.brokerMin())) {
                throw new InvalidConfigurationException(name + " must be greater than or equal to "
                        + k.brokerMin().name());
            }
            if (v > broker.get(k.brokerMax())) {
                throw new InvalidConfigurationException(name + " must be less than or equal to "
                        + k.brokerMax().name());
            }
            return;
        }
        switch (name) {
            case SHARE_AUTO_OFFSET_RESET -> {
                if (autoOffsetReset(text) == null) {
                    throw invalid(name, value, "Invalid value `" + value + "` for configuration " + name
                            + ". The value must be either 'earliest', 'latest' or of the format "
                            + "'by_duration:<PnDTnHnMn.nS>'.");
                }
            }
            case SHARE_ISOLATION_LEVEL -> {
                if (!text.equals("read_committed") && !text.equals("read_uncommitted")) {
                    throw invalid(name, value, "String must be one of: read_committed, read_uncommitted");
                }
            }
            default -> {
                if (!text.equalsIgnoreCase("true") && !text.equalsIgnoreCase("false")) {
                    throw invalid(name, value, "Expected value to be either true or false");
                }
            }
        }
    }

    private static int parseInt(String name, String value, String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw invalid(name, value, "Not a number of type INT");
        }
    }

    private static InvalidConfigurationException invalid(String name, String value, String why) {
        return new InvalidConfigurationException("Invalid value " + value + " for configuration " + name + ": " + why);
    }

    /** {@code latest}, {@code earliest} or {@code by_duration:<ISO-8601 duration, not negative>}; null if neither. */
    static ShareGroupSettings.AutoOffsetReset autoOffsetReset(String text) {
        if (text.equals("latest")) {
            return ShareGroupSettings.AutoOffsetReset.LATEST;
        }
        if (text.equals("earliest")) {
            return ShareGroupSettings.AutoOffsetReset.EARLIEST;
        }
        if (!text.startsWith(BY_DURATION)) {
            return null;
        }
        try {
            Duration d = Duration.parse(text.substring(BY_DURATION.length()));
            return d.isNegative() ? null
                    : new ShareGroupSettings.AutoOffsetReset(ShareGroupSettings.AutoOffsetReset.Kind.BY_DURATION,
                            d.toMillis());
        } catch (DateTimeParseException | ArithmeticException e) {
            return null;
        }
    }

    /**
     * The settings of a group with {@code overrides} (stored values, checked when they were set) over
     * the broker's defaults. A stored integer outside the broker's bounds now (they changed since) is
     * held to them, and a value that no longer parses is ignored, so a group never runs outside what
     * this broker allows.
     */
    public ShareGroupSettings settings(Map<String, String> overrides) {
        ShareGroupSettings d = broker.brokerDefaults();
        Function<String, String> text = name -> {
            String v = overrides.get(name);
            return v == null ? null : v.trim();
        };
        ShareGroupSettings.AutoOffsetReset reset = text.apply(SHARE_AUTO_OFFSET_RESET) == null ? d.autoOffsetReset()
                : autoOffsetReset(text.apply(SHARE_AUTO_OFFSET_RESET));
        String isolation = text.apply(SHARE_ISOLATION_LEVEL);
        String renew = text.apply(SHARE_RENEW_ACKNOWLEDGE_ENABLE);
        return new ShareGroupSettings(
                intValue(overrides, SHARE_RECORD_LOCK_DURATION_MS),
                intValue(overrides, SHARE_DELIVERY_COUNT_LIMIT),
                intValue(overrides, SHARE_PARTITION_MAX_RECORD_LOCKS),
                reset == null ? d.autoOffsetReset() : reset,
                isolation == null ? d.readCommitted() : isolation.equals("read_committed"),
                intValue(overrides, SHARE_SESSION_TIMEOUT_MS),
                intValue(overrides, SHARE_HEARTBEAT_INTERVAL_MS),
                renew == null ? d.renewAcknowledgeEnable() : !renew.equalsIgnoreCase("false"));
    }

    private int intValue(Map<String, String> overrides, String name) {
        Key k = KEYS.get(name);
        int fallback = broker.get(k.brokerKey());
        String v = overrides.get(name);
        if (v == null) {
            return fallback;
        }
        try {
            int parsed = Integer.parseInt(v.trim());
            return Math.max(broker.get(k.brokerMin()), Math.min(broker.get(k.brokerMax()), parsed));
        } catch (NumberFormatException e) {
            return fallback;
        }
    }
}
