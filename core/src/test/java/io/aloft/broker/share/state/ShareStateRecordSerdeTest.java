package io.aloft.broker.share.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class ShareStateRecordSerdeTest {
    private static final ShareStateRecordSerde SERDE = ShareStateRecordSerde.INSTANCE;
    private static final SharePartitionKey KEY = new SharePartitionKey("group:with:colons", Uuid.randomUuid(), 7);

    private static ShareStateRecord roundTrip(ShareStateRecord r) {
        return SERDE.decode(SERDE.key(r), SERDE.value(r));
    }

    @Test
    void state_roundTrips() {
        ShareStateRecord r = new ShareStateRecord(KEY, new ShareState(3, 100, 9, List.of(
                new StateBatch(100, 104, StateBatch.ACKNOWLEDGED, (short) 1),
                new StateBatch(105, 105, StateBatch.AVAILABLE, (short) 2),
                new StateBatch(200, Long.MAX_VALUE - 1, StateBatch.ARCHIVED, Short.MAX_VALUE))), 42);
        assertEquals(r, roundTrip(r));
    }

    @Test
    void noStartOffset_noBatches_roundTrips() {
        ShareStateRecord r = new ShareStateRecord(KEY, new ShareState(0, -1, 0, List.of()), -1);
        assertEquals(r, roundTrip(r));
    }

    @Test
    void tombstone_hasNullValue_andSameKey() {
        ShareStateRecord t = ShareStateRecord.tombstone(KEY);
        assertNull(SERDE.value(t));
        ShareStateRecord live = new ShareStateRecord(KEY, new ShareState(0, 0, 0, List.of()), 0);
        assertArrayEquals(SERDE.key(live), SERDE.key(t), "compaction must see one key for both");
        assertTrue(roundTrip(t).isTombstone());
        assertEquals(KEY, roundTrip(t).key());
    }

    @Test
    void keys_differPerPartitionTopicAndGroup() {
        ShareStateRecord a = ShareStateRecord.tombstone(KEY);
        ShareStateRecord b = ShareStateRecord.tombstone(new SharePartitionKey(KEY.groupId(), KEY.topicId(), 8));
        ShareStateRecord c = ShareStateRecord.tombstone(new SharePartitionKey("other", KEY.topicId(), 7));
        assertTrue(!Arrays.equals(SERDE.key(a), SERDE.key(b)) && !Arrays.equals(SERDE.key(a), SERDE.key(c)));
    }

    @Test
    void newerValueVersion_isRefused() {
        ShareStateRecord r = new ShareStateRecord(KEY, new ShareState(1, 0, 0, List.of()), 0);
        byte[] value = SERDE.value(r);
        value[0] = 1;
        assertThrows(CorruptShareStateRecordException.class, () -> SERDE.decode(SERDE.key(r), value));
    }

    @Test
    void truncatedOrPaddedOrForeignBytes_areRefused() {
        ShareStateRecord r = new ShareStateRecord(KEY, new ShareState(1, 0, 0, List.of(
                new StateBatch(0, 1, StateBatch.ACKNOWLEDGED, (short) 1))), 0);
        byte[] key = SERDE.key(r);
        byte[] value = SERDE.value(r);
        assertThrows(CorruptShareStateRecordException.class,
                () -> SERDE.decode(key, Arrays.copyOf(value, value.length - 1)));
        assertThrows(CorruptShareStateRecordException.class,
                () -> SERDE.decode(key, Arrays.copyOf(value, value.length + 1)));
        assertThrows(CorruptShareStateRecordException.class,
                () -> SERDE.decode(Arrays.copyOf(key, key.length - 1), value));
        assertThrows(CorruptShareStateRecordException.class, () -> SERDE.decode(null, value));
        byte[] otherType = key.clone();
        otherType[1] = 1;
        assertThrows(CorruptShareStateRecordException.class, () -> SERDE.decode(otherType, value));
    }

    @Test
    void batchEndingBeforeItStarts_isRefused() {
        ShareStateRecord r = new ShareStateRecord(KEY, new ShareState(1, 0, 0, List.of(
                new StateBatch(5, 5, StateBatch.ACKNOWLEDGED, (short) 1))), 0);
        byte[] value = SERDE.value(r);
        // The batch's last offset sits after version, 2 epochs, start offset, count and batch count, and its first.
        ByteBuffer.wrap(value).putLong(1 + 4 + 4 + 8 + 4 + 4 + 8, 4);
        assertThrows(CorruptShareStateRecordException.class, () -> SERDE.decode(SERDE.key(r), value));
    }

    @Test
    void hugeBatchCount_isRefusedWithoutAllocating() {
        ShareStateRecord r = new ShareStateRecord(KEY, new ShareState(1, 0, 0, List.of()), 0);
        byte[] value = SERDE.value(r);
        ByteBuffer.wrap(value).putInt(1 + 4 + 4 + 8 + 4, Integer.MAX_VALUE);
        assertThrows(CorruptShareStateRecordException.class, () -> SERDE.decode(SERDE.key(r), value));
    }
}
