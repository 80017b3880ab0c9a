package io.aloft.broker.log;

import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigException;
import io.aloft.config.ConfigKey;
import io.aloft.config.ConfigType;
import io.aloft.config.ConfigValues;
import io.aloft.config.Validator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.record.TimestampType;

/**
 * The topic settings a {@link PartitionLog} obeys, under Kafka's names and with Kafka 4's
 * defaults. Two definitions: the topic configs ({@link #TOPIC_DEFINITION}: {@code retention.ms},
 * ...) and their broker-wide defaults under Kafka's broker names ({@link #BROKER_DEFINITION}:
 * {@code log.retention.ms}, ..., all changeable at run time), each broker key declared as a
 * synonym of its topic key so the two share type, default and validator. A {@code LogConfig} is
 * a topic's overrides laid over the broker's defaults; a bad value fails with a
 * {@link ConfigException} naming the key (CreateTopics/AlterConfigs answer INVALID_CONFIG). Keys
 * this class does not know are ignored: other parts of the broker own them.
 *
 * <p>Immutable.
 */
public final class LogConfig {
    public static final String MAX_MESSAGE_BYTES_CONFIG = "max.message.bytes";
    public static final ConfigKey<Integer> MAX_MESSAGE_BYTES = ConfigKey.intKey(MAX_MESSAGE_BYTES_CONFIG)
            .defaultValue(1048588).validator(Validator.atLeast(0))
            .doc("Largest record batch, in bytes, the log accepts.")
            .build();

    public static final String MESSAGE_TIMESTAMP_TYPE_CONFIG = "message.timestamp.type";
    public static final ConfigKey<String> MESSAGE_TIMESTAMP_TYPE = ConfigKey.stringKey(MESSAGE_TIMESTAMP_TYPE_CONFIG)
            .defaultValue("CreateTime").validator(Validator.oneOf("CreateTime", "LogAppendTime"))
            .doc("CreateTime keeps the producer's timestamps (checked against message.timestamp.before.max.ms "
                    + "and message.timestamp.after.max.ms); LogAppendTime replaces them with the broker's clock.")
            .build();

    public static final String MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG = "message.timestamp.before.max.ms";
    public static final ConfigKey<Long> MESSAGE_TIMESTAMP_BEFORE_MAX_MS = ConfigKey
            .longKey(MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG).defaultValue(Long.MAX_VALUE)
            .validator(Validator.atLeast(0L))
            .doc("With CreateTime, a record timestamp at most this far behind the broker's clock is accepted.")
            .build();

    public static final String MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG = "message.timestamp.after.max.ms";
    public static final ConfigKey<Long> MESSAGE_TIMESTAMP_AFTER_MAX_MS = ConfigKey
            .longKey(MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG).defaultValue(3_600_000L)
            .validator(Validator.atLeast(0L))
            .doc("With CreateTime, a record timestamp at most this far ahead of the broker's clock is accepted.")
            .build();

    public static final String RETENTION_MS_CONFIG = "retention.ms";
    public static final ConfigKey<Long> RETENTION_MS = ConfigKey.longKey(RETENTION_MS_CONFIG)
            .defaultValue(604_800_000L).validator(Validator.atLeast(-1L))
            .doc("Batches whose largest timestamp is older than this are deleted; -1 keeps them regardless of age.")
            .build();

    public static final String RETENTION_BYTES_CONFIG = "retention.bytes";
    public static final ConfigKey<Long> RETENTION_BYTES = ConfigKey.longKey(RETENTION_BYTES_CONFIG)
            .defaultValue(-1L).validator(Validator.atLeast(-1L))
            .doc("Oldest batches are deleted while the log would still hold at least this many bytes without "
                    + "them; -1 means no size limit.")
            .build();

    /** The least a time-index entry covers, whatever {@code index.interval.bytes} says (see {@link #indexEntryBytes}). */
    public static final int MIN_INDEX_ENTRY_BYTES = 1 << 20;
    public static final String INDEX_INTERVAL_BYTES_CONFIG = "index.interval.bytes";
    public static final ConfigKey<Integer> INDEX_INTERVAL_BYTES = ConfigKey.intKey(INDEX_INTERVAL_BYTES_CONFIG)
            .defaultValue(4096).validator(Validator.atLeast(0))
            .doc("Bytes of batches one time-index entry covers, at least 1 MiB in Aloft (Kafka's 4 KiB entries would "
                    + "cost 50 MB of memory per 10 GiB partition and make a moved partition's open read them all). "
                    + "Retention deletes whole entries (Kafka: whole segments), and a timestamp lookup reads at most "
                    + "one entry's batches (one object-storage block); about 20 bytes of memory per entry.")
            .build();

    public static final String CLEANUP_POLICY_CONFIG = "cleanup.policy";
    public static final ConfigKey<CleanupPolicy> CLEANUP_POLICY = ConfigKey.customKey(CLEANUP_POLICY_CONFIG,
                    ConfigType.LIST, CleanupPolicy::parse, CleanupPolicy::toString)
            .defaultValue(CleanupPolicy.DELETE_ONLY)
            .doc("delete: batches go by retention.ms and retention.bytes, and DeleteRecords may remove them. compact: "
                    + "the log cleaner keeps the latest record of each key (offsets never change; readers see gaps), "
                    + "records without a key are refused, and neither retention nor DeleteRecords applies. "
                    + "compact,delete: both. Can change on a live topic.")
            .build();

    public static final String DELETE_RETENTION_MS_CONFIG = "delete.retention.ms";
    public static final ConfigKey<Long> DELETE_RETENTION_MS = ConfigKey.longKey(DELETE_RETENTION_MS_CONFIG)
            .defaultValue(86_400_000L).validator(Validator.atLeast(0L))
            .doc("In a compacted topic, how long a tombstone (a record with a key and no value) stays readable after "
                    + "the cleaner first sees it, so consumers catching up learn of the delete; the next cleaning "
                    + "after that removes it.")
            .build();

    public static final String MIN_COMPACTION_LAG_MS_CONFIG = "min.compaction.lag.ms";
    public static final ConfigKey<Long> MIN_COMPACTION_LAG_MS = ConfigKey.longKey(MIN_COMPACTION_LAG_MS_CONFIG)
            .defaultValue(0L).validator(Validator.atLeast(0L))
            .doc("A record stays uncompacted at least this long after its timestamp (judged per time-index entry "
                    + "by its largest timestamp).")
            .build();

    public static final String MAX_COMPACTION_LAG_MS_CONFIG = "max.compaction.lag.ms";
    public static final ConfigKey<Long> MAX_COMPACTION_LAG_MS = ConfigKey.longKey(MAX_COMPACTION_LAG_MS_CONFIG)
            .defaultValue(Long.MAX_VALUE).validator(Validator.atLeast(1L))
            .doc("A record becomes eligible for compaction at most this long after its timestamp, whatever "
                    + "segment.bytes, segment.ms and min.cleanable.dirty.ratio say: a log holding older uncompacted "
                    + "records is cleaned next. At least min.compaction.lag.ms.")
            .build();

    public static final String MIN_CLEANABLE_DIRTY_RATIO_CONFIG = "min.cleanable.dirty.ratio";
    public static final ConfigKey<Double> MIN_CLEANABLE_DIRTY_RATIO = ConfigKey
            .doubleKey(MIN_CLEANABLE_DIRTY_RATIO_CONFIG).defaultValue(0.5).validator(Validator.between(0.0, 1.0))
            .doc("A compacted log is cleaned once the bytes not yet cleaned are at least this share of its cleanable "
                    + "bytes (both outside the active segment): lower cleans more often, rewriting more; higher "
                    + "leaves more superseded records.")
            .build();

    public static final String SEGMENT_BYTES_CONFIG = "segment.bytes";
    public static final ConfigKey<Integer> SEGMENT_BYTES = ConfigKey.intKey(SEGMENT_BYTES_CONFIG)
            .defaultValue(1_073_741_824).validator(Validator.atLeast(1_048_576))
            .doc("Aloft has no segment files; this bounds the active segment, the tail of the log the cleaner never "
                    + "compacts: at most this many bytes (per time-index entry), and (segment.ms) no record older "
                    + "than that. Compaction also writes its output as objects of about this size.")
            .build();

    public static final String SEGMENT_MS_CONFIG = "segment.ms";
    public static final ConfigKey<Long> SEGMENT_MS = ConfigKey.longKey(SEGMENT_MS_CONFIG)
            .defaultValue(604_800_000L).validator(Validator.atLeast(1L))
            .doc("With segment.bytes, bounds the active segment the cleaner never compacts: it starts at the first "
                    + "time-index entry holding a record younger than this (by record timestamp).")
            .build();

    /** The topic configs a partition log obeys (other Kafka topic configs are accepted and ignored). */
    public static final ConfigDefinition TOPIC_DEFINITION = ConfigDefinition.of("topic", MAX_MESSAGE_BYTES,
            MESSAGE_TIMESTAMP_TYPE, MESSAGE_TIMESTAMP_BEFORE_MAX_MS, MESSAGE_TIMESTAMP_AFTER_MAX_MS, RETENTION_MS,
            RETENTION_BYTES, INDEX_INTERVAL_BYTES, CLEANUP_POLICY, DELETE_RETENTION_MS, MIN_COMPACTION_LAG_MS,
            MAX_COMPACTION_LAG_MS, MIN_CLEANABLE_DIRTY_RATIO, SEGMENT_BYTES, SEGMENT_MS);

    // Broker keys: the broker-wide default of each topic config, under Kafka's broker names.

    public static final ConfigKey<Integer> MESSAGE_MAX_BYTES = brokerDefault("message.max.bytes", MAX_MESSAGE_BYTES);
    public static final ConfigKey<String> LOG_MESSAGE_TIMESTAMP_TYPE = brokerDefault("log.message.timestamp.type",
            MESSAGE_TIMESTAMP_TYPE);
    public static final ConfigKey<Long> LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS = brokerDefault(
            "log.message.timestamp.before.max.ms", MESSAGE_TIMESTAMP_BEFORE_MAX_MS);
    public static final ConfigKey<Long> LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS = brokerDefault(
            "log.message.timestamp.after.max.ms", MESSAGE_TIMESTAMP_AFTER_MAX_MS);
    public static final ConfigKey<Long> LOG_RETENTION_MS = ConfigKey.longKey("log.retention.ms")
            .validator(Validator.atLeast(-1L)).dynamic().defaultText("(`log.retention.minutes`)")
            .doc("Default of the topic config retention.ms. Unset, log.retention.minutes applies, and unset too, "
                    + "log.retention.hours, as in Kafka.")
            .build();
    public static final ConfigKey<Integer> LOG_RETENTION_MINUTES = ConfigKey.intKey("log.retention.minutes")
            .validator(Validator.atLeast(-1)).dynamic().defaultText("(`log.retention.hours`)")
            .doc("Default of the topic config retention.ms, in minutes, where log.retention.ms is unset; -1 keeps "
                    + "data regardless of age.")
            .build();
    public static final ConfigKey<Integer> LOG_RETENTION_HOURS = ConfigKey.intKey("log.retention.hours")
            .defaultValue(168).validator(Validator.atLeast(-1)).dynamic()
            .doc("Default of the topic config retention.ms, in hours, where log.retention.ms and "
                    + "log.retention.minutes are unset; -1 keeps data regardless of age.")
            .build();
    public static final ConfigKey<Long> LOG_RETENTION_BYTES = brokerDefault("log.retention.bytes", RETENTION_BYTES);
    public static final ConfigKey<Integer> LOG_INDEX_INTERVAL_BYTES = brokerDefault("log.index.interval.bytes",
            INDEX_INTERVAL_BYTES);
    public static final ConfigKey<CleanupPolicy> LOG_CLEANUP_POLICY = brokerDefault("log.cleanup.policy",
            CLEANUP_POLICY);
    public static final ConfigKey<Long> LOG_CLEANER_DELETE_RETENTION_MS = brokerDefault(
            "log.cleaner.delete.retention.ms", DELETE_RETENTION_MS);
    public static final ConfigKey<Long> LOG_CLEANER_MIN_COMPACTION_LAG_MS = brokerDefault(
            "log.cleaner.min.compaction.lag.ms", MIN_COMPACTION_LAG_MS);
    public static final ConfigKey<Long> LOG_CLEANER_MAX_COMPACTION_LAG_MS = brokerDefault(
            "log.cleaner.max.compaction.lag.ms", MAX_COMPACTION_LAG_MS);
    public static final ConfigKey<Double> LOG_CLEANER_MIN_CLEANABLE_RATIO = brokerDefault(
            "log.cleaner.min.cleanable.ratio", MIN_CLEANABLE_DIRTY_RATIO);
    public static final ConfigKey<Integer> LOG_SEGMENT_BYTES = brokerDefault("log.segment.bytes", SEGMENT_BYTES);
    public static final ConfigKey<Long> LOG_ROLL_MS = ConfigKey.longKey("log.roll.ms")
            .validator(Validator.atLeast(1L)).dynamic().defaultText("(`log.roll.hours`)")
            .doc("Default of the topic config segment.ms. Unset, log.roll.hours applies, as in Kafka.")
            .build();
    public static final ConfigKey<Integer> LOG_ROLL_HOURS = ConfigKey.intKey("log.roll.hours")
            .defaultValue(168).validator(Validator.atLeast(1)).dynamic()
            .doc("Default of the topic config segment.ms, in hours, where log.roll.ms is unset.")
            .build();
    public static final String PRODUCER_ID_EXPIRATION_MS_CONFIG = "producer.id.expiration.ms";
    public static final ConfigKey<Long> PRODUCER_ID_EXPIRATION_MS = ConfigKey.longKey(PRODUCER_ID_EXPIRATION_MS_CONFIG)
            .defaultValue(86_400_000L).validator(Validator.atLeast(1L)).dynamic()
            .doc("A producer whose last batch's timestamp is older than this is forgotten (its sequence numbers "
                    + "are no longer checked). A broker setting, as in Kafka; topics show it too.")
            .build();

    /** The broker keys that set topic defaults; all can change at run time. */
    public static final ConfigDefinition BROKER_DEFINITION = ConfigDefinition.of("topic-defaults",
            LOG_RETENTION_MS, LOG_RETENTION_MINUTES, LOG_RETENTION_HOURS, LOG_RETENTION_BYTES, MESSAGE_MAX_BYTES,
            LOG_MESSAGE_TIMESTAMP_TYPE, LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS, LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS,
            LOG_INDEX_INTERVAL_BYTES, PRODUCER_ID_EXPIRATION_MS, LOG_CLEANUP_POLICY, LOG_CLEANER_DELETE_RETENTION_MS,
            LOG_CLEANER_MIN_COMPACTION_LAG_MS, LOG_CLEANER_MAX_COMPACTION_LAG_MS, LOG_CLEANER_MIN_CLEANABLE_RATIO,
            LOG_SEGMENT_BYTES, LOG_ROLL_MS, LOG_ROLL_HOURS);

    /** A broker key and the topic key (or, for the producer expiry, the same key) whose default it sets. */
    private record Synonym(ConfigKey<?> broker, ConfigKey<?> topic) {
    }

    /** In precedence order per topic key: the first one set wins (retention's three synonyms, as in Kafka). */
    private static final List<Synonym> SYNONYMS = List.of(
            new Synonym(MESSAGE_MAX_BYTES, MAX_MESSAGE_BYTES),
            new Synonym(LOG_MESSAGE_TIMESTAMP_TYPE, MESSAGE_TIMESTAMP_TYPE),
            new Synonym(LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS, MESSAGE_TIMESTAMP_BEFORE_MAX_MS),
            new Synonym(LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS, MESSAGE_TIMESTAMP_AFTER_MAX_MS),
            new Synonym(LOG_RETENTION_MS, RETENTION_MS),
            new Synonym(LOG_RETENTION_MINUTES, RETENTION_MS),
            new Synonym(LOG_RETENTION_HOURS, RETENTION_MS),
            new Synonym(LOG_RETENTION_BYTES, RETENTION_BYTES),
            new Synonym(LOG_INDEX_INTERVAL_BYTES, INDEX_INTERVAL_BYTES),
            new Synonym(PRODUCER_ID_EXPIRATION_MS, PRODUCER_ID_EXPIRATION_MS),
            new Synonym(LOG_CLEANUP_POLICY, CLEANUP_POLICY),
            new Synonym(LOG_CLEANER_DELETE_RETENTION_MS, DELETE_RETENTION_MS),
            new Synonym(LOG_CLEANER_MIN_COMPACTION_LAG_MS, MIN_COMPACTION_LAG_MS),
            new Synonym(LOG_CLEANER_MAX_COMPACTION_LAG_MS, MAX_COMPACTION_LAG_MS),
            new Synonym(LOG_CLEANER_MIN_CLEANABLE_RATIO, MIN_CLEANABLE_DIRTY_RATIO),
            new Synonym(LOG_SEGMENT_BYTES, SEGMENT_BYTES),
            new Synonym(LOG_ROLL_MS, SEGMENT_MS),
            new Synonym(LOG_ROLL_HOURS, SEGMENT_MS));

    private static <T> ConfigKey<T> brokerDefault(String brokerName, ConfigKey<T> topicKey) {
        return topicKey.synonym(brokerName).dynamic()
                .doc("Default of the topic config " + topicKey.name() + " for topics that do not set it.")
                .build();
    }

    private static final LogConfig DEFAULTS = from(Map.of());

    private final int maxMessageBytes;
    private final TimestampType timestampType;
    private final long timestampBeforeMaxMs;
    private final long timestampAfterMaxMs;
    private final long retentionMs;
    private final long retentionBytes;
    private final int indexIntervalBytes;
    private final long producerIdExpirationMs;
    private final CleanupPolicy cleanupPolicy;
    private final long deleteRetentionMs;
    private final long minCompactionLagMs;
    private final long maxCompactionLagMs;
    private final double minCleanableDirtyRatio;
    private final int segmentBytes;
    private final long segmentMs;

    private LogConfig(ConfigValues v, long producerIdExpirationMs) {
        this.maxMessageBytes = v.get(MAX_MESSAGE_BYTES);
        this.timestampType = TimestampType.forName(v.get(MESSAGE_TIMESTAMP_TYPE));
        this.timestampBeforeMaxMs = v.get(MESSAGE_TIMESTAMP_BEFORE_MAX_MS);
        this.timestampAfterMaxMs = v.get(MESSAGE_TIMESTAMP_AFTER_MAX_MS);
        this.retentionMs = v.get(RETENTION_MS);
        this.retentionBytes = v.get(RETENTION_BYTES);
        this.indexIntervalBytes = v.get(INDEX_INTERVAL_BYTES);
        this.producerIdExpirationMs = producerIdExpirationMs;
        this.cleanupPolicy = v.get(CLEANUP_POLICY);
        this.deleteRetentionMs = v.get(DELETE_RETENTION_MS);
        this.minCompactionLagMs = v.get(MIN_COMPACTION_LAG_MS);
        this.maxCompactionLagMs = v.get(MAX_COMPACTION_LAG_MS);
        this.minCleanableDirtyRatio = v.get(MIN_CLEANABLE_DIRTY_RATIO);
        this.segmentBytes = v.get(SEGMENT_BYTES);
        this.segmentMs = v.get(SEGMENT_MS);
        if (minCompactionLagMs > maxCompactionLagMs) {
            // Kafka refuses the same clash.
            throw new ConfigException(MIN_COMPACTION_LAG_MS_CONFIG, minCompactionLagMs + " is above "
                    + MAX_COMPACTION_LAG_MS_CONFIG + "=" + maxCompactionLagMs);
        }
    }

    /** Kafka 4's defaults for every key. */
    public static LogConfig defaults() {
        return DEFAULTS;
    }

    /**
     * The given values (topic-level names, plus {@code producer.id.expiration.ms}) over Kafka's
     * defaults; text or typed values.
     *
     * @throws ConfigException naming the first bad key
     */
    public static LogConfig from(Map<String, ?> values) {
        return new LogConfig(TOPIC_DEFINITION.parse(values),
                PRODUCER_ID_EXPIRATION_MS.parse(values.get(PRODUCER_ID_EXPIRATION_MS_CONFIG)));
    }

    /** The broker keys that set the default of a topic key, in precedence order; empty for none. */
    public static List<String> brokerSynonyms(String topicKey) {
        return SYNONYMS.stream().filter(s -> s.topic().name().equals(topicKey)).map(s -> s.broker().name()).toList();
    }

    /** The declaration of a key {@link #toMap} shows, or {@code null}. */
    public static ConfigKey<?> describedKey(String name) {
        ConfigKey<?> key = TOPIC_DEFINITION.key(name);
        return key != null || !name.equals(PRODUCER_ID_EXPIRATION_MS_CONFIG) ? key : PRODUCER_ID_EXPIRATION_MS;
    }

    /**
     * The broker-wide topic defaults from a broker's properties, by Kafka's broker key names
     * ({@code log.retention.ms} — or, as in Kafka, {@code log.retention.minutes} /
     * {@code log.retention.hours} when it is absent — {@code log.retention.bytes},
     * {@code message.max.bytes}, {@code log.message.timestamp.type}, ...). Only keys set count:
     * an unset broker key leaves its topic key at Kafka's default.
     *
     * @throws ConfigException naming the broker key of a bad value
     */
    public static LogConfig fromBrokerProperties(Map<String, String> props) {
        ConfigValues v = BROKER_DEFINITION.parse(props);
        Map<String, Object> topicValues = new HashMap<>();
        for (Synonym s : SYNONYMS) {
            if (v.isSet(s.broker()) && !topicValues.containsKey(s.topic().name())) {
                topicValues.put(s.topic().name(), topicValue(s.broker(), v.get(s.broker())));
            }
        }
        return from(topicValues);
    }

    /** A broker value as its topic key's value: retention in minutes or hours becomes milliseconds. */
    private static Object topicValue(ConfigKey<?> brokerKey, Object value) {
        long unit = brokerKey == LOG_RETENTION_MINUTES ? 60_000L
                : brokerKey == LOG_RETENTION_HOURS || brokerKey == LOG_ROLL_HOURS ? 3_600_000L : 0;
        if (unit == 0) {
            return value;
        }
        int n = (Integer) value;
        return n < 0 ? -1L : n * unit;
    }

    /**
     * A topic's overrides laid over the broker's defaults.
     *
     * @throws ConfigException naming the first bad key
     */
    public static LogConfig fromTopicOverrides(Map<String, String> overrides, LogConfig brokerDefaults) {
        Map<String, String> merged = new HashMap<>(brokerDefaults.toMap());
        merged.putAll(overrides);
        return from(merged);
    }

    /** Every key with its value, as DescribeConfigs would show them. */
    public Map<String, String> toMap() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(MAX_MESSAGE_BYTES_CONFIG, Integer.toString(maxMessageBytes));
        m.put(MESSAGE_TIMESTAMP_TYPE_CONFIG, timestampType.name);
        m.put(MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, Long.toString(timestampBeforeMaxMs));
        m.put(MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, Long.toString(timestampAfterMaxMs));
        m.put(RETENTION_MS_CONFIG, Long.toString(retentionMs));
        m.put(RETENTION_BYTES_CONFIG, Long.toString(retentionBytes));
        m.put(INDEX_INTERVAL_BYTES_CONFIG, Integer.toString(indexIntervalBytes));
        m.put(PRODUCER_ID_EXPIRATION_MS_CONFIG, Long.toString(producerIdExpirationMs));
        m.put(CLEANUP_POLICY_CONFIG, cleanupPolicy.toString());
        m.put(DELETE_RETENTION_MS_CONFIG, Long.toString(deleteRetentionMs));
        m.put(MIN_COMPACTION_LAG_MS_CONFIG, Long.toString(minCompactionLagMs));
        m.put(MAX_COMPACTION_LAG_MS_CONFIG, Long.toString(maxCompactionLagMs));
        m.put(MIN_CLEANABLE_DIRTY_RATIO_CONFIG, Double.toString(minCleanableDirtyRatio));
        m.put(SEGMENT_BYTES_CONFIG, Integer.toString(segmentBytes));
        m.put(SEGMENT_MS_CONFIG, Long.toString(segmentMs));
        return m;
    }

    public int maxMessageBytes() {
        return maxMessageBytes;
    }

    /** CREATE_TIME or LOG_APPEND_TIME. */
    public TimestampType timestampType() {
        return timestampType;
    }

    public long timestampBeforeMaxMs() {
        return timestampBeforeMaxMs;
    }

    public long timestampAfterMaxMs() {
        return timestampAfterMaxMs;
    }

    /** -1: no time limit. */
    public long retentionMs() {
        return retentionMs;
    }

    /** -1: no size limit. */
    public long retentionBytes() {
        return retentionBytes;
    }

    public int indexIntervalBytes() {
        return indexIntervalBytes;
    }

    /**
     * Bytes one time-index entry covers: {@code index.interval.bytes}, at least
     * {@link #MIN_INDEX_ENTRY_BYTES}. The index is held in memory and written whole into the
     * partition's checkpoints, which a broker reads when it opens the partition: at Kafka's 4 KiB
     * a 10 GiB partition had 2.6 million entries (50 MB) and a move to another broker spent
     * seconds reading them; at 1 MiB it is 10,000 entries (200 KB).
     */
    public int indexEntryBytes() {
        return Math.max(indexIntervalBytes, MIN_INDEX_ENTRY_BYTES);
    }

    public long producerIdExpirationMs() {
        return producerIdExpirationMs;
    }

    public CleanupPolicy cleanupPolicy() {
        return cleanupPolicy;
    }

    /** Whether the log cleaner compacts this log by key. */
    public boolean compact() {
        return cleanupPolicy.compact();
    }

    /** Whether retention and DeleteRecords apply. */
    public boolean delete() {
        return cleanupPolicy.delete();
    }

    public long deleteRetentionMs() {
        return deleteRetentionMs;
    }

    public long minCompactionLagMs() {
        return minCompactionLagMs;
    }

    public long maxCompactionLagMs() {
        return maxCompactionLagMs;
    }

    public double minCleanableDirtyRatio() {
        return minCleanableDirtyRatio;
    }

    public int segmentBytes() {
        return segmentBytes;
    }

    public long segmentMs() {
        return segmentMs;
    }

    @Override
    public String toString() {
        return "LogConfig" + toMap();
    }
}
