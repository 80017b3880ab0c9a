package io.aloft.broker.log;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordsSend;

/**
 * Whole stored batches answering a fetch, by reference: each is a read-only view of the payload
 * the stream store holds (its log cache or block cache), which is never modified and which
 * readers may keep (see {@code FetchResult}). The broker's response writer sends these views as
 * they are, so a fetched byte is not copied between the store and the socket; only code that
 * wants one buffer ({@link #toMemoryRecords()}: the group coordinator's replay, tests) pays for a copy.
 *
 * <p>Immutable; the copy is made at most once and may be made by any thread.
 */
public final class BatchRecords implements BaseRecords {
    public static final BatchRecords EMPTY = new BatchRecords(List.of());

    private final List<ByteBuffer> batches;
    private final int size;
    private volatile MemoryRecords joined;

    /** @param batches whole Kafka record batches, in offset order; each buffer from position to limit */
    BatchRecords(List<ByteBuffer> batches) {
        this.batches = List.copyOf(batches);
        int total = 0;
        for (ByteBuffer b : this.batches) {
            total = Math.addExact(total, b.remaining());
        }
        this.size = total;
    }

    @Override
    public int sizeInBytes() {
        return size;
    }

    /** How many batches there are. */
    public int batchCount() {
        return batches.size();
    }

    /**
     * Batches {@code from} (inclusive) to {@code to} (exclusive), by reference as these are (a share
     * partition sends only the batches holding the records it acquired).
     */
    public BatchRecords slice(int from, int to) {
        return from == 0 && to == batches.size() ? this : new BatchRecords(batches.subList(from, to));
    }

    /** The batches' bytes, each a fresh read-only view the caller may consume. */
    public ByteBuffer[] buffers() {
        ByteBuffer[] out = new ByteBuffer[batches.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = batches.get(i).asReadOnlyBuffer();
        }
        return out;
    }

    /** The batches in one buffer, copied once and kept. */
    public MemoryRecords toMemoryRecords() {
        MemoryRecords m = joined;
        if (m == null) {
            if (batches.isEmpty()) {
                m = MemoryRecords.EMPTY;
            } else {
                ByteBuffer out = ByteBuffer.allocate(size);
                batches.forEach(b -> out.put(b.duplicate()));
                m = MemoryRecords.readableRecords(out.flip());
            }
            joined = m;
        }
        return m;
    }

    /** Kafka's own senders (not the broker's response path, which sends {@link #buffers()}) get the copy. */
    @Override
    public RecordsSend<? extends BaseRecords> toSend() {
        return toMemoryRecords().toSend();
    }

    @Override
    public String toString() {
        return "BatchRecords(" + batches.size() + " batches, " + size + " bytes)";
    }
}
