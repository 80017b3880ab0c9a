package io.aloft.broker.log;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.ValidString;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.record.TimestampType;

/**
 * The topic settings a {@link PartitionLog} obeys, under Kafka's names and with Kafka 4's
 * defaults. Built from a topic's overrides laid over the broker's defaults; a bad value fails with
 * a {@link ConfigException} naming the key (CreateTopics/AlterConfigs answer INVALID_CONFIG).
 * Keys this class does not know are ignored: other parts of the broker own them.
 *
 * <p>Immutable.
 */
public final class LogConfig {
    public static final String MAX_MESSAGE_BYTES_CONFIG = "max.message.bytes";
    public static final String MAX_MESSAGE_BYTES_DOC = "Largest record batch, in bytes, the log accepts.";
    public static final int MAX_MESSAGE_BYTES_DEFAULT = 1048588;

    public static final String MESSAGE_TIMESTAMP_TYPE_CONFIG = "message.timestamp.type";
    public static final String MESSAGE_TIMESTAMP_TYPE_DOC = "CreateTime keeps the producer's timestamps (checked "
            + "against the two bounds below); LogAppendTime replaces them with the broker's clock.";
    public static final String MESSAGE_TIMESTAMP_TYPE_DEFAULT = "CreateTime";

    public static final String MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG = "message.timestamp.before.max.ms";
    public static final String MESSAGE_TIMESTAMP_BEFORE_MAX_MS_DOC = "With CreateTime, a record timestamp at most "
            + "this far behind the broker's clock is accepted.";
    public static final long MESSAGE_TIMESTAMP_BEFORE_MAX_MS_DEFAULT = Long.MAX_VALUE;

    public static final String MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG = "message.timestamp.after.max.ms";
    public static final String MESSAGE_TIMESTAMP_AFTER_MAX_MS_DOC = "With CreateTime, a record timestamp at most "
            + "this far ahead of the broker's clock is accepted.";
    public static final long MESSAGE_TIMESTAMP_AFTER_MAX_MS_DEFAULT = 3_600_000L;

    public static final String RETENTION_MS_CONFIG = "retention.ms";
    public static final String RETENTION_MS_DOC = "Batches whose largest timestamp is older than this are deleted; "
            + "-1 keeps them regardless of age.";
    public static final long RETENTION_MS_DEFAULT = 604_800_000L;

    public static final String RETENTION_BYTES_CONFIG = "retention.bytes";
    public static final String RETENTION_BYTES_DOC = "Oldest batches are deleted while the log would still hold at "
            + "least this many bytes without them; -1 means no size limit.";
    public static final long RETENTION_BYTES_DEFAULT = -1L;

    public static final String INDEX_INTERVAL_BYTES_CONFIG = "index.interval.bytes";
    public static final String INDEX_INTERVAL_BYTES_DOC = "Bytes of batches one time-index entry covers. Retention "
            + "deletes whole entries, and a timestamp lookup reads at most one entry's batches; the index costs "
            + "about 20 bytes of memory per entry.";
    public static final int INDEX_INTERVAL_BYTES_DEFAULT = 4096;

    public static final String PRODUCER_ID_EXPIRATION_MS_CONFIG = "producer.id.expiration.ms";
    public static final String PRODUCER_ID_EXPIRATION_MS_DOC = "A producer whose last batch's timestamp is older "
            + "than this is forgotten (its sequence numbers are no longer checked). A broker setting in Kafka.";
    public static final long PRODUCER_ID_EXPIRATION_MS_DEFAULT = 86_400_000L;

    static final ConfigDef CONFIG_DEF = new ConfigDef()
            .define(MAX_MESSAGE_BYTES_CONFIG, Type.INT, MAX_MESSAGE_BYTES_DEFAULT, Range.atLeast(0), Importance.MEDIUM,
                    MAX_MESSAGE_BYTES_DOC)
            .define(MESSAGE_TIMESTAMP_TYPE_CONFIG, Type.STRING, MESSAGE_TIMESTAMP_TYPE_DEFAULT,
                    ValidString.in("CreateTime", "LogAppendTime"), Importance.MEDIUM, MESSAGE_TIMESTAMP_TYPE_DOC)
            .define(MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, Type.LONG, MESSAGE_TIMESTAMP_BEFORE_MAX_MS_DEFAULT,
                    Range.atLeast(0), Importance.MEDIUM, MESSAGE_TIMESTAMP_BEFORE_MAX_MS_DOC)
            .define(MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, Type.LONG, MESSAGE_TIMESTAMP_AFTER_MAX_MS_DEFAULT,
                    Range.atLeast(0), Importance.MEDIUM, MESSAGE_TIMESTAMP_AFTER_MAX_MS_DOC)
            .define(RETENTION_MS_CONFIG, Type.LONG, RETENTION_MS_DEFAULT, Range.atLeast(-1), Importance.MEDIUM,
                    RETENTION_MS_DOC)
            .define(RETENTION_BYTES_CONFIG, Type.LONG, RETENTION_BYTES_DEFAULT, Range.atLeast(-1), Importance.MEDIUM,
                    RETENTION_BYTES_DOC)
            .define(INDEX_INTERVAL_BYTES_CONFIG, Type.INT, INDEX_INTERVAL_BYTES_DEFAULT, Range.atLeast(0),
                    Importance.MEDIUM, INDEX_INTERVAL_BYTES_DOC)
            .define(PRODUCER_ID_EXPIRATION_MS_CONFIG, Type.LONG, PRODUCER_ID_EXPIRATION_MS_DEFAULT, Range.atLeast(1),
                    Importance.LOW, PRODUCER_ID_EXPIRATION_MS_DOC);

    private static final LogConfig DEFAULTS = from(Map.of());

    private final int maxMessageBytes;
    private final TimestampType timestampType;
    private final long timestampBeforeMaxMs;
    private final long timestampAfterMaxMs;
    private final long retentionMs;
    private final long retentionBytes;
    private final int indexIntervalBytes;
    private final long producerIdExpirationMs;

    private LogConfig(Map<String, Object> parsed) {
        this.maxMessageBytes = (Integer) parsed.get(MAX_MESSAGE_BYTES_CONFIG);
        this.timestampType = TimestampType.forName((String) parsed.get(MESSAGE_TIMESTAMP_TYPE_CONFIG));
        this.timestampBeforeMaxMs = (Long) parsed.get(MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG);
        this.timestampAfterMaxMs = (Long) parsed.get(MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG);
        this.retentionMs = (Long) parsed.get(RETENTION_MS_CONFIG);
        this.retentionBytes = (Long) parsed.get(RETENTION_BYTES_CONFIG);
        this.indexIntervalBytes = (Integer) parsed.get(INDEX_INTERVAL_BYTES_CONFIG);
        this.producerIdExpirationMs = (Long) parsed.get(PRODUCER_ID_EXPIRATION_MS_CONFIG);
    }

    /** Kafka 4's defaults for every key. */
    public static LogConfig defaults() {
        return DEFAULTS;
    }

    /**
     * The given values (topic-level names) over Kafka's defaults; for the broker's defaults.
     *
     * @throws ConfigException naming the first bad key
     */
    public static LogConfig from(Map<String, String> values) {
        return new LogConfig(CONFIG_DEF.parse(values));
    }

    /** Broker keys (Kafka's names) that set the default of a topic key. */
    private static final Map<String, String> BROKER_KEYS = Map.of(
            "message.max.bytes", MAX_MESSAGE_BYTES_CONFIG,
            "log.message.timestamp.type", MESSAGE_TIMESTAMP_TYPE_CONFIG,
            "log.message.timestamp.before.max.ms", MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG,
            "log.message.timestamp.after.max.ms", MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG,
            "log.retention.ms", RETENTION_MS_CONFIG,
            "log.retention.bytes", RETENTION_BYTES_CONFIG,
            "log.index.interval.bytes", INDEX_INTERVAL_BYTES_CONFIG,
            "producer.id.expiration.ms", PRODUCER_ID_EXPIRATION_MS_CONFIG);

    /** Kafka's retention synonyms at the broker, in precedence order: the first one set wins. */
    private static final List<String> RETENTION_BROKER_KEYS = List.of("log.retention.ms", "log.retention.minutes",
            "log.retention.hours");

    /** Every broker key that sets the default of a topic key (retention's three synonyms included). */
    public static Set<String> brokerKeys() {
        Set<String> keys = new TreeSet<>(BROKER_KEYS.keySet());
        keys.addAll(RETENTION_BROKER_KEYS);
        return keys;
    }

    /** The broker keys that set the default of a topic key, in precedence order; empty for none. */
    public static List<String> brokerSynonyms(String topicKey) {
        if (RETENTION_MS_CONFIG.equals(topicKey)) {
            return RETENTION_BROKER_KEYS;
        }
        return BROKER_KEYS.entrySet().stream().filter(e -> e.getValue().equals(topicKey)).map(Map.Entry::getKey)
                .toList();
    }

    /**
     * The broker-wide topic defaults from a broker's properties, by Kafka's broker key names
     * ({@code log.retention.ms} — or, as in Kafka, {@code log.retention.minutes} /
     * {@code log.retention.hours} when it is absent — {@code log.retention.bytes},
     * {@code message.max.bytes}, {@code log.message.timestamp.type}, ...).
     *
     * @throws IllegalArgumentException naming the broker key of a bad value
     */
    public static LogConfig fromBrokerProperties(Map<String, String> props) {
        Map<String, String> topicValues = new HashMap<>();
        Map<String, String> origin = new HashMap<>();
        BROKER_KEYS.forEach((brokerKey, topicKey) -> {
            String v = props.get(brokerKey);
            if (v != null) {
                topicValues.put(topicKey, v.trim());
                origin.put(topicKey, brokerKey);
            }
        });
        if (!topicValues.containsKey(RETENTION_MS_CONFIG)) {
            for (String[] unit : new String[][] {{"log.retention.minutes", "60000"}, {"log.retention.hours", "3600000"}}) {
                String v = props.get(unit[0]);
                if (v != null) {
                    try {
                        topicValues.put(RETENTION_MS_CONFIG, Long.toString(Math.multiplyExact(Long.parseLong(v.trim()),
                                Long.parseLong(unit[1]))));
                    } catch (NumberFormatException | ArithmeticException e) {
                        throw new IllegalArgumentException(unit[0] + ": '" + v + "' is not a valid number");
                    }
                    origin.put(RETENTION_MS_CONFIG, unit[0]);
                    break;
                }
            }
        }
        try {
            return from(topicValues);
        } catch (ConfigException e) {
            String key = e.getMessage();
            for (Map.Entry<String, String> o : origin.entrySet()) {
                if (key != null && key.contains(o.getKey())) {
                    throw new IllegalArgumentException(o.getValue() + ": " + e.getMessage(), e);
                }
            }
            throw new IllegalArgumentException(e.getMessage(), e);
        }
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

    public long producerIdExpirationMs() {
        return producerIdExpirationMs;
    }

    @Override
    public String toString() {
        return "LogConfig" + toMap();
    }
}
