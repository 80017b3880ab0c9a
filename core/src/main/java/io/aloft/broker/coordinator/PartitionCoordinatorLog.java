package io.aloft.broker.coordinator;

import io.aloft.broker.log.LogReadResult;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.log.PartitionLogException;
import io.aloft.broker.log.VerificationGuard;
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
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * A {@link CoordinatorLog} on the partitions of a coordinator's internal topic, stored like any
 * other partition: each {@link #append} becomes one uncompressed record batch (so the records of
 * one call are durable together or not at all) whose records carry the serde's key and value.
 * Records of a producer's transaction ({@link CoordinatorRecordSerde#producerOf}) go in a
 * transactional batch of that producer, appended as the coordinator's own (no sequence checks); a
 * {@link TransactionMarker} is appended alone, as the partition's control batch, with the
 * partition's marker checks (a stale producer epoch, a fenced coordinator epoch). Replay hands
 * each back through the serde with what its batch says.
 *
 * <p>Appends are fenced by leader epoch: each is refused (NOT_LEADER_OR_FOLLOWER) unless the
 * partition's log is still at the leader epoch of the last replay, the one the coordinator's state
 * was loaded at. A partition that moved away and back is at a higher epoch; the coordinator must
 * load it again before it writes there.
 *
 * <p>Ordering comes from {@link PartitionManager#appendAtLeaderEpoch}, which submits appends to one partition in
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
    /**
     * The transaction version of the markers a coordinator writes into its partition: every
     * transaction here is version 1 (no handler speaks version 2 yet), as in LocalTransactionMarkers.
     */
    static final short TRANSACTION_VERSION = 1;
    /** How long one replay read may take before loading the partition is given up. */
    static final long REPLAY_READ_TIMEOUT_MS = 60_000;

    private final PartitionManager partitions;
    private final String topic;
    private final CoordinatorRecordSerde<R> serde;
    private final LongSupplier clock;
    /** Each partition's leader epoch at its last replay: its appends must find the log still at it. */
    private final java.util.Map<Integer, Integer> loadedAt = new java.util.concurrent.ConcurrentHashMap<>();

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
        return append(partition, records, null);
    }

    /** {@link #append(int, List)}; a producer's transactional batch with {@code guard} (see {@link CoordinatorLog}). */
    @Override
    public CompletableFuture<Void> append(int partition, List<R> records, VerificationGuard guard) {
        if (records.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        TopicPartition tp = new TopicPartition(topic, partition);
        Integer leaderEpoch = loadedAt.get(partition);
        if (leaderEpoch == null) {
            return CompletableFuture.failedFuture(new CompletionException(Errors.NOT_LEADER_OR_FOLLOWER.exception(
                    tp + " was never loaded here")));
        }
        TransactionMarker marker = serde.markerOf(records.get(0));
        if (marker != null) {
            if (records.size() != 1) {
                throw new IllegalArgumentException("a transaction marker is appended alone, not with "
                        + (records.size() - 1) + " other records");
            }
            return failuresAsKafkaExceptions(partitions.appendAtLeaderEpoch(tp, leaderEpoch, log -> log.appendMarker(
                    marker.producerId(), marker.producerEpoch(), marker.coordinatorEpoch(), marker.commit(),
                    TRANSACTION_VERSION)));
        }
        long now = clock.getAsLong();
        TransactionalProducer producer = serde.producerOf(records.get(0));
        SimpleRecord[] encoded = new SimpleRecord[records.size()];
        for (int i = 0; i < encoded.length; i++) {
            R r = records.get(i);
            if (!java.util.Objects.equals(serde.producerOf(r), producer) || serde.markerOf(r) != null) {
                throw new IllegalArgumentException("the records of one append must all be plain, or all of one "
                        + "producer's transaction");
            }
            encoded[i] = new SimpleRecord(now, serde.key(r), serde.value(r));
        }
        if (producer != null) {
            // A coordinator's own batch of the producer's transaction: no sequence of the producer's own.
            MemoryRecords batch = MemoryRecords.withTransactionalRecords(Compression.NONE, producer.producerId(),
                    producer.producerEpoch(), 0, encoded);
            return failuresAsKafkaExceptions(partitions.appendAtLeaderEpoch(tp, leaderEpoch,
                    log -> log.appendAsCoordinator(batch, guard)));
        }
        MemoryRecords batch = MemoryRecords.withRecords(Compression.NONE, encoded);
        return failuresAsKafkaExceptions(partitions.appendAtLeaderEpoch(tp, leaderEpoch, log -> log.append(batch)));
    }

    @Override
    public CompletableFuture<VerificationGuard> startTransactionVerification(int partition, long producerId,
            short producerEpoch) {
        return partitions.startTransactionVerification(new TopicPartition(topic, partition), producerId,
                producerEpoch).handle((guard, error) -> {
                    if (error != null) {
                        throw new CompletionException(asKafkaException(error));
                    }
                    return guard;
                });
    }

    private static CompletableFuture<Void> failuresAsKafkaExceptions(CompletableFuture<?> append) {
        return append.handle((result, error) -> {
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
        loadedAt.put(partition, log.leaderEpoch());
        long offset = log.logStartOffset();
        long end = log.highWatermark();
        while (offset < end) {
            LogReadResult read = await(log.read(offset, REPLAY_READ_BYTES, true), tp);
            long next = offset;
            for (RecordBatch batch : read.records().batches()) {
                TransactionalProducer producer = batch.isTransactional()
                        ? new TransactionalProducer(batch.producerId(), batch.producerEpoch()) : null;
                for (Record r : batch) {
                    // The first batch may start below the offset asked for (after DeleteRecords).
                    if (r.offset() < offset) {
                        continue;
                    }
                    R decoded = batch.isControlBatch() ? marker(batch, r)
                            : producer != null ? serde.decodeTransactional(producer, bytes(r.key()),
                                    r.hasValue() ? bytes(r.value()) : null)
                            : serde.decode(bytes(r.key()), r.hasValue() ? bytes(r.value()) : null);
                    if (decoded != null) {
                        sink.accept(decoded);
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

    /** The coordinator's record of a control batch's record: a transaction marker, or null (skipped). */
    private R marker(RecordBatch batch, Record r) {
        ControlRecordType type = ControlRecordType.parse(r.key());
        if (type != ControlRecordType.COMMIT && type != ControlRecordType.ABORT) {
            return null; // not a transaction marker (Kafka's other control records are the raft layer's)
        }
        EndTransactionMarker m = EndTransactionMarker.deserialize(r);
        return serde.decodeMarker(new TransactionMarker(batch.producerId(), batch.producerEpoch(),
                m.coordinatorEpoch(), type == ControlRecordType.COMMIT));
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
