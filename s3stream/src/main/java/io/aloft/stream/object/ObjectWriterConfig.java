package io.aloft.stream.object;

import io.aloft.config.ConfigKey;
import io.aloft.config.Validator;
import io.aloft.stream.storage.MultipartUpload;

/**
 * Sizes used when writing objects. Immutable; built with {@link #builder()}, which checks every
 * value and the relations between them on the spot.
 *
 * <p>Of these sizes only the block size is an operator's setting ({@link #BLOCK_SIZE}, read by the
 * stream store's configuration); the multipart sizes follow S3's limits.
 */
public final class ObjectWriterConfig {

    /** Smallest block target: below this the header and index entry outweigh the data. */
    static final int MIN_BLOCK_SIZE = 1024;
    static final int MAX_BLOCK_SIZE = 64 * 1024 * 1024;

    public static final String BLOCK_SIZE_CONFIG = "s3.object.block.size.bytes";
    public static final ConfigKey<Integer> BLOCK_SIZE = ConfigKey.intKey(BLOCK_SIZE_CONFIG).defaultValue(512 * 1024)
            .validator(Validator.between(MIN_BLOCK_SIZE, MAX_BLOCK_SIZE))
            .doc("Target size of a data block inside an object, header included: the unit of a ranged read. A "
                    + "block is closed before a batch that would take it past the target; a larger batch gets a "
                    + "block of its own.")
            .build();

    public static final long MULTIPART_THRESHOLD_DEFAULT = 16L * 1024 * 1024;
    public static final int PART_SIZE_DEFAULT = 8 * 1024 * 1024;

    private static final ObjectWriterConfig DEFAULTS = builder().build();

    private final int blockSize;
    private final long multipartThreshold;
    private final int partSize;

    private ObjectWriterConfig(Builder builder) {
        this.blockSize = builder.blockSize;
        this.multipartThreshold = builder.multipartThreshold;
        this.partSize = builder.partSize;
    }

    public static ObjectWriterConfig defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Target size of a data block, header included. A block is closed before a batch that would
     * take it past the target; a batch bigger than the target gets a block of its own.
     */
    public int blockSize() {
        return blockSize;
    }

    /** Objects that reach this size are uploaded in parts rather than with one put. */
    public long multipartThreshold() {
        return multipartThreshold;
    }

    /** Size of each multipart part but the last. */
    public int partSize() {
        return partSize;
    }

    @Override
    public String toString() {
        return "ObjectWriterConfig{blockSize=" + blockSize + ", multipartThreshold=" + multipartThreshold
                + ", partSize=" + partSize + "}";
    }

    /** Builds a config; each setter rejects a bad value at once, {@link #build()} bad combinations. */
    public static final class Builder {
        private int blockSize = BLOCK_SIZE.defaultValue();
        private long multipartThreshold = MULTIPART_THRESHOLD_DEFAULT;
        private int partSize = PART_SIZE_DEFAULT;

        private Builder() {
        }

        /**
         * {@value #BLOCK_SIZE_CONFIG}: 1 KiB to 64 MiB.
         *
         * @throws io.aloft.config.ConfigException naming the key if out of range
         */
        public Builder blockSize(int bytes) {
            this.blockSize = BLOCK_SIZE.validate(bytes);
            return this;
        }

        /** Default 16 MiB; at least {@link #partSize(int)}. */
        public Builder multipartThreshold(long bytes) {
            if (bytes < MultipartUpload.MIN_PART_SIZE) {
                throw new IllegalArgumentException("multipartThreshold must be at least the minimum part size "
                        + MultipartUpload.MIN_PART_SIZE + ", got " + bytes);
            }
            this.multipartThreshold = bytes;
            return this;
        }

        /** Default 8 MiB; at least S3's minimum of 5 MiB. */
        public Builder partSize(int bytes) {
            if (bytes < MultipartUpload.MIN_PART_SIZE) {
                throw new IllegalArgumentException("partSize must be at least " + MultipartUpload.MIN_PART_SIZE
                        + " (S3's minimum part size), got " + bytes);
            }
            this.partSize = bytes;
            return this;
        }

        /**
         * @throws IllegalArgumentException if the multipart threshold is below the part size:
         *     an object just over the threshold must fill at least one whole part
         */
        public ObjectWriterConfig build() {
            if (multipartThreshold < partSize) {
                throw new IllegalArgumentException("multipartThreshold (" + multipartThreshold
                        + ") must be at least partSize (" + partSize + ")");
            }
            return new ObjectWriterConfig(this);
        }
    }
}
