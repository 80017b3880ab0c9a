package io.aloft.broker.log.cleaner;

import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigException;
import io.aloft.config.ConfigKey;
import io.aloft.config.ConfigValues;
import io.aloft.config.Validator;
import java.util.Map;

/**
 * Settings of the log cleaner (key compaction), under Kafka's {@code log.cleaner.*} names and with
 * Kafka's defaults, declared once in {@link #DEFINITION}: its CPU budget (threads, an I/O rate
 * limit) and its memory budget (the key maps). The per-topic settings a cleaning obeys
 * ({@code cleanup.policy}, {@code min.cleanable.dirty.ratio}, ...) and their broker defaults
 * ({@code log.cleaner.min.cleanable.ratio}, ...) are topic configs, in
 * {@link io.aloft.broker.log.LogConfig}. Read at start. Immutable.
 */
public final class CleanerConfig {

    public static final String ENABLE_CONFIG = "log.cleaner.enable";
    public static final ConfigKey<Boolean> ENABLE = ConfigKey.booleanKey(ENABLE_CONFIG).defaultValue(true)
            .doc("Run the log cleaner, which compacts topics whose cleanup.policy includes compact (including "
                    + "__consumer_offsets). Off, compacted topics grow without bound.")
            .build();

    public static final String THREADS_CONFIG = "log.cleaner.threads";
    public static final ConfigKey<Integer> THREADS = ConfigKey.intKey(THREADS_CONFIG).defaultValue(1)
            .validator(Validator.between(1, 64))
            .doc("Threads cleaning logs, each one partition at a time: the cleaner's CPU budget, together with "
                    + "log.cleaner.io.max.bytes.per.second.")
            .build();

    public static final String DEDUPE_BUFFER_SIZE_CONFIG = "log.cleaner.dedupe.buffer.size";
    public static final ConfigKey<Long> DEDUPE_BUFFER_SIZE = ConfigKey.longKey(DEDUPE_BUFFER_SIZE_CONFIG)
            .defaultValue(134_217_728L).validator(Validator.between(4096L, 64L << 30))
            .doc("Heap for the key maps of all cleaner threads together (split equally; each allocated when its "
                    + "thread first cleans): 24 bytes per key (a 128-bit hash and an offset), so the default holds "
                    + "about 5 million distinct keys per cleaning. A log with more keys in its uncleaned part is "
                    + "cleaned in several passes.")
            .build();

    public static final String LOAD_FACTOR_CONFIG = "log.cleaner.io.buffer.load.factor";
    public static final ConfigKey<Double> LOAD_FACTOR = ConfigKey.doubleKey(LOAD_FACTOR_CONFIG).defaultValue(0.9)
            .validator(Validator.between(0.1, 1.0))
            .doc("How full a key map may get before a cleaning stops adding keys (a fuller map probes longer).")
            .build();

    public static final String IO_BUFFER_SIZE_CONFIG = "log.cleaner.io.buffer.size";
    public static final ConfigKey<Integer> IO_BUFFER_SIZE = ConfigKey.intKey(IO_BUFFER_SIZE_CONFIG)
            .defaultValue(524_288).validator(Validator.between(4096, 64 << 20))
            .doc("Bytes asked for per read of a log being cleaned (reads go through the block cache and its "
                    + "readahead; a batch larger than this is still read whole).")
            .build();

    public static final String IO_MAX_BYTES_PER_SECOND_CONFIG = "log.cleaner.io.max.bytes.per.second";
    public static final ConfigKey<Double> IO_MAX_BYTES_PER_SECOND = ConfigKey
            .doubleKey(IO_MAX_BYTES_PER_SECOND_CONFIG).defaultValue(Double.MAX_VALUE)
            .validator(Validator.atLeast(1.0)).defaultText("unlimited (`1.7976931348623157E308`)")
            .doc("Most bytes per second all cleaner threads together read and write (reading the log twice, once "
                    + "for the key map and once to rewrite, and writing the result).")
            .build();

    public static final String BACKOFF_MS_CONFIG = "log.cleaner.backoff.ms";
    public static final ConfigKey<Long> BACKOFF_MS = ConfigKey.longKey(BACKOFF_MS_CONFIG).defaultValue(15_000L)
            .validator(Validator.atLeast(0L))
            .doc("How long a cleaner thread waits before looking again when no log needs cleaning (or after a "
                    + "cleaning failed).")
            .build();

    /** Every key the log cleaner reads. */
    public static final ConfigDefinition DEFINITION = ConfigDefinition.of("log-cleaner", ENABLE, THREADS,
            DEDUPE_BUFFER_SIZE, LOAD_FACTOR, IO_BUFFER_SIZE, IO_MAX_BYTES_PER_SECOND, BACKOFF_MS);

    private final boolean enabled;
    private final int threads;
    private final long dedupeBufferBytes;
    private final double loadFactor;
    private final int ioBufferBytes;
    private final double maxBytesPerSecond;
    private final long backoffMs;

    private CleanerConfig(ConfigValues v) {
        enabled = v.get(ENABLE);
        threads = v.get(THREADS);
        dedupeBufferBytes = v.get(DEDUPE_BUFFER_SIZE);
        loadFactor = v.get(LOAD_FACTOR);
        ioBufferBytes = v.get(IO_BUFFER_SIZE);
        maxBytesPerSecond = v.get(IO_MAX_BYTES_PER_SECOND);
        backoffMs = v.get(BACKOFF_MS);
        if (dedupeBufferBytes / threads < OffsetMap.BYTES_PER_ENTRY * 64L) {
            throw new ConfigException(DEDUPE_BUFFER_SIZE_CONFIG, dedupeBufferBytes + " leaves less than "
                    + OffsetMap.BYTES_PER_ENTRY * 64 + " bytes to each of " + THREADS_CONFIG + "=" + threads
                    + " threads");
        }
    }

    /**
     * Parses the keys of {@link #DEFINITION} from {@code props} (text or typed values); missing keys default.
     *
     * @throws ConfigException naming the first bad key
     */
    public static CleanerConfig fromProperties(Map<?, ?> props) {
        return new CleanerConfig(DEFINITION.parse(props));
    }

    /** Kafka's defaults for every key. */
    public static CleanerConfig defaults() {
        return fromProperties(Map.of());
    }

    public boolean enabled() {
        return enabled;
    }

    public int threads() {
        return threads;
    }

    /** Bytes of the key maps of all threads together. */
    public long dedupeBufferBytes() {
        return dedupeBufferBytes;
    }

    /** Bytes of one thread's key map. */
    public long dedupeBufferBytesPerThread() {
        return dedupeBufferBytes / threads;
    }

    public double loadFactor() {
        return loadFactor;
    }

    public int ioBufferBytes() {
        return ioBufferBytes;
    }

    /** Bytes per second for all threads together; {@link Double#MAX_VALUE} for no limit. */
    public double maxBytesPerSecond() {
        return maxBytesPerSecond;
    }

    public long backoffMs() {
        return backoffMs;
    }
}
