package io.aloft.stream.store;

import io.aloft.stream.compaction.CompactionStats;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * Running counters of one {@link StreamStore}'s uploads and object reads, hooks for the latency
 * and size of each uploaded object, and the store's levels (log-cache and block-cache bytes, open
 * streams), read from the store when asked. Compaction's counters are {@link #compaction()}.
 *
 * <p>The hooks are plain {@link LongConsumer}s, not a metrics library's types, so s3stream keeps
 * no dependency on one: the broker binds them to Micrometer meters. Until bound they go nowhere.
 *
 * <p>Thread-safe and lock-free; readers may see one counter a moment ahead of another.
 */
public final class StreamStoreStats {
    private static final LongConsumer NONE = v -> { };

    private final LongAdder uploads = new LongAdder();
    private final LongAdder uploadBytes = new LongAdder();
    private final LongAdder uploadFailures = new LongAdder();
    private final LongAdder blockCacheHits = new LongAdder();
    private final LongAdder blockCacheMisses = new LongAdder();
    private final LongAdder readaheadRequests = new LongAdder();
    private final LongAdder readaheadBytes = new LongAdder();
    private volatile LongConsumer uploadLatency = NONE;
    private volatile LongConsumer objectSize = NONE;
    private volatile LongSupplier logCacheBytes = () -> 0;
    private volatile LongSupplier unuploadedBytes = () -> 0;
    private volatile LongSupplier blockCacheBytes = () -> 0;
    private volatile IntSupplier openStreams = () -> 0;
    private volatile CompactionStats compaction = new CompactionStats();

    /** Where the levels are read from: the store sets this once, as it opens. */
    void levels(LongSupplier logCacheBytes, LongSupplier unuploadedBytes, LongSupplier blockCacheBytes,
            IntSupplier openStreams, CompactionStats compaction) {
        this.logCacheBytes = logCacheBytes;
        this.unuploadedBytes = unuploadedBytes;
        this.blockCacheBytes = blockCacheBytes;
        this.openStreams = openStreams;
        this.compaction = compaction;
    }

    /** Bytes the log cache holds now, uploaded or not. */
    public long logCacheBytes() {
        return logCacheBytes.getAsLong();
    }

    /** Bytes the log cache holds that are not committed to object storage yet (also in the WAL). */
    public long unuploadedBytes() {
        return unuploadedBytes.getAsLong();
    }

    /** Bytes the block cache weighs its cached data blocks at. */
    public long blockCacheBytes() {
        return blockCacheBytes.getAsLong();
    }

    /** Streams open on this store now. */
    public int openStreams() {
        return openStreams.getAsInt();
    }

    /** The store's compaction counters. */
    public CompactionStats compaction() {
        return compaction;
    }

    /**
     * Sends each uploaded object's upload time (nanoseconds from the start of its encoding and PUT,
     * or multipart upload, until object storage has it) to {@code recorder}; called on object
     * storage's threads, so it must be quick and must not block. Replaces any earlier one.
     */
    public void uploadLatencyTo(LongConsumer recorder) {
        this.uploadLatency = recorder == null ? NONE : recorder;
    }

    /** Sends each uploaded object's size in bytes to {@code recorder} (same threads and rules as above). */
    public void objectSizeTo(LongConsumer recorder) {
        this.objectSize = recorder == null ? NONE : recorder;
    }

    void recordUpload(long bytes, long nanos) {
        uploads.increment();
        uploadBytes.add(bytes);
        uploadLatency.accept(nanos);
        objectSize.accept(bytes);
    }

    void recordUploadFailure() {
        uploadFailures.increment();
    }

    void recordBlockCacheHit() {
        blockCacheHits.increment();
    }

    void recordBlockCacheMiss() {
        blockCacheMisses.increment();
    }

    void recordReadahead(long bytes) {
        readaheadRequests.increment();
        readaheadBytes.add(bytes);
    }

    /** Objects uploaded (sealed log-cache blocks and WAL recoveries; compaction's are in its stats). */
    public long uploads() {
        return uploads.sum();
    }

    /** Bytes of the objects uploaded, as stored. */
    public long uploadBytes() {
        return uploadBytes.sum();
    }

    /** Object uploads that failed (each is retried; see UploadRetries). */
    public long uploadFailures() {
        return uploadFailures.sum();
    }

    /** Data blocks a fetch found in the block cache or already prefetched. */
    public long blockCacheHits() {
        return blockCacheHits.sum();
    }

    /** Data blocks a fetch had to read from object storage. */
    public long blockCacheMisses() {
        return blockCacheMisses.sum();
    }

    /** Ranged GETs readahead issued. */
    public long readaheadRequests() {
        return readaheadRequests.sum();
    }

    /** Bytes of the data blocks readahead requested. */
    public long readaheadBytes() {
        return readaheadBytes.sum();
    }

    @Override
    public String toString() {
        return "uploads=" + uploads() + " uploadBytes=" + uploadBytes() + " uploadFailures=" + uploadFailures()
                + " blockCacheHits=" + blockCacheHits() + " blockCacheMisses=" + blockCacheMisses()
                + " readaheadRequests=" + readaheadRequests() + " readaheadBytes=" + readaheadBytes();
    }
}
