package io.aloft.broker.share.state;

import io.aloft.broker.coordinator.CoordinatorRecordSerde;
import io.aloft.broker.coordinator.RecordStrings;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;

/**
 * Bytes of a {@link ShareStateRecord} as the key and value of a record in {@code __share_group_state}:
 * the key names the share partition (what compaction goes by), the value is the whole state after a
 * change, versioned; a null value is a tombstone. Kafka's shape (ShareSnapshotKey/Value), Aloft's own
 * layout. Integrity (CRC) comes from the record batch holding these pairs. Big-endian.
 *
 * <pre>
 * string := int16 length, UTF-8 bytes
 *
 * key              := int16 type (0 = share partition), string groupId, int64 topicId most significant
 *                     bits, int64 topicId least significant bits, int32 partition
 * value, version 0 := int8 version, int32 stateEpoch, int32 leaderEpoch, int64 startOffset,
 *                     int32 deliveryCompleteCount, int32 batchCount,
 *                     batchCount x (int64 firstOffset, int64 lastOffset, int8 deliveryState, int16 deliveryCount)
 * </pre>
 *
 * A reader refuses what it cannot be sure of rather than guess: a value version newer than it knows,
 * an unknown key type, a batch whose last offset is below its first, truncated bytes and bytes left
 * over. Stateless.
 */
final class ShareStateRecordSerde implements CoordinatorRecordSerde<ShareStateRecord> {

    static final ShareStateRecordSerde INSTANCE = new ShareStateRecordSerde();

    static final short KEY_TYPE_SHARE_PARTITION = 0;
    static final byte VALUE_VERSION = 0;
    private static final int BATCH_BYTES = 8 + 8 + 1 + 2;

    private ShareStateRecordSerde() {
    }

    @Override
    public byte[] key(ShareStateRecord record) {
        SharePartitionKey k = record.key();
        byte[] group = utf8(k.groupId());
        ByteBuffer b = ByteBuffer.allocate(2 + 2 + group.length + 16 + 4);
        b.putShort(KEY_TYPE_SHARE_PARTITION);
        b.putShort((short) group.length).put(group);
        b.putLong(k.topicId().getMostSignificantBits()).putLong(k.topicId().getLeastSignificantBits());
        b.putInt(k.partition());
        return b.array();
    }

    @Override
    public byte[] value(ShareStateRecord record) {
        ShareState s = record.state();
        if (s == null) {
            return null;
        }
        ByteBuffer b = ByteBuffer.allocate(1 + 4 + 4 + 8 + 4 + 4 + BATCH_BYTES * s.batches().size());
        b.put(VALUE_VERSION);
        b.putInt(s.stateEpoch()).putInt(s.leaderEpoch()).putLong(s.startOffset());
        b.putInt(record.deliveryCompleteCount());
        b.putInt(s.batches().size());
        for (StateBatch batch : s.batches()) {
            b.putLong(batch.firstOffset()).putLong(batch.lastOffset()).put(batch.deliveryState())
                    .putShort(batch.deliveryCount());
        }
        return b.array();
    }

    /**
     * @throws CorruptShareStateRecordException for bytes this reader does not understand
     */
    @Override
    public ShareStateRecord decode(byte[] key, byte[] value) {
        if (key == null) {
            throw new CorruptShareStateRecordException("__share_group_state record without a key");
        }
        try {
            ByteBuffer k = ByteBuffer.wrap(key);
            short type = k.getShort();
            if (type != KEY_TYPE_SHARE_PARTITION) {
                throw new CorruptShareStateRecordException("unknown __share_group_state key type " + type);
            }
            String group = readString(k);
            Uuid topicId = new Uuid(k.getLong(), k.getLong());
            int partition = k.getInt();
            requireEnd(k, "key");
            SharePartitionKey spk = new SharePartitionKey(group, topicId, partition);
            if (value == null) {
                return ShareStateRecord.tombstone(spk);
            }
            return decodeValue(spk, ByteBuffer.wrap(value));
        } catch (BufferUnderflowException e) {
            throw new CorruptShareStateRecordException("truncated __share_group_state record", e);
        }
    }

    private static ShareStateRecord decodeValue(SharePartitionKey key, ByteBuffer v) {
        byte version = v.get();
        if (version < 0 || version > VALUE_VERSION) {
            throw new CorruptShareStateRecordException(key.coordinatorKey() + ": value version " + version
                    + " is not one this broker reads (up to " + VALUE_VERSION + ")");
        }
        int stateEpoch = v.getInt();
        int leaderEpoch = v.getInt();
        long startOffset = v.getLong();
        int deliveryCompleteCount = v.getInt();
        int n = v.getInt();
        if (n < 0 || (long) n * BATCH_BYTES > v.remaining()) {
            throw new CorruptShareStateRecordException(key.coordinatorKey() + " claims " + n + " batches");
        }
        List<StateBatch> batches = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long first = v.getLong();
            long last = v.getLong();
            byte state = v.get();
            short count = v.getShort();
            if (last < first) {
                throw new CorruptShareStateRecordException(key.coordinatorKey() + ": batch " + first + "-" + last);
            }
            batches.add(new StateBatch(first, last, state, count));
        }
        requireEnd(v, "value");
        return new ShareStateRecord(key, new ShareState(stateEpoch, startOffset, leaderEpoch, batches),
                deliveryCompleteCount);
    }

    private static void requireEnd(ByteBuffer b, String what) {
        RecordStrings.requireEnd(b, "__share_group_state", what, CorruptShareStateRecordException::new);
    }

    private static byte[] utf8(String s) {
        return RecordStrings.utf8(s, "group id", "__share_group_state");
    }

    private static String readString(ByteBuffer in) {
        return RecordStrings.read(in, "group id", CorruptShareStateRecordException::new);
    }
}
