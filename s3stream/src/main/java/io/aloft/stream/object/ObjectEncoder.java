package io.aloft.stream.object;

import static io.aloft.stream.object.ObjectFormat.BLOCK_HEADER_SIZE;

import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.metadata.StreamRange;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The encoding engine shared by {@link ObjectWriter} and {@link ObjectUploader}: checks batch
 * order, cuts blocks, builds the index and footer, and hands finished bytes to a {@link Sink} in
 * object order.
 *
 * <p>Confined to one thread at a time (externally synchronized).
 */
final class ObjectEncoder {

    /** Receives the object's bytes in order. */
    interface Sink {
        /**
         * Appends {@code bytes}' remaining bytes to the object. Borrows the buffer for the call
         * only: the encoder reuses it afterwards, so the sink copies what it keeps.
         */
        void write(ByteBuffer bytes);
    }

    private final long objectId;
    private final int blockSize;
    private final Sink sink;

    /**
     * Sizing only ({@link #plan}): the same cuts and index, but no bytes, CRCs or sink. Sharing the
     * code that cuts blocks is what makes a plan's size the encoding's size, byte for byte.
     */
    private final boolean dry;
    /** Block being filled: header space, then the body written so far. Reused across blocks; null when dry. */
    private ByteBuffer block;
    /** Header plus body bytes of the open block (the block buffer's position when not dry). */
    private int blockLength = BLOCK_HEADER_SIZE;
    private int blockBatches;
    private long blockStreamId;
    private long blockStart;

    /** Bytes already handed to the sink. */
    private long written;
    private final List<DataBlockIndex> index = new ArrayList<>();
    private final List<StreamRange> ranges = new ArrayList<>();

    /** The stream written last, and where it must continue; {@code streamStart < 0} before any batch. */
    private long streamId;
    private long streamStart = -1;
    private long nextOffset;
    private long streamEpoch;

    private boolean finished;

    ObjectEncoder(long objectId, ObjectWriterConfig config, Sink sink) {
        this(objectId, config, sink, false);
    }

    private ObjectEncoder(long objectId, ObjectWriterConfig config, Sink sink, boolean dry) {
        if (objectId < 0) {
            throw new IllegalArgumentException("object ids are not negative, got " + objectId);
        }
        this.objectId = objectId;
        this.blockSize = config.blockSize();
        this.sink = sink;
        this.dry = dry;
        this.block = dry ? null : newBlockBuffer(blockSize);
    }

    /**
     * What encoding {@code batches} (in the order {@link ObjectWriter} describes) as object
     * {@code objectId} produces, without encoding them: the exact size and the stream ranges.
     * Costs a pass over the batch headers, no payload byte is read.
     *
     * @throws IllegalArgumentException if the batches are out of order, as {@link #write} would
     */
    static ObjectSummary plan(long objectId, ObjectWriterConfig config, Iterable<StreamRecordBatch> batches) {
        ObjectEncoder dry = new ObjectEncoder(objectId, config, null, true);
        for (StreamRecordBatch batch : batches) {
            dry.write(batch);
        }
        return dry.finish();
    }

    long objectId() {
        return objectId;
    }

    /** Bytes encoded so far: finished blocks and the open one, not yet the index and footer. */
    long size() {
        return written + (blockBatches > 0 ? blockLength : 0);
    }

    /**
     * Encodes one batch; its payload is copied, so the batch may be dropped once this returns.
     *
     * @throws IllegalArgumentException if the batch does not continue the object's order: a
     *     stream id lower than the previous batch's, or in the same stream a base offset other
     *     than where the previous batch ended, or a lower epoch
     * @throws IllegalStateException after {@link #finish()}
     */
    void write(StreamRecordBatch batch) {
        if (finished) {
            throw new IllegalStateException("object " + objectId + " is already finished");
        }
        checkOrder(batch);
        int payloadLength = batch.size();
        long encoded = ObjectFormat.encodedBatchSize(payloadLength);
        if ((long) BLOCK_HEADER_SIZE + encoded > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("batch of stream " + batch.streamId() + " at offset "
                    + batch.baseOffset() + " has " + payloadLength + " bytes, too big for one block");
        }
        if (blockBatches > 0 && (batch.streamId() != blockStreamId || blockLength + encoded > blockSize)) {
            sealBlock();
        }
        if (batch.streamId() != streamId || streamStart < 0) {
            closeRange();
            streamId = batch.streamId();
            streamStart = batch.baseOffset();
        }
        if (blockBatches == 0) {
            blockStreamId = batch.streamId();
            blockStart = batch.baseOffset();
        }
        if (!dry) {
            ensureRoom((int) encoded);
            block.putLong(batch.baseOffset())
                    .putInt(batch.count())
                    .putLong(batch.epoch())
                    .putInt(payloadLength)
                    .put(batch.payloadView());
        }
        blockLength += (int) encoded;
        blockBatches++;
        nextOffset = batch.lastOffsetExclusive();
        streamEpoch = batch.epoch();
        if (blockLength >= blockSize) {
            sealBlock(); // exactly full, or one batch bigger than the target: keep it alone
        }
    }

    /**
     * Writes the last block, the index and the footer.
     *
     * @throws IllegalStateException if already finished
     */
    ObjectSummary finish() {
        if (finished) {
            throw new IllegalStateException("object " + objectId + " is already finished");
        }
        finished = true;
        if (blockBatches > 0) {
            sealBlock();
        }
        closeRange();
        block = null;
        long indexPosition = written;
        int indexLength = Math.toIntExact(ObjectFormat.INDEX_HEADER_SIZE + (long) ObjectFormat.ENTRY_SIZE * index.size());
        if (dry) {
            written += indexLength + ObjectFormat.FOOTER_SIZE;
            return new ObjectSummary(objectId, written, ranges);
        }
        ByteBuffer tail = ByteBuffer.allocate(indexLength + ObjectFormat.FOOTER_SIZE);
        tail.putInt(ObjectFormat.INDEX_MAGIC).putInt(0).putInt(index.size());
        for (DataBlockIndex entry : index) {
            ObjectFormat.putEntry(tail, entry);
        }
        tail.putInt(ObjectFormat.INDEX_CRC_OFFSET,
                ObjectFormat.crc32c(tail, ObjectFormat.INDEX_CRC_START, indexLength - ObjectFormat.INDEX_CRC_START));
        tail.putLong(indexPosition).putInt(indexLength).putInt(ObjectFormat.VERSION).putLong(ObjectFormat.FOOTER_MAGIC);
        tail.flip();
        emit(tail);
        return new ObjectSummary(objectId, written, ranges);
    }

    private void checkOrder(StreamRecordBatch batch) {
        if (streamStart < 0) {
            return;
        }
        if (batch.streamId() < streamId) {
            throw new IllegalArgumentException("object " + objectId + ": stream " + batch.streamId()
                    + " written after stream " + streamId + "; streams must come in ascending id order");
        }
        if (batch.streamId() > streamId) {
            return;
        }
        if (batch.baseOffset() != nextOffset) {
            throw new IllegalArgumentException("object " + objectId + ": stream " + streamId + " batch at offset "
                    + batch.baseOffset() + " does not continue at " + nextOffset + " ("
                    + (batch.baseOffset() > nextOffset ? "gap" : "overlap or out of order") + ")");
        }
        if (batch.epoch() < streamEpoch) {
            throw new IllegalArgumentException("object " + objectId + ": stream " + streamId + " batch at offset "
                    + batch.baseOffset() + " has epoch " + batch.epoch() + ", lower than the previous batch's "
                    + streamEpoch);
        }
    }

    private void closeRange() {
        if (streamStart >= 0) {
            ranges.add(new StreamRange(streamId, streamEpoch, streamStart, nextOffset));
        }
    }

    private void sealBlock() {
        int size = blockLength;
        if (dry) {
            index.add(new DataBlockIndex(blockStreamId, blockStart, nextOffset, streamEpoch, written, size,
                    blockBatches));
            written += size;
            blockBatches = 0;
            blockLength = BLOCK_HEADER_SIZE;
            return;
        }
        block.putInt(ObjectFormat.BLOCK_MAGIC_OFFSET, ObjectFormat.BLOCK_MAGIC)
                .put(ObjectFormat.BLOCK_VERSION_OFFSET, ObjectFormat.VERSION)
                .putLong(ObjectFormat.BLOCK_STREAM_ID_OFFSET, blockStreamId)
                .putLong(ObjectFormat.BLOCK_START_OFFSET_OFFSET, blockStart)
                .putLong(ObjectFormat.BLOCK_END_OFFSET_OFFSET, nextOffset)
                .putInt(ObjectFormat.BLOCK_BATCH_COUNT_OFFSET, blockBatches)
                .putInt(ObjectFormat.BLOCK_BODY_LENGTH_OFFSET, size - BLOCK_HEADER_SIZE);
        block.putInt(ObjectFormat.BLOCK_CRC_OFFSET,
                ObjectFormat.crc32c(block, ObjectFormat.BLOCK_CRC_START, size - ObjectFormat.BLOCK_CRC_START));
        index.add(new DataBlockIndex(blockStreamId, blockStart, nextOffset, streamEpoch, written, size, blockBatches));
        emit(block.flip());
        blockBatches = 0;
        blockLength = BLOCK_HEADER_SIZE;
        if (block.capacity() > 2 * blockSize) {
            block = newBlockBuffer(blockSize); // a huge batch grew it; do not keep that memory
        } else {
            block.clear().position(BLOCK_HEADER_SIZE);
        }
    }

    private void emit(ByteBuffer bytes) {
        written += bytes.remaining();
        sink.write(bytes);
    }

    private void ensureRoom(int bytes) {
        if (block.remaining() >= bytes) {
            return;
        }
        long needed = (long) block.position() + bytes;
        int capacity = (int) Math.min(Integer.MAX_VALUE, Math.max(needed, Math.min(2L * block.capacity(),
                Integer.MAX_VALUE)));
        ByteBuffer bigger = ByteBuffer.allocate(capacity);
        bigger.put(block.flip());
        block = bigger;
    }

    private static ByteBuffer newBlockBuffer(int blockSize) {
        return ByteBuffer.allocate(blockSize).position(BLOCK_HEADER_SIZE);
    }
}
