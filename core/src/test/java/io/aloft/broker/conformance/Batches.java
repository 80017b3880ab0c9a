package io.aloft.broker.conformance;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Crc32C;

/**
 * Record batches as producers of each generation write them, and as broken ones arrive: old magic,
 * a bad CRC, a client-set base offset, a record count that lies, an unknown codec, timestamps out of
 * range, a batch above {@code max.message.bytes}, a transactional batch. Each call returns a new
 * buffer, so the same batch can go to two brokers.
 *
 * <p>Stateless.
 */
final class Batches {
    /** Fields of a magic-2 batch header (KIP-98 layout). */
    private static final int CRC_OFFSET = 17;
    private static final int ATTRIBUTES_OFFSET = 21;
    private static final int LAST_OFFSET_DELTA_OFFSET = 23;
    private static final int RECORDS_COUNT_OFFSET = 57;

    private Batches() {
    }

    /** {@code count} records, magic 2, no producer id, CreateTime a few seconds ago. */
    static MemoryRecords plain(int count) {
        return build(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, 0, System.currentTimeMillis() - 5_000, count,
                RecordBatch.NO_PRODUCER_ID, (short) -1, -1, false);
    }

    static MemoryRecords compressed(Compression compression, int count) {
        return build(RecordBatch.MAGIC_VALUE_V2, compression, 0, System.currentTimeMillis() - 5_000, count,
                RecordBatch.NO_PRODUCER_ID, (short) -1, -1, false);
    }

    /** Magic 0 or 1 (message sets of clients before Kafka 0.11). */
    static MemoryRecords oldMagic(byte magic, Compression compression) {
        return build(magic, compression, 0, magic == 0 ? RecordBatch.NO_TIMESTAMP : System.currentTimeMillis(), 3,
                RecordBatch.NO_PRODUCER_ID, (short) -1, -1, false);
    }

    static MemoryRecords withBaseOffset(long baseOffset) {
        return build(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, baseOffset, System.currentTimeMillis(), 3,
                RecordBatch.NO_PRODUCER_ID, (short) -1, -1, false);
    }

    static MemoryRecords withTimestamp(long timestamp) {
        return build(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, 0, timestamp, 3, RecordBatch.NO_PRODUCER_ID,
                (short) -1, -1, false);
    }

    static MemoryRecords idempotent(long producerId, short epoch, int firstSequence, int count) {
        return build(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, 0, System.currentTimeMillis(), count, producerId,
                epoch, firstSequence, false);
    }

    static MemoryRecords transactional(long producerId) {
        return build(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, 0, System.currentTimeMillis(), 3, producerId,
                (short) 0, 0, true);
    }

    /** A valid batch whose last byte is changed, so its CRC no longer matches. */
    static MemoryRecords badCrc() {
        MemoryRecords r = plain(3);
        ByteBuffer b = r.buffer();
        b.put(b.limit() - 1, (byte) (b.get(b.limit() - 1) ^ 0x55));
        return r;
    }

    /** A batch whose attributes name compression codec {@code id} (5-7 are not defined), CRC recomputed. */
    static MemoryRecords unknownCodec(int id) {
        MemoryRecords r = plain(3);
        ByteBuffer b = r.buffer();
        b.putShort(ATTRIBUTES_OFFSET, (short) ((b.getShort(ATTRIBUTES_OFFSET) & ~7) | id));
        return resealed(r);
    }

    /** A batch of 3 records that declares {@code declared} records, CRC recomputed. */
    static MemoryRecords recordsCountOf(int declared) {
        MemoryRecords r = plain(3);
        r.buffer().putInt(RECORDS_COUNT_OFFSET, declared);
        return resealed(r);
    }

    /** A batch of 3 records whose last offset delta says otherwise, CRC recomputed. */
    static MemoryRecords lastOffsetDeltaOf(int delta) {
        MemoryRecords r = plain(3);
        r.buffer().putInt(LAST_OFFSET_DELTA_OFFSET, delta);
        return resealed(r);
    }

    /** One record of {@code bytes} bytes of value (above the default max.message.bytes for 1 MiB). */
    static MemoryRecords large(int bytes) {
        ByteBuffer buffer = ByteBuffer.allocate(bytes + 1024);
        MemoryRecordsBuilder b = MemoryRecords.builder(buffer, Compression.NONE, TimestampType.CREATE_TIME, 0);
        b.append(System.currentTimeMillis(), null, new byte[bytes]);
        return b.build();
    }

    private static MemoryRecords resealed(MemoryRecords r) {
        ByteBuffer b = r.buffer();
        b.putInt(CRC_OFFSET, (int) Crc32C.compute(b, ATTRIBUTES_OFFSET, b.limit() - ATTRIBUTES_OFFSET));
        return r;
    }

    private static MemoryRecords build(byte magic, Compression compression, long baseOffset, long timestamp, int count,
            long producerId, short epoch, int sequence, boolean transactional) {
        ByteBuffer buffer = ByteBuffer.allocate(4096);
        MemoryRecordsBuilder b = MemoryRecords.builder(buffer, magic, compression, TimestampType.CREATE_TIME,
                baseOffset, timestamp, producerId, epoch, sequence, transactional,
                RecordBatch.NO_PARTITION_LEADER_EPOCH);
        for (int i = 0; i < count; i++) {
            b.append(timestamp, ("k" + i).getBytes(StandardCharsets.UTF_8), ("v" + i).getBytes(StandardCharsets.UTF_8));
        }
        return b.build();
    }
}
