package io.aloft.broker.log;

import io.aloft.stream.FetchResult;
import io.aloft.stream.Stream;
import io.aloft.stream.StreamFencedException;
import io.aloft.stream.StreamOffsetOutOfRangeException;
import io.aloft.stream.StreamRecordBatch;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Reading a partition's stored batches back from its records stream: building a fetch answer,
 * scanning records (timestamp lookups), and naming read failures with Kafka errors.
 *
 * <p>Stateless.
 */
final class StoredRecords {
    /** Bytes read per fetch while scanning. */
    static final int SCAN_FETCH_BYTES = 256 * 1024;

    private StoredRecords() {
    }

    /**
     * Batches selected for a fetch.
     *
     * @param endOffset offset just past the last batch selected (the fetch offset when none is)
     */
    record Selected(BatchRecords batches, long endOffset) {
    }

    /**
     * Whole batches within {@code maxBytes} (the first regardless, with {@code minOneMessage}), by
     * reference: nothing is copied (see {@link BatchRecords}).
     */
    static Selected select(FetchResult fetched, long fetchOffset, int maxBytes, boolean minOneMessage) {
        List<ByteBuffer> taken = new ArrayList<>();
        int total = 0;
        long end = fetchOffset;
        for (StreamRecordBatch b : fetched.batches()) {
            if (total + b.size() > maxBytes && !(taken.isEmpty() && minOneMessage)) {
                break;
            }
            taken.add(b.payloadView());
            total += b.size();
            end = b.lastOffsetExclusive();
        }
        return new Selected(taken.isEmpty() ? BatchRecords.EMPTY : new BatchRecords(taken), end);
    }

    /** Visits stored records in offset order. */
    interface Visitor {
        /** Whether to look at the batch's records at all (saves decompressing it). */
        boolean wants(RecordBatch batch);

        /** Returns true to stop the scan. */
        boolean visit(RecordBatch batch, Record record);
    }

    /** Visits the records of the batches from {@code from} towards {@code to} until the visitor stops. */
    static CompletableFuture<Void> scan(TopicPartition tp, Stream records, long from, long to, Visitor visitor) {
        if (from >= to) {
            return CompletableFuture.completedFuture(null);
        }
        return records.fetch(from, to, SCAN_FETCH_BYTES).handle((fetched, error) -> {
            if (error != null) {
                throw readError(tp, error);
            }
            return fetched;
        }).thenCompose(fetched -> {
            for (StreamRecordBatch sb : fetched.batches()) {
                RecordBatch batch = PartitionLogLoader.onlyBatch(tp, sb);
                if (visitor.wants(batch)) {
                    for (Record r : batch) {
                        if (visitor.visit(batch, r)) {
                            return CompletableFuture.completedFuture(null);
                        }
                    }
                }
            }
            if (fetched.batches().isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            long next = fetched.batches().get(fetched.batches().size() - 1).lastOffsetExclusive();
            return scan(tp, records, next, to, visitor);
        });
    }

    /** A read failure as the Kafka error a fetch or ListOffsets answers with; the log keeps working. */
    static PartitionLogException readError(TopicPartition tp, Throwable error) {
        Throwable cause = unwrap(error);
        if (cause instanceof PartitionLogException ple) {
            return ple;
        }
        if (cause instanceof StreamOffsetOutOfRangeException) {
            // Retention moved the start between our range check and the stream's.
            return new PartitionLogException(Errors.OFFSET_OUT_OF_RANGE, tp + ": " + cause.getMessage(), cause);
        }
        if (cause instanceof StreamFencedException) {
            return new PartitionLogException(Errors.NOT_LEADER_OR_FOLLOWER, tp + " is owned by a newer epoch", cause);
        }
        return new PartitionLogException(Errors.KAFKA_STORAGE_ERROR, tp + ": read failed: " + cause, cause);
    }

    static Throwable unwrap(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
