package io.aloft.broker.txn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TransactionRecordSerdeTest {

    private static final TransactionRecordSerde SERDE = TransactionRecordSerde.INSTANCE;

    /** Offset of the state byte in a version 0 value: version, 3 ids, 2 epochs, timeout. */
    private static final int STATE_OFFSET = 2 + 8 * 3 + 2 * 2 + 4;
    /** Offset of the client transaction version: state, then two timestamps. */
    private static final int CLIENT_VERSION_OFFSET = STATE_OFFSET + 1 + 8 * 2;

    static TransactionRecord.Metadata full() {
        return new TransactionRecord.Metadata(4001L, 3001L, 5001L, (short) 7, (short) 6, 60_000,
                TransactionState.PREPARE_COMMIT, Map.of("orders", List.of(3, 0, 1), "__consumer_offsets", List.of(17)),
                1_234L, 1_000L, (short) 2);
    }

    private static TransactionRecord roundTrip(TransactionRecord r) {
        return SERDE.decode(SERDE.key(r), SERDE.value(r));
    }

    @Test
    void value_roundTrip_keepsEveryField() {
        TransactionRecord r = new TransactionRecord("txn-é", full());
        TransactionRecord back = roundTrip(r);
        assertEquals(r, back);
        assertEquals(List.of(0, 1, 3), back.metadata().partitions().get("orders"));
        assertEquals(5001L, back.metadata().nextProducerId());
        assertEquals(2, back.metadata().clientTransactionVersion());
    }

    @Test
    void value_roundTrip_everyStoredStateAndNoPartitions() {
        for (TransactionState s : List.of(TransactionState.EMPTY, TransactionState.ONGOING,
                TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT, TransactionState.COMPLETE_COMMIT,
                TransactionState.COMPLETE_ABORT)) {
            TransactionRecord r = new TransactionRecord("t", new TransactionRecord.Metadata(1L, -1L, -1L, (short) 0,
                    (short) -1, 1, s, Map.of(), 0L, -1L, (short) 1));
            assertEquals(r, roundTrip(r), s.kafkaName());
        }
    }

    @Test
    void tombstone_nullValue_sameKeyAsTheMetadata() {
        TransactionRecord t = TransactionRecord.tombstone("t1");
        assertNull(SERDE.value(t));
        assertEquals(t, SERDE.decode(SERDE.key(t), null));
        assertArrayEquals(SERDE.key(new TransactionRecord("t1", full())), SERDE.key(t));
    }

    @Test
    void decode_newerValueVersion_refused() {
        TransactionRecord r = new TransactionRecord("t", full());
        byte[] value = SERDE.value(r);
        value[1] = 1; // version 1: not known here
        CorruptTransactionRecordException e = assertThrows(CorruptTransactionRecordException.class,
                () -> SERDE.decode(SERDE.key(r), value));
        assertTrue(e.getMessage().contains("value version 1"), e.getMessage());
    }

    @Test
    void decode_truncatedOrLeftOverBytes_refused() {
        TransactionRecord r = new TransactionRecord("t", full());
        byte[] value = SERDE.value(r);
        assertThrows(CorruptTransactionRecordException.class,
                () -> SERDE.decode(SERDE.key(r), Arrays.copyOf(value, value.length - 1)));
        assertThrows(CorruptTransactionRecordException.class,
                () -> SERDE.decode(SERDE.key(r), Arrays.copyOf(value, value.length + 1)));
        assertThrows(CorruptTransactionRecordException.class, () -> SERDE.decode(new byte[] {0, 0, 0}, null));
    }

    @Test
    void decode_unknownOrNeverStoredState_refused() {
        TransactionRecord r = new TransactionRecord("t", full());
        for (byte code : new byte[] {9, TransactionState.DEAD.code(), TransactionState.PREPARE_EPOCH_FENCE.code()}) {
            byte[] value = SERDE.value(r);
            value[STATE_OFFSET] = code;
            assertThrows(CorruptTransactionRecordException.class, () -> SERDE.decode(SERDE.key(r), value),
                    "state code " + code);
        }
    }

    @Test
    void decode_badClientVersionKeyTypeOrNoKey_refused() {
        TransactionRecord r = new TransactionRecord("t", full());
        byte[] value = SERDE.value(r);
        ByteBuffer.wrap(value).putShort(CLIENT_VERSION_OFFSET, (short) 3);
        assertThrows(CorruptTransactionRecordException.class, () -> SERDE.decode(SERDE.key(r), value));
        byte[] key = SERDE.key(r);
        key[1] = 5; // key type 5
        assertThrows(CorruptTransactionRecordException.class, () -> SERDE.decode(key, null));
        assertThrows(CorruptTransactionRecordException.class, () -> SERDE.decode(null, SERDE.value(r)));
    }

    @Test
    void decode_hugePartitionCount_refusedNotAllocated() {
        TransactionRecord r = new TransactionRecord("t", new TransactionRecord.Metadata(1L, -1L, -1L, (short) 0,
                (short) -1, 1, TransactionState.EMPTY, Map.of(), 0L, -1L, (short) 1));
        byte[] value = SERDE.value(r);
        ByteBuffer.wrap(value).putInt(value.length - 4, Integer.MAX_VALUE); // topic count
        assertThrows(CorruptTransactionRecordException.class, () -> SERDE.decode(SERDE.key(r), value));
    }
}
