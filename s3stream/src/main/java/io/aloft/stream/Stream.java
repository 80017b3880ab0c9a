package io.aloft.stream;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * An append-only sequence of batches addressed by logical offsets: a batch of {@code count}
 * records takes {@code count} offsets. Data is durable in the write-ahead log when an append
 * completes, and moves to object storage in the background.
 *
 * <p>A stream is opened with an epoch; once another owner opens it with a higher epoch, this
 * handle is fenced and its operations fail with {@link StreamFencedException}.
 *
 * <p>Thread-safe. Appends to one stream are ordered by the order of {@link #append} calls.
 */
public interface Stream {
    long streamId();

    long epoch();

    /** First readable offset (moves with {@link #trim}). */
    long startOffset();

    /** Offset just past the last durable batch: readers see data below it. */
    long confirmOffset();

    /**
     * Offset just past the data committed to object storage, as far as this handle knows: below it
     * the stream's data no longer depends on a write-ahead log.
     */
    long committedOffset();

    /** Offset the next append will take. */
    long nextOffset();

    /**
     * Appends a batch. The payload is copied before this method returns (the caller keeps it).
     *
     * @return a future of the batch's base offset, completing once the batch and every earlier
     *     batch of this stream are durable
     */
    CompletableFuture<Long> append(ByteBuffer payload, int count);

    /**
     * Whether to append {@code bytes} now: false while object storage (or metadata) is failing and
     * the memory for data not yet uploaded is nearly full, when an append would wait for room and,
     * if the outage lasts, fail with {@link StreamStoreFullException}. A caller that cannot take an
     * append back once issued (a Kafka partition log moves its offsets and producer state first)
     * asks before appending and refuses with a retriable error instead. Advisory: concurrent
     * appends may take the room meanwhile, which the store keeps some headroom for. Thread-safe.
     */
    default boolean admits(int bytes) {
        return true;
    }

    /**
     * Reads batches from {@code startOffset} (inclusive) towards {@code endOffset} (exclusive),
     * stopping once {@code maxBytes} are collected; at least one batch is returned when any data
     * exists at {@code startOffset}, however large. The first batch may begin before
     * {@code startOffset} (batches are never split).
     *
     * <p>Fails with {@link StreamOffsetOutOfRangeException} if {@code startOffset} is below the
     *     start offset or beyond the confirm offset
     */
    CompletableFuture<FetchResult> fetch(long startOffset, long endOffset, int maxBytes);

    /** Moves the start offset forward; data below it is released. */
    CompletableFuture<Void> trim(long newStartOffset);

    /** Uploads this stream's data still in the log cache, and closes the stream in metadata. */
    CompletableFuture<Void> close();
}
