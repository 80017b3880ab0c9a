package io.aloft.wal;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of a {@link BlockDeviceWal}. Immutable; values are validated once, when built, and a bad
 * value raises a {@link WalConfigException} naming its key.
 *
 * <p>Every key is declared here once, as a {@code _CONFIG} / {@code _DOC} / {@code _DEFAULT}
 * triplet, and listed in {@link #KEYS} so documentation can be generated from it.
 */
public final class WalConfig {

    /** Size of the unit every write and read is aligned to. */
    public static final int ALIGNMENT = 4096;

    public static final String PATH_CONFIG = "wal.path";
    public static final String PATH_DOC = "Block device or file holding the write-ahead log. A file is created and "
            + "preallocated to wal.capacity.bytes if missing; a block device must be at least that large.";

    public static final String CAPACITY_CONFIG = "wal.capacity.bytes";
    public static final String CAPACITY_DOC = "Bytes of the device or file the log uses, two 4 KiB header slots "
            + "included. A multiple of 4096, at least 64 KiB. Must match the capacity an existing log was formatted with.";
    public static final long CAPACITY_DEFAULT = 1L << 30;
    static final long MIN_CAPACITY = 64 * 1024;

    public static final String DIRECT_IO_CONFIG = "wal.direct.io";
    public static final String DIRECT_IO_DOC = "Write with Direct IO and O_DSYNC, bypassing the page cache. Where the "
            + "file system refuses Direct IO (tmpfs) the log falls back to buffered writes followed by fdatasync "
            + "and says so once in its log.";
    public static final boolean DIRECT_IO_DEFAULT = true;

    public static final String MAX_BATCH_CONFIG = "wal.max.batch.bytes";
    public static final String MAX_BATCH_DOC = "Largest single write group commit builds from concurrent appends. "
            + "A record larger than this is written on its own. At least 4096, at most a quarter of the capacity; "
            + "unset, it is 1 MiB or a quarter of the capacity, whichever is smaller.";
    public static final int MAX_BATCH_DEFAULT = 1024 * 1024;

    public static final String MAX_INFLIGHT_CONFIG = "wal.max.inflight.writes";
    public static final String MAX_INFLIGHT_DOC = "Writes that may be in flight to the device at once. Appends "
            + "arriving while this many are in flight are grouped into the next write. 1 to 64. One gives the "
            + "largest groups, which measured fastest on a device whose cost per durable write is nearly flat; "
            + "a device with more parallelism may prefer 2 to 4 (scripts/bench-wal.sh sweeps it).";
    public static final int MAX_INFLIGHT_DEFAULT = 1;

    public static final String APPEND_TIMEOUT_CONFIG = "wal.append.timeout.ms";
    public static final String APPEND_TIMEOUT_DOC = "How long an append waits for trimmed space when the log is "
            + "full before it fails with WalFullException. 0 fails at once.";
    public static final long APPEND_TIMEOUT_DEFAULT = 10_000;

    /** One documented key. */
    public record Key(String name, String type, String defaultValue, String doc) {
    }

    /** Every key this config reads, for generated documentation. */
    public static final List<Key> KEYS = List.of(
            new Key(PATH_CONFIG, "path", "(required)", PATH_DOC),
            new Key(CAPACITY_CONFIG, "long", Long.toString(CAPACITY_DEFAULT), CAPACITY_DOC),
            new Key(DIRECT_IO_CONFIG, "boolean", Boolean.toString(DIRECT_IO_DEFAULT), DIRECT_IO_DOC),
            new Key(MAX_BATCH_CONFIG, "int", Integer.toString(MAX_BATCH_DEFAULT), MAX_BATCH_DOC),
            new Key(MAX_INFLIGHT_CONFIG, "int", Integer.toString(MAX_INFLIGHT_DEFAULT), MAX_INFLIGHT_DOC),
            new Key(APPEND_TIMEOUT_CONFIG, "long", Long.toString(APPEND_TIMEOUT_DEFAULT), APPEND_TIMEOUT_DOC));

    private final Path path;
    private final long capacityBytes;
    private final boolean directIo;
    private final int maxBatchBytes;
    private final int maxInflightWrites;
    private final long appendTimeoutMs;

    private WalConfig(Builder builder) {
        if (builder.path == null) {
            throw new WalConfigException(PATH_CONFIG, "is required");
        }
        if (builder.capacityBytes % ALIGNMENT != 0) {
            throw new WalConfigException(CAPACITY_CONFIG,
                    builder.capacityBytes + " is not a multiple of " + ALIGNMENT);
        }
        if (builder.capacityBytes < MIN_CAPACITY) {
            throw new WalConfigException(CAPACITY_CONFIG,
                    builder.capacityBytes + " is below the minimum of " + MIN_CAPACITY);
        }
        int maxBatch = builder.maxBatchBytes != null ? builder.maxBatchBytes
                : (int) Math.min(MAX_BATCH_DEFAULT, builder.capacityBytes / 4);
        if (maxBatch < ALIGNMENT || maxBatch > builder.capacityBytes / 4) {
            throw new WalConfigException(MAX_BATCH_CONFIG, maxBatch + " is outside [" + ALIGNMENT
                    + ", " + (builder.capacityBytes / 4) + "] (a quarter of " + CAPACITY_CONFIG + ")");
        }
        if (builder.maxInflightWrites < 1 || builder.maxInflightWrites > 64) {
            throw new WalConfigException(MAX_INFLIGHT_CONFIG, builder.maxInflightWrites + " is outside [1, 64]");
        }
        if (builder.appendTimeoutMs < 0) {
            throw new WalConfigException(APPEND_TIMEOUT_CONFIG, builder.appendTimeoutMs + " is negative");
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
     * Reads the {@code wal.*} keys of a property map (other keys are ignored); values may be strings
     * or numbers. An unparsable value raises a {@link WalConfigException} naming the key.
     */
    public static WalConfig fromProperties(Map<String, ?> props) {
        Builder b = builder();
        Object path = props.get(PATH_CONFIG);
        if (path != null) {
            b.path(Path.of(path.toString().trim()));
        }
        if (props.containsKey(CAPACITY_CONFIG)) {
            b.capacityBytes(parseLong(props, CAPACITY_CONFIG));
        }
        if (props.containsKey(DIRECT_IO_CONFIG)) {
            b.directIo(parseBoolean(props, DIRECT_IO_CONFIG));
        }
        if (props.containsKey(MAX_BATCH_CONFIG)) {
            b.maxBatchBytes(Math.toIntExact(Math.min(Integer.MAX_VALUE, parseLong(props, MAX_BATCH_CONFIG))));
        }
        if (props.containsKey(MAX_INFLIGHT_CONFIG)) {
            b.maxInflightWrites((int) Math.max(Integer.MIN_VALUE,
                    Math.min(Integer.MAX_VALUE, parseLong(props, MAX_INFLIGHT_CONFIG))));
        }
        if (props.containsKey(APPEND_TIMEOUT_CONFIG)) {
            b.appendTimeoutMs(parseLong(props, APPEND_TIMEOUT_CONFIG));
        }
        return b.build();
    }

    private static long parseLong(Map<String, ?> props, String key) {
        Object v = props.get(key);
        if (v instanceof Number n) {
            return n.longValue();
        }
        try {
            return Long.parseLong(Objects.toString(v).trim());
        } catch (NumberFormatException e) {
            throw new WalConfigException(key, "'" + v + "' is not a whole number");
        }
    }

    private static boolean parseBoolean(Map<String, ?> props, String key) {
        Object v = props.get(key);
        if (v instanceof Boolean b) {
            return b;
        }
        String s = Objects.toString(v).trim();
        if (s.equalsIgnoreCase("true")) {
            return true;
        }
        if (s.equalsIgnoreCase("false")) {
            return false;
        }
        throw new WalConfigException(key, "'" + v + "' is not true or false");
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

    /** Fail-fast builder; {@link #build()} validates every value. */
    public static final class Builder {
        private Path path;
        private long capacityBytes = CAPACITY_DEFAULT;
        private boolean directIo = DIRECT_IO_DEFAULT;
        private Integer maxBatchBytes;
        private int maxInflightWrites = MAX_INFLIGHT_DEFAULT;
        private long appendTimeoutMs = APPEND_TIMEOUT_DEFAULT;

        private Builder() {
        }

        public Builder path(Path path) {
            this.path = path;
            return this;
        }

        public Builder capacityBytes(long capacityBytes) {
            this.capacityBytes = capacityBytes;
            return this;
        }

        public Builder directIo(boolean directIo) {
            this.directIo = directIo;
            return this;
        }

        public Builder maxBatchBytes(int maxBatchBytes) {
            this.maxBatchBytes = maxBatchBytes;
            return this;
        }

        public Builder maxInflightWrites(int maxInflightWrites) {
            this.maxInflightWrites = maxInflightWrites;
            return this;
        }

        public Builder appendTimeoutMs(long appendTimeoutMs) {
            this.appendTimeoutMs = appendTimeoutMs;
            return this;
        }

        public WalConfig build() {
            return new WalConfig(this);
        }
    }
}
