package io.aloft.wal;

import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigException;
import io.aloft.config.ConfigKey;
import io.aloft.config.ConfigValues;
import io.aloft.config.Validator;
import java.nio.file.Path;
import java.util.Map;

/**
 * Settings of a {@link BlockDeviceWal}. Immutable. Every key is declared once, in
 * {@link #DEFINITION}, with its default, validator and documentation; the properties parser and
 * the fail-fast {@link Builder} apply the same rules, and a bad value raises a
 * {@link ConfigException} whose message starts with its key.
 */
public final class WalConfig {

    /** Size of the unit every write and read is aligned to. */
    public static final int ALIGNMENT = 4096;
    static final long MIN_CAPACITY = 64 * 1024;

    public static final String PATH_CONFIG = "wal.path";
    public static final ConfigKey<Path> PATH = ConfigKey.pathKey(PATH_CONFIG).required()
            .defaultText("(required; the broker's default is `<aloft.data.dir>/wal`)")
            .doc("Block device or file holding the write-ahead log. A file is created and preallocated to "
                    + "wal.capacity.bytes if missing (its directory must exist); a block device must be at least "
                    + "that large.")
            .build();

    public static final String CAPACITY_CONFIG = "wal.capacity.bytes";
    public static final ConfigKey<Long> CAPACITY = ConfigKey.longKey(CAPACITY_CONFIG).defaultValue(1L << 30)
            .validator(Validator.multipleOf(ALIGNMENT).and(Validator.atLeast(MIN_CAPACITY)))
            .doc("Bytes of the device or file the log uses, two 4 KiB header slots included. Must match the "
                    + "capacity an existing log was formatted with.")
            .build();

    public static final String DIRECT_IO_CONFIG = "wal.direct.io";
    public static final ConfigKey<Boolean> DIRECT_IO = ConfigKey.booleanKey(DIRECT_IO_CONFIG).defaultValue(true)
            .doc("Write with Direct IO and O_DSYNC, bypassing the page cache. Where the file system refuses "
                    + "Direct IO (tmpfs) the log falls back to buffered writes followed by fdatasync and says so "
                    + "once in its log.")
            .build();

    /** The largest default write; smaller when a quarter of the capacity is smaller. */
    private static final int MAX_BATCH_CEILING = 1024 * 1024;
    public static final String MAX_BATCH_CONFIG = "wal.max.batch.bytes";
    public static final ConfigKey<Integer> MAX_BATCH = ConfigKey.intKey(MAX_BATCH_CONFIG)
            .defaultText("the smaller of `1048576` (1 MiB) and a quarter of `wal.capacity.bytes`")
            .validator(Validator.atLeast(ALIGNMENT))
            .doc("Largest single write group commit builds from concurrent appends. A record larger than this "
                    + "is written on its own. At most a quarter of wal.capacity.bytes.")
            .build();

    public static final String MAX_INFLIGHT_CONFIG = "wal.max.inflight.writes";
    public static final ConfigKey<Integer> MAX_INFLIGHT = ConfigKey.intKey(MAX_INFLIGHT_CONFIG).defaultValue(1)
            .validator(Validator.between(1, 64))
            .doc("Writes that may be in flight to the device at once. Appends arriving while this many are in "
                    + "flight are grouped into the next write. One gives the largest groups, which measured "
                    + "fastest on a device whose cost per durable write is nearly flat; a device with more "
                    + "parallelism may prefer 2 to 4 (scripts/bench-wal.sh sweeps it).")
            .build();

    public static final String APPEND_TIMEOUT_CONFIG = "wal.append.timeout.ms";
    public static final ConfigKey<Long> APPEND_TIMEOUT = ConfigKey.longKey(APPEND_TIMEOUT_CONFIG)
            .defaultValue(10_000L).validator(Validator.atLeast(0L))
            .doc("How long an append waits for trimmed space when the log is full before it fails with "
                    + "WalFullException. 0 fails at once.")
            .build();

    /** Every key the WAL reads. */
    public static final ConfigDefinition DEFINITION = ConfigDefinition.of("wal", PATH, CAPACITY, DIRECT_IO,
            MAX_BATCH, MAX_INFLIGHT, APPEND_TIMEOUT);

    private final Path path;
    private final long capacityBytes;
    private final boolean directIo;
    private final int maxBatchBytes;
    private final int maxInflightWrites;
    private final long appendTimeoutMs;

    private WalConfig(Builder builder) {
        if (builder.path == null) {
            throw new ConfigException(PATH_CONFIG, "must be set");
        }
        long quarter = builder.capacityBytes / 4;
        int maxBatch = builder.maxBatchBytes != null ? builder.maxBatchBytes
                : (int) Math.min(MAX_BATCH_CEILING, quarter);
        if (maxBatch < ALIGNMENT || maxBatch > quarter) {
            throw new ConfigException(MAX_BATCH_CONFIG, maxBatch + " is outside [" + ALIGNMENT + ", " + quarter
                    + "] (at most a quarter of " + CAPACITY_CONFIG + "=" + builder.capacityBytes + ")");
        }
        this.path = builder.path;
        this.capacityBytes = builder.capacityBytes;
        this.directIo = builder.directIo;
        this.maxBatchBytes = maxBatch;
        this.maxInflightWrites = builder.maxInflightWrites;
        this.appendTimeoutMs = builder.appendTimeoutMs;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Reads the keys of {@link #DEFINITION} from a property map (other keys are ignored); values
     * may be text or numbers.
     *
     * @throws ConfigException naming the first bad key
     */
    public static WalConfig fromProperties(Map<String, ?> props) {
        ConfigValues v = DEFINITION.parse(props);
        Builder b = builder().path(v.get(PATH)).capacityBytes(v.get(CAPACITY)).directIo(v.get(DIRECT_IO))
                .maxInflightWrites(v.get(MAX_INFLIGHT)).appendTimeoutMs(v.get(APPEND_TIMEOUT));
        if (v.isSet(MAX_BATCH)) {
            b.maxBatchBytes(v.get(MAX_BATCH));
        }
        return b.build();
    }

    public Path path() {
        return path;
    }

    public long capacityBytes() {
        return capacityBytes;
    }

    public boolean directIo() {
        return directIo;
    }

    public int maxBatchBytes() {
        return maxBatchBytes;
    }

    public int maxInflightWrites() {
        return maxInflightWrites;
    }

    public long appendTimeoutMs() {
        return appendTimeoutMs;
    }

    @Override
    public String toString() {
        return PATH_CONFIG + "=" + path + ", " + CAPACITY_CONFIG + "=" + capacityBytes + ", " + DIRECT_IO_CONFIG + "="
                + directIo + ", " + MAX_BATCH_CONFIG + "=" + maxBatchBytes + ", " + MAX_INFLIGHT_CONFIG + "="
                + maxInflightWrites + ", " + APPEND_TIMEOUT_CONFIG + "=" + appendTimeoutMs;
    }

    /**
     * Fail-fast builder: each setter checks its value against the key's validator at once;
     * {@link #build()} checks what depends on two keys (the batch size against the capacity) and
     * that the path is set. Not thread-safe.
     */
    public static final class Builder {
        private Path path;
        private long capacityBytes = CAPACITY.defaultValue();
        private boolean directIo = DIRECT_IO.defaultValue();
        private Integer maxBatchBytes;
        private int maxInflightWrites = MAX_INFLIGHT.defaultValue();
        private long appendTimeoutMs = APPEND_TIMEOUT.defaultValue();

        private Builder() {
        }

        public Builder path(Path path) {
            this.path = PATH.validate(path);
            return this;
        }

        public Builder capacityBytes(long capacityBytes) {
            this.capacityBytes = CAPACITY.validate(capacityBytes);
            return this;
        }

        public Builder directIo(boolean directIo) {
            this.directIo = directIo;
            return this;
        }

        public Builder maxBatchBytes(int maxBatchBytes) {
            this.maxBatchBytes = MAX_BATCH.validate(maxBatchBytes);
            return this;
        }

        public Builder maxInflightWrites(int maxInflightWrites) {
            this.maxInflightWrites = MAX_INFLIGHT.validate(maxInflightWrites);
            return this;
        }

        public Builder appendTimeoutMs(long appendTimeoutMs) {
            this.appendTimeoutMs = APPEND_TIMEOUT.validate(appendTimeoutMs);
            return this;
        }

        public WalConfig build() {
            return new WalConfig(this);
        }
    }
}
