package io.aloft.broker.group;

import io.aloft.broker.log.LogReadResult;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.log.PartitionLogException;
import io.aloft.broker.partition.PartitionManager;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * A {@link GroupLog} on the partitions of the internal topic {@code __consumer_offsets}, stored
 * like any other partition: each {@link #append} becomes one uncompressed record batch (so the
 * records of one call are durable together or not at all) whose records carry
 * {@link GroupRecordCodec}'s key and value, a null value being a tombstone.
 *
 * <p>Ordering comes from {@link PartitionManager#append}, which submits appends to one partition
 * in call order; the partition log then acknowledges them in offset order. Those acknowledgements
 * arrive on the stream store's threads, which may hold the store's locks, while the coordinator's
 * continuations take group locks and may append again (taking the partition log's lock); so
 * append futures are completed on this class's one thread ({@code aloft-group-log}) instead. One
 * thread, fed in acknowledgement order, keeps completions of a partition in call order.
 *
 * <p>Replay reads the partition from its log start to its high watermark, so it must run on a
 * thread that may block (the coordinator loads partitions off the network threads).
 *
 * <p>Thread-safe.
 */
public final class PartitionGroupLog implements GroupLog, AutoCloseable {

    /** The internal topic, under Kafka's name so tools that hide internal topics hide it too. */
    public static final String TOPIC = Topic.GROUP_METADATA_TOPIC_NAME;

    /** Bytes asked for per read during replay; a larger batch is still returned whole. */
    static final int REPLAY_READ_BYTES = 1 << 20;
    /** How long one replay read may take before loading the partition is given up. */
    static final long REPLAY_READ_TIMEOUT_MS = 60_000;

    private final PartitionManager partitions;
    private final LongSupplier clock;
    private final ExecutorService completions;

    public PartitionGroupLog(PartitionManager partitions, LongSupplier clock) {
        this(partitions, clock, r -> {
            Thread t = new Thread(r, "aloft-group-log");
            t.setDaemon(true);
            return t;
        });
    }

    /** With the broker's thread factory (its name and uncaught-exception handler). */
    public PartitionGroupLog(PartitionManager partitions, LongSupplier clock, java.util.concurrent.ThreadFactory threads) {
        this.partitions = partitions;
        this.clock = clock;
        this.completions = Executors.newSingleThreadExecutor(threads);
    }

    /**
     * Appends the records as one batch. A failure carries the Kafka exception of the partition
     * log's error code, so the coordinator can tell "no longer the leader" (NOT_COORDINATOR for
     * the client) from a batch that is too large (INVALID_COMMIT_OFFSET_SIZE).
     */
    @Override
    public CompletableFuture<Void> append(int partition, List<GroupRecord> records) {
        if (records.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        long now = clock.getAsLong();
        SimpleRecord[] encoded = new SimpleRecord[records.size()];
        for (int i = 0; i < encoded.length; i++) {
            GroupRecord r = records.get(i);
            encoded[i] = new SimpleRecord(now, GroupRecordCodec.key(r), GroupRecordCodec.value(r));
        }
        MemoryRecords batch = MemoryRecords.withRecords(Compression.NONE, encoded);
        return partitions.append(new TopicPartition(TOPIC, partition), batch).handleAsync((result, error) -> {
            if (error != null) {
                throw new CompletionException(asKafkaException(error));
            }
            return null;
        }, this::complete);
    }

    private void complete(Runnable completion) {
        try {
            completions.execute(completion);
        } catch (RejectedExecutionException e) {
            // Closing: the broker is stopping, and completing on the store's thread beats never.
            completion.run();
        }
    }

    /**
     * Reads every record from the log start to the high watermark as of when replay starts,
     * blocking the calling thread. Records appended meanwhile are not the coordinator's concern:
     * it owns the partition only after loading, so nothing of its own is being appended yet.
     *
     * @throws PartitionLogException if the log cannot be opened or read (NOT_LEADER_OR_FOLLOWER when
     *     another broker leads the partition)
     * @throws CorruptGroupRecordException if a record does not decode
     */
    @Override
    public void replay(int partition, Consumer<GroupRecord> sink) {
        TopicPartition tp = new TopicPartition(TOPIC, partition);
        PartitionLog log = await(partitions.leaderLog(tp), tp);
        long offset = log.logStartOffset();
        long end = log.highWatermark();
        while (offset < end) {
            LogReadResult read = await(log.read(offset, REPLAY_READ_BYTES, true), tp);
            long next = offset;
            for (RecordBatch batch : read.records().batches()) {
                for (Record r : batch) {
                    // The first batch may start below the offset asked for (after DeleteRecords).
                    if (r.offset() >= offset) {
                        sink.accept(GroupRecordCodec.decode(bytes(r.key()), r.hasValue() ? bytes(r.value()) : null));
                    }
                }
                next = batch.nextOffset();
            }
            if (next <= offset) {
                throw new PartitionLogException(Errors.UNKNOWN_SERVER_ERROR, tp + ": a read at offset " + offset
                        + " below the high watermark " + end + " returned nothing");
            }
            offset = next;
        }
    }

    private static byte[] bytes(ByteBuffer buffer) {
        if (buffer == null) {
            // Every group record has a key; a keyless one was not written by this class.
            throw new CorruptGroupRecordException("group record without a key");
        }
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    private static <T> T await(CompletableFuture<T> future, TopicPartition tp) {
        try {
            return future.get(REPLAY_READ_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PartitionLogException(Errors.UNKNOWN_SERVER_ERROR, tp + ": interrupted while loading", e);
        } catch (TimeoutException e) {
            throw new PartitionLogException(Errors.REQUEST_TIMED_OUT, tp + ": a read took over "
                    + REPLAY_READ_TIMEOUT_MS + " ms while loading", e);
        } catch (ExecutionException e) {
            Throwable cause = unwrap(e);
            if (cause instanceof PartitionLogException ple) {
                throw ple;
            }
            throw new PartitionLogException(Errors.UNKNOWN_SERVER_ERROR, tp + ": loading failed", cause);
        }
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Stops the completion thread; appends completing later complete on the store's thread. */
    @Override
    public void close() {
        completions.shutdown();
    }

    /** The partition log's failure as the Kafka exception of its code (what the coordinator maps from). */
    private static Throwable asKafkaException(Throwable error) {
        Throwable cause = unwrap(error);
        if (cause instanceof PartitionLogException ple) {
            return ple.error().exception(ple.getMessage());
        }
        return cause;
    }
}
