package io.aloft.broker.group;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.aloft.broker.group.consumer.Assignment;
import io.aloft.broker.group.consumer.ConsumerGroupRecord;
import io.aloft.broker.group.consumer.MemberAssignment;
import io.aloft.broker.group.consumer.MemberState;
import io.aloft.broker.group.consumer.MemberSubscription;
import io.aloft.broker.group.consumer.TopicMetadata;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class ConsumerGroupRecordCodecTest {

    static final Uuid T1 = new Uuid(1, 2);
    static final Uuid T2 = new Uuid(3, 4);

    static GroupRecord wrap(ConsumerGroupRecord r) {
        return new GroupRecord.ConsumerGroupChange(r);
    }

    static GroupRecord roundTrip(GroupRecord r) {
        return GroupRecordCodec.decode(GroupRecordCodec.key(r), GroupRecordCodec.value(r));
    }

    static List<ConsumerGroupRecord> everyKind() {
        Assignment a = Assignment.of(Map.of(T1, Set.of(0, 2), T2, Set.of(1)));
        return List.of(
                new ConsumerGroupRecord.GroupEpoch("g", 7),
                new ConsumerGroupRecord.SubscribedTopics("g", Map.of("t1", new TopicMetadata(T1, "t1", 3),
                        "t2", new TopicMetadata(T2, "t2", 2))),
                new ConsumerGroupRecord.MemberMetadata("g", "m", new MemberSubscription("inst", null, "client",
                        "/10.0.0.1", List.of("t2", "t1"), "t.*", "range", 30_000)),
                new ConsumerGroupRecord.MemberMetadata("g", "n", new MemberSubscription(null, "rack", "c", "/h",
                        List.of(), null, null, 1)),
                new ConsumerGroupRecord.TargetEpoch("g", 6),
                new ConsumerGroupRecord.TargetMember("g", "m", a),
                new ConsumerGroupRecord.CurrentMember("g", "m", new MemberAssignment(6, 5,
                        MemberState.UNREVOKED_PARTITIONS, a, Assignment.of(Map.of(T2, Set.of(0))))));
    }

    @Test
    void everyConsumerRecordKind_roundTrip() {
        for (ConsumerGroupRecord r : everyKind()) {
            assertEquals(wrap(r), roundTrip(wrap(r)), r.toString());
        }
    }

    @Test
    void tombstones_nullValue_sameKeyAsTheRecord() {
        List<ConsumerGroupRecord> tombstones = List.of(new ConsumerGroupRecord.GroupEpoch("g", null),
                new ConsumerGroupRecord.SubscribedTopics("g", null),
                new ConsumerGroupRecord.MemberMetadata("g", "m", null), new ConsumerGroupRecord.TargetEpoch("g", null),
                new ConsumerGroupRecord.TargetMember("g", "m", null), new ConsumerGroupRecord.CurrentMember("g", "m", null));
        for (int i = 0; i < tombstones.size(); i++) {
            GroupRecord t = wrap(tombstones.get(i));
            assertNull(GroupRecordCodec.value(t));
            assertEquals(t, GroupRecordCodec.decode(GroupRecordCodec.key(t), null));
        }
        assertArrayEquals(GroupRecordCodec.key(wrap(everyKind().get(6))), GroupRecordCodec.key(wrap(tombstones.get(5))));
    }

    @Test
    void keys_distinctPerKindAndFromClassicGroupKey() {
        List<byte[]> keys = everyKind().stream().map(r -> GroupRecordCodec.key(wrap(r))).toList();
        byte[] classic = GroupRecordCodec.key(new GroupRecord.GroupTombstone("g"));
        for (int i = 0; i < keys.size(); i++) {
            assertNotEquals(HexFormat.of().formatHex(classic), HexFormat.of().formatHex(keys.get(i)));
            for (int j = i + 1; j < keys.size(); j++) {
                if (!(i == 2 && j == 3)) { // two members: different member ids
                    assertNotEquals(HexFormat.of().formatHex(keys.get(i)), HexFormat.of().formatHex(keys.get(j)));
                }
            }
        }
    }

    /** Golden bytes: the layout documented in ConsumerGroupRecordCodec must not drift. */
    @Test
    void groupEpochAndCurrentMember_goldenBytes() {
        GroupRecord epoch = wrap(new ConsumerGroupRecord.GroupEpoch("g", 7));
        assertEquals("00020001 67".replace(" ", ""), HexFormat.of().formatHex(GroupRecordCodec.key(epoch)));
        assertEquals("000000000007", HexFormat.of().formatHex(GroupRecordCodec.value(epoch)));
        GroupRecord current = wrap(new ConsumerGroupRecord.CurrentMember("g", "m", new MemberAssignment(3, 2,
                MemberState.UNRELEASED_PARTITIONS, Assignment.of(Map.of(T1, Set.of(5))), Assignment.EMPTY)));
        assertEquals("0007000167" + "00016d", HexFormat.of().formatHex(GroupRecordCodec.key(current)));
        assertEquals("0000" + "00000003" + "00000002" + "02"
                        + "00000001" + "0000000000000001" + "0000000000000002" + "00000001" + "00000005"
                        + "00000000",
                HexFormat.of().formatHex(GroupRecordCodec.value(current)));
    }

    @Test
    void newerValueVersion_refused() {
        GroupRecord r = wrap(new ConsumerGroupRecord.TargetEpoch("g", 1));
        byte[] value = GroupRecordCodec.value(r);
        value[1] = 1; // version 1: not known to this reader
        assertThrows(CorruptGroupRecordException.class, () -> GroupRecordCodec.decode(GroupRecordCodec.key(r), value));
    }

    @Test
    void truncatedOrBadState_corrupt() {
        GroupRecord r = wrap(everyKind().get(6));
        byte[] value = GroupRecordCodec.value(r);
        assertThrows(CorruptGroupRecordException.class, () -> GroupRecordCodec.decode(GroupRecordCodec.key(r),
                java.util.Arrays.copyOf(value, value.length - 3)));
        value[10] = 9; // the state byte: no such state
        assertThrows(CorruptGroupRecordException.class, () -> GroupRecordCodec.decode(GroupRecordCodec.key(r), value));
    }
}
