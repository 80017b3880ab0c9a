package io.aloft.broker.group;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class GroupRecordCodecTest {

    @Test
    void offsetCommit_roundTrip_allFields() {
        GroupRecord.OffsetCommit c = new GroupRecord.OffsetCommit("g", "topic", 7, 123L, 4, "meta", 1000L, -1L);
        assertEquals(c, GroupRecordCodec.decode(GroupRecordCodec.key(c), GroupRecordCodec.value(c)));
    }

    @Test
    void groupMetadata_roundTrip_membersWithNullsAndBytes() {
        GroupRecord.GroupMetadata g = new GroupRecord.GroupMetadata("g", "consumer", 5, "range", "m1", 77L, List.of(
                new GroupRecord.Member("m1", null, "c1", "/h1", 30000, 10000, new byte[] {1, 2}, new byte[] {3}),
                new GroupRecord.Member("m2", "inst", "c2", "/h2", 30000, 10000, new byte[0], new byte[0])));
        GroupRecord.GroupMetadata back = (GroupRecord.GroupMetadata) GroupRecordCodec.decode(
                GroupRecordCodec.key(g), GroupRecordCodec.value(g));
        assertEquals(g.protocolType(), back.protocolType());
        assertEquals(5, back.generationId());
        assertEquals("m1", back.leaderId());
        assertEquals(77L, back.stateTimestampMs());
        assertNull(back.members().get(0).groupInstanceId());
        assertEquals("inst", back.members().get(1).groupInstanceId());
        assertArrayEquals(new byte[] {1, 2}, back.members().get(0).subscription());
        assertArrayEquals(new byte[] {3}, back.members().get(0).assignment());
    }

    @Test
    void tombstones_nullValue_decodeToTombstones() {
        GroupRecord.OffsetTombstone t = new GroupRecord.OffsetTombstone("g", "t", 1);
        assertNull(GroupRecordCodec.value(t));
        assertEquals(t, GroupRecordCodec.decode(GroupRecordCodec.key(t), null));
        GroupRecord.GroupTombstone gt = new GroupRecord.GroupTombstone("g");
        assertEquals(gt, GroupRecordCodec.decode(GroupRecordCodec.key(gt), null));
    }

    @Test
    void key_offsetAndItsTombstone_sameKeySoCompactionReplaces() {
        assertArrayEquals(GroupRecordCodec.key(new GroupRecord.OffsetCommit("g", "t", 1, 5, -1, "", 0, -1)),
                GroupRecordCodec.key(new GroupRecord.OffsetTombstone("g", "t", 1)));
    }

    @Test
    void decode_newerValueVersionOrTruncated_corrupt() {
        GroupRecord.OffsetCommit c = new GroupRecord.OffsetCommit("g", "t", 1, 5, -1, "", 0, -1);
        byte[] value = GroupRecordCodec.value(c);
        value[1] = 9; // version 9
        assertThrows(CorruptGroupRecordException.class, () -> GroupRecordCodec.decode(GroupRecordCodec.key(c), value));
        byte[] truncated = Arrays.copyOf(GroupRecordCodec.value(c), 6);
        assertThrows(CorruptGroupRecordException.class,
                () -> GroupRecordCodec.decode(GroupRecordCodec.key(c), truncated));
        assertThrows(CorruptGroupRecordException.class, () -> GroupRecordCodec.decode(new byte[] {0, 7, 0, 0}, null));
    }
}
