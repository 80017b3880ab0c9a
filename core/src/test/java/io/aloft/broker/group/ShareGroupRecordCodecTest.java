package io.aloft.broker.group;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.aloft.broker.group.consumer.Assignment;
import io.aloft.broker.group.consumer.TopicMetadata;
import io.aloft.broker.group.share.ShareGroupRecord;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/** Share group records through {@link GroupRecordCodec}: every type and its tombstone round-trip; keys by role. */
class ShareGroupRecordCodecTest {

    static final Uuid T = new Uuid(1, 2);

    static GroupRecord roundTrip(ShareGroupRecord r) {
        GroupRecord wrapped = new GroupRecord.ShareGroupChange(r);
        return GroupRecordCodec.decode(GroupRecordCodec.key(wrapped), GroupRecordCodec.value(wrapped));
    }

    @Test
    void everyRecord_roundTrips() {
        Assignment a = Assignment.of(Map.of(T, Set.of(0, 2), new Uuid(3, 4), Set.of(1)));
        List<ShareGroupRecord> records = List.of(
                new ShareGroupRecord.GroupEpoch("g", 7),
                new ShareGroupRecord.SubscribedTopics("g", Map.of("t", new TopicMetadata(T, "t", 3))),
                new ShareGroupRecord.MemberMetadata("g", "m", new ShareGroupRecord.Metadata("rack", "client",
                        "/host", List.of("a", "b"))),
                new ShareGroupRecord.MemberMetadata("g", "m", new ShareGroupRecord.Metadata(null, "c", "h", List.of())),
                new ShareGroupRecord.TargetEpoch("g", 6),
                new ShareGroupRecord.TargetMember("g", "m", a),
                new ShareGroupRecord.CurrentMember("g", "m", new ShareGroupRecord.Current(6, 5, a)),
                new ShareGroupRecord.InitializedPartitions("g", a),
                new ShareGroupRecord.GroupEpoch("g", null),
                new ShareGroupRecord.SubscribedTopics("g", null),
                new ShareGroupRecord.MemberMetadata("g", "m", null),
                new ShareGroupRecord.TargetEpoch("g", null),
                new ShareGroupRecord.TargetMember("g", "m", null),
                new ShareGroupRecord.CurrentMember("g", "m", null),
                new ShareGroupRecord.InitializedPartitions("g", null));
        for (ShareGroupRecord r : records) {
            assertEquals(new GroupRecord.ShareGroupChange(r), roundTrip(r), r.toString());
        }
    }

    @Test
    void keys_areDistinctPerTypeAndMember_tombstonesHaveNoValue() {
        Set<String> keys = new HashSet<>();
        for (ShareGroupRecord r : List.of(new ShareGroupRecord.GroupEpoch("g", null),
                new ShareGroupRecord.SubscribedTopics("g", null), new ShareGroupRecord.MemberMetadata("g", "m", null),
                new ShareGroupRecord.MemberMetadata("g", "n", null), new ShareGroupRecord.TargetEpoch("g", null),
                new ShareGroupRecord.TargetMember("g", "m", null), new ShareGroupRecord.CurrentMember("g", "m", null),
                new ShareGroupRecord.InitializedPartitions("g", null))) {
            GroupRecord w = new GroupRecord.ShareGroupChange(r);
            keys.add(java.util.Arrays.toString(GroupRecordCodec.key(w)));
            assertNull(GroupRecordCodec.value(w));
        }
        assertEquals(8, keys.size());
        // Never the key of a consumer group record of the same group.
        byte[] consumerEpoch = GroupRecordCodec.key(new GroupRecord.ConsumerGroupChange(
                new io.aloft.broker.group.consumer.ConsumerGroupRecord.GroupEpoch("g", null)));
        byte[] shareEpoch = GroupRecordCodec.key(new GroupRecord.ShareGroupChange(
                new ShareGroupRecord.GroupEpoch("g", null)));
        assertEquals(false, java.util.Arrays.equals(consumerEpoch, shareEpoch));
    }

    @Test
    void newerValueVersion_isRefused() {
        GroupRecord w = new GroupRecord.ShareGroupChange(new ShareGroupRecord.GroupEpoch("g", 1));
        byte[] value = GroupRecordCodec.value(w);
        value[1] = 1; // version 1
        assertThrows(CorruptGroupRecordException.class, () -> GroupRecordCodec.decode(GroupRecordCodec.key(w), value));
        byte[] truncated = java.util.Arrays.copyOf(GroupRecordCodec.value(w), 3);
        assertThrows(CorruptGroupRecordException.class,
                () -> GroupRecordCodec.decode(GroupRecordCodec.key(w), truncated));
        assertArrayEquals(GroupRecordCodec.value(w), GroupRecordCodec.value(w));
    }
}
