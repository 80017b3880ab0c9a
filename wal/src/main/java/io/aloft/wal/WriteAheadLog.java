package io.aloft.wal;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;

/**
 * A durable, bounded write-ahead log of opaque records.
 *
 * <p>Records are addressed by <em>logical offsets</em>: byte positions in an ever-growing address
 * space that the implementation maps onto a fixed-size ring. An offset identifies one record for
 * the lifetime of the log; offsets increase in the order appends were accepted.
 *
 * <p>Thread-safe: every method may be called from any thread. Futures complete on the log's own
 * threads (for appends, one thread completes them all, in offset order); callbacks attached to
 * them must not block and should only hand work over to the caller's own executor, as the
 * stream store does, or every later completion waits behind them.
 */
public interface WriteAheadLog extends AutoCloseable {

    /**
     * Appends one record.
     *
     * <p>The log copies the bytes between {@code record.position()} and {@code record.limit()}
     * before this method returns; it never moves the caller's position and keeps no reference to
     * the buffer (the caller keeps ownership).
     *
     * @return a future completing with the record's logical offset once the record, and every
     *     record accepted before it, is durable; completing exceptionally with {@link WalFullException}
     *     if the log stayed full for longer than {@code wal.append.timeout.ms}, with
     *     {@link IllegalArgumentException} if the record can never fit, or with
     *     {@link WalClosedException} once the log is closed
     */
    CompletableFuture<Long> append(ByteBuffer record);

    /**
     * Returns the records found durable when the log was opened, from the trim point on, in
     * offset order. Each record passed every check (magic, offset, CRC32C); the scan stops at the
     * first that did not. Iterate before trimming past the records you still need; the iterator
     * reads the device lazily and is not thread-safe.
     */
    Iterator<WalRecord> recover();

    /**
     * Declares that records at offsets below {@code offset} are no longer needed. Their space is
     * reused only after the new trim point is durable, which the returned future signals.
     *
     * <p>Space is released a write at a time: pass the offset of the first record still needed
     * (or {@link #nextOffset()} when none is), so every write wholly below it is freed.
     *
     * @param offset a logical offset no greater than {@link #nextOffset()}; lower than the current
     *     trim point is a no-op
     */
    CompletableFuture<Void> trim(long offset);

    /**
     * Discards every record: waits for appends already accepted to become durable, then trims to
     * the end of the log.
     */
    CompletableFuture<Void> reset();

    /** The logical offset the next accepted append will be placed at or after. */
    long nextOffset();

    /** The current durable trim point: records below it may be gone. */
    long trimOffset();

    /** Bytes of the ring available to records (the configured capacity less the headers). */
    long capacity();

    /** Bytes of the ring currently holding untrimmed records, padding included. */
    long usedBytes();

    /** Running counters for monitoring. */
    WalStats stats();

    /**
     * Stops accepting appends, waits for those already accepted to become durable (or fail), and
     * releases the device. Idempotent.
     */
    @Override
    void close();
}
