package io.aloft.broker.txn;

import io.aloft.broker.coordinator.CoordinatorRecordSerde;
import io.aloft.broker.coordinator.RecordStrings;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Bytes of a {@link TransactionRecord} as the key and value of a record in
 * {@code __transaction_state}: the key is the transactional id (what compaction goes by), the value
 * is versioned, a null value is a tombstone. Kafka's shape (TransactionLogKey/Value), Aloft's own
 * layout. Integrity (CRC) comes from the record batch of the log that holds these pairs, so it is
 * not repeated here. All integers are big-endian.
 *
 * <pre>
 * string := int16 length, UTF-8 bytes (never null here)
 *
 * key              := int16 type (0 = transaction), string transactionalId
 * value, version 0 := int16 version, int64 producerId, int64 previousProducerId, int64 nextProducerId,
 *                     int16 producerEpoch, int16 lastProducerEpoch, int32 timeoutMs,
 *                     int8 state ({@link TransactionState#code}), int64 lastUpdateMs, int64 startMs,
 *                     int16 clientTransactionVersion (0..2), int32 topicCount,
 *                     topicCount x (string topic, int32 partitionCount, partitionCount x int32 partition)
 * </pre>
 *
 * A reader refuses what it cannot be sure of rather than guess: a value version newer than it
 * knows, an unknown key type or state, a state that is never stored (Dead, PrepareEpochFence),
 * truncated bytes and bytes left over. Stateless.
 */
public final class TransactionRecordSerde implements CoordinatorRecordSerde<TransactionRecord> {

    /** The serde of {@code __transaction_state}. */
    public static final TransactionRecordSerde INSTANCE = new TransactionRecordSerde();

    static final short KEY_TYPE_TRANSACTION = 0;
    static final short VALUE_VERSION = 0;

    private TransactionRecordSerde() {
    }

    @Override
    public byte[] key(TransactionRecord record) {
        byte[] id = utf8(record.transactionalId());
        ByteBuffer b = ByteBuffer.allocate(2 + 2 + id.length);
        b.putShort(KEY_TYPE_TRANSACTION);
        b.putShort((short) id.length).put(id);
        return b.array();
    }

    @Override
    public byte[] value(TransactionRecord record) {
        TransactionRecord.Metadata m = record.metadata();
        if (m == null) {
            return null;
        }
        List<byte[]> topics = new ArrayList<>();
        int size = 2 + 8 * 3 + 2 * 2 + 4 + 1 + 8 * 2 + 2 + 4;
        for (Map.Entry<String, List<Integer>> e : m.partitions().entrySet()) {
            byte[] t = utf8(e.getKey());
            topics.add(t);
            size += 2 + t.length + 4 + 4 * e.getValue().size();
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        b.putShort(VALUE_VERSION);
        b.putLong(m.producerId()).putLong(m.previousProducerId()).putLong(m.nextProducerId());
        b.putShort(m.producerEpoch()).putShort(m.lastProducerEpoch());
        b.putInt(m.timeoutMs());
        b.put(m.state().code());
        b.putLong(m.lastUpdateMs()).putLong(m.startMs());
        b.putShort(m.clientTransactionVersion());
        b.putInt(topics.size());
        int i = 0;
        for (List<Integer> ps : m.partitions().values()) {
            byte[] t = topics.get(i++);
            b.putShort((short) t.length).put(t);
            b.putInt(ps.size());
            ps.forEach(b::putInt);
        }
        return b.array();
    }

    /**
     * @throws CorruptTransactionRecordException for bytes this reader does not understand
     */
    @Override
    public TransactionRecord decode(byte[] key, byte[] value) {
        if (key == null) {
            throw new CorruptTransactionRecordException("__transaction_state record without a key");
        }
        try {
            ByteBuffer k = ByteBuffer.wrap(key);
            short type = k.getShort();
            if (type != KEY_TYPE_TRANSACTION) {
                throw new CorruptTransactionRecordException("unknown __transaction_state key type " + type);
            }
            String id = readString(k);
            requireEnd(k, "key");
            if (value == null) {
                return TransactionRecord.tombstone(id);
            }
            return new TransactionRecord(id, decodeValue(id, ByteBuffer.wrap(value)));
        } catch (BufferUnderflowException e) {
            throw new CorruptTransactionRecordException("truncated __transaction_state record", e);
        }
    }

    private static TransactionRecord.Metadata decodeValue(String id, ByteBuffer v) {
        short version = v.getShort();
        if (version < 0 || version > VALUE_VERSION) {
            throw new CorruptTransactionRecordException("transaction " + id + ": value version " + version
                    + " is not one this broker reads (up to " + VALUE_VERSION + ")");
        }
        long producerId = v.getLong();
        long previousProducerId = v.getLong();
        long nextProducerId = v.getLong();
        short epoch = v.getShort();
        short lastEpoch = v.getShort();
        int timeoutMs = v.getInt();
        byte code = v.get();
        TransactionState state = TransactionState.ofCode(code);
        if (state == null || state == TransactionState.DEAD || state == TransactionState.PREPARE_EPOCH_FENCE) {
            throw new CorruptTransactionRecordException("transaction " + id + ": state code " + code
                    + (state == null ? " is unknown" : " (" + state.kafkaName() + ") is never stored"));
        }
        long lastUpdateMs = v.getLong();
        long startMs = v.getLong();
        short clientVersion = v.getShort();
        if (clientVersion < 0 || clientVersion > 2) {
            throw new CorruptTransactionRecordException("transaction " + id + ": client transaction version "
                    + clientVersion + " is not 0, 1 or 2");
        }
        int topicCount = count(v, id, "topics");
        Map<String, List<Integer>> partitions = new LinkedHashMap<>();
        for (int i = 0; i < topicCount; i++) {
            String topic = readString(v);
            int n = count(v, id, "partitions of " + topic);
            List<Integer> ps = new ArrayList<>(n);
            for (int j = 0; j < n; j++) {
                int p = v.getInt();
                if (p < 0) {
                    throw new CorruptTransactionRecordException("transaction " + id + ": partition " + p + " of "
                            + topic);
                }
                ps.add(p);
            }
            partitions.put(topic, ps);
        }
        requireEnd(v, "value");
        return new TransactionRecord.Metadata(producerId, previousProducerId, nextProducerId, epoch, lastEpoch,
                timeoutMs, state, partitions, lastUpdateMs, startMs, clientVersion);
    }

    private static int count(ByteBuffer v, String id, String what) {
        int n = v.getInt();
        if (n < 0 || n > v.remaining()) {
            throw new CorruptTransactionRecordException("transaction " + id + " claims " + n + " " + what);
        }
        return n;
    }

    private static void requireEnd(ByteBuffer b, String what) {
        RecordStrings.requireEnd(b, "__transaction_state", what, CorruptTransactionRecordException::new);
    }

    private static byte[] utf8(String s) {
        return RecordStrings.utf8(s, "string", "__transaction_state");
    }

    private static String readString(ByteBuffer in) {
        return RecordStrings.read(in, "string", CorruptTransactionRecordException::new);
    }
}
