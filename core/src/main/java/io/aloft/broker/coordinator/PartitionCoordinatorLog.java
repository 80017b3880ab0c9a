package io.aloft.broker.coordinator;

import io.aloft.broker.log.LogReadResult;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.log.PartitionLogException;
import io.aloft.broker.partition.PartitionManager;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * A {@link CoordinatorLog} on the partitions of a coordinator's internal topic, stored like any
 * other partition: each {@link #append} becomes one uncompressed record batch (so the records of
 * one call are durable together or not at all) whose records carry the serde's key and value.
 *
 * <p>Ordering comes from {@link PartitionManager#append}, which submits appends to one partition in
 * call order; the partition log acknowledges them in offset order. The acknowledgements arrive on
 * the stream store's threads; the runtime only hands them to the shard's thread from there, so no
 * coordinator code runs on the store's threads.
 *
 * <p>Replay reads the partition from its log start to its high watermark, so it must run on a
 * thread that may block (the runtime loads partitions off the network threads).
 *
 * <p>Thread-safe.
 *
 * @param <R> the record type
 */
public class PartitionCoordinatorLog<R> implements CoordinatorLog<R> {

    /** Bytes asked for per read during replay; a larger batch is still returned whole. */
    static final int REPLAY_READ_BYTES = 1 << 20;
    /** How long one replay read may take before loading the partition is given up. */
    static final long REPLAY_READ_TIMEOUT_MS = 60_000;

    private final PartitionManager partitions;
    private final String topic;
    private final CoordinatorRecordSerde<R> serde;
    private final LongSupplier clock;

    /** @param clock the records' timestamps */
    public PartitionCoordinatorLog(PartitionManager partitions, String topic, CoordinatorRecordSerde<R> serde,
            LongSupplier clock) {
        this.partitions = partitions;
        this.topic = topic;
        this.serde = serde;
        this.clock = clock;
    }

    /**
     * Appends the records as one batch. A failure carries the Kafka exception of the partition log's
     * error code, so a coordinator can tell "no longer the leader" (NOT_COORDINATOR for the client)
     * from a batch that is too large.
     */
    @Override
    public CompletableFuture<Void> append(int partition, List<R> records) {
        if (records.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        long now = clock.getAsLong();
        SimpleRecord[] encoded = new SimpleRecord[records.size()];
        for (int i = 0; i < encoded.length; i++) {
            R r = records.get(i);
            encoded[i] = new SimpleRecord(now, serde.key(r), serde.value(r));
        }
        MemoryRecords batch = MemoryRecords.withRecords(Compression.NONE, encoded);
        return partitions.append(new TopicPartition(topic, partition), batch).handle((result, error) -> {
            if (error != null) {
                throw new CompletionException(asKafkaException(error));
            }
            return null;
        });
    }

    /**
     * Reads every record from the log start to the high watermark as of when replay starts, blocking
     * the calling thread. Records appended meanwhile are not the coordinator's concern: it owns the
     * partition only after loading, so nothing of its own is being appended yet.
     *
     * @throws PartitionLogException if the log cannot be opened or read (NOT_LEADER_OR_FOLLOWER when
     *     another broker leads the partition)
     */
    @Override
    public void replay(int partition, Consumer<R> sink) {
        TopicPartition tp = new TopicPartition(topic, partition);
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
                        sink.accept(serde.decode(bytes(r.key()), r.hasValue() ? bytes(r.value()) : null));
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
            return null;
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

    /** The partition log's failure as the Kafka exception of its code (what coordinators map from). */
    private static Throwable asKafkaException(Throwable error) {
        Throwable cause = unwrap(error);
        if (cause instanceof PartitionLogException ple) {
            return ple.error().exception(ple.getMessage());
        }
        return cause;
    }
}
