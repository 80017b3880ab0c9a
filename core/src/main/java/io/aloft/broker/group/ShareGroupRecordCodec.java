package io.aloft.broker.group;

import io.aloft.broker.group.consumer.TopicMetadata;
import io.aloft.broker.group.share.ShareGroupRecord;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The share-group (KIP-932) part of {@link GroupRecordCodec}: keys of types 8 to 14 and their
 * values. Same conventions as {@link ConsumerGroupRecordCodec} (big-endian, {@code string},
 * {@code uuid} and {@code assignment} as there); a value is null for a tombstone, and a reader
 * refuses a value version newer than it knows.
 *
 * <pre>
 * SHARE_GROUP_EPOCH (8), key group           value v0 := int16 version, int32 groupEpoch
 * SHARE_SUBSCRIBED_TOPICS (9), key group     value v0 := int16 version, int32 count,
 *                                            count x (uuid topicId, string name, int32 partitions)
 * SHARE_MEMBER (10), key group + member      value v0 := int16 version, string rackId, string clientId,
 *                                            string clientHost, int32 count, count x string topicName
 * SHARE_TARGET_EPOCH (11), key group         value v0 := int16 version, int32 assignmentEpoch
 * SHARE_TARGET_MEMBER (12), key + member     value v0 := int16 version, assignment
 * SHARE_CURRENT_MEMBER (13), key + member    value v0 := int16 version, int32 memberEpoch,
 *                                            int32 previousMemberEpoch, assignment
 * SHARE_INITIALIZED (14), key group          value v0 := int16 version, assignment (share partitions
 *                                            whose state was initialized)
 * </pre>
 * Stateless.
 */
final class ShareGroupRecordCodec {

    static final short TYPE_GROUP_EPOCH = 8;
    static final short TYPE_SUBSCRIBED_TOPICS = 9;
    static final short TYPE_MEMBER = 10;
    static final short TYPE_TARGET_EPOCH = 11;
    static final short TYPE_TARGET_MEMBER = 12;
    static final short TYPE_CURRENT_MEMBER = 13;
    static final short TYPE_INITIALIZED = 14;
    static final short VALUE_VERSION = 0;

    private ShareGroupRecordCodec() {
    }

    static boolean isShareType(short type) {
        return type >= TYPE_GROUP_EPOCH && type <= TYPE_INITIALIZED;
    }

    static void key(DataOutputStream out, ShareGroupRecord r) throws IOException {
        String member = null;
        short type;
        if (r instanceof ShareGroupRecord.GroupEpoch) {
            type = TYPE_GROUP_EPOCH;
        } else if (r instanceof ShareGroupRecord.SubscribedTopics) {
            type = TYPE_SUBSCRIBED_TOPICS;
        } else if (r instanceof ShareGroupRecord.MemberMetadata m) {
            type = TYPE_MEMBER;
            member = m.memberId();
        } else if (r instanceof ShareGroupRecord.TargetEpoch) {
            type = TYPE_TARGET_EPOCH;
        } else if (r instanceof ShareGroupRecord.TargetMember m) {
            type = TYPE_TARGET_MEMBER;
            member = m.memberId();
        } else if (r instanceof ShareGroupRecord.CurrentMember m) {
            type = TYPE_CURRENT_MEMBER;
            member = m.memberId();
        } else {
            type = TYPE_INITIALIZED;
        }
        out.writeShort(type);
        GroupRecordCodec.writeString(out, r.groupId());
        if (member != null) {
            GroupRecordCodec.writeString(out, member);
        }
    }

    /** Whether the record has a value (is not a tombstone). */
    static boolean hasValue(ShareGroupRecord r) {
        if (r instanceof ShareGroupRecord.GroupEpoch g) {
            return g.epoch() != null;
        } else if (r instanceof ShareGroupRecord.SubscribedTopics s) {
            return s.topics() != null;
        } else if (r instanceof ShareGroupRecord.MemberMetadata m) {
            return m.value() != null;
        } else if (r instanceof ShareGroupRecord.TargetEpoch t) {
            return t.epoch() != null;
        } else if (r instanceof ShareGroupRecord.TargetMember t) {
            return t.value() != null;
        } else if (r instanceof ShareGroupRecord.CurrentMember c) {
            return c.value() != null;
        }
        return ((ShareGroupRecord.InitializedPartitions) r).partitions() != null;
    }

    static void value(DataOutputStream out, ShareGroupRecord r) throws IOException {
        out.writeShort(VALUE_VERSION);
        if (r instanceof ShareGroupRecord.GroupEpoch g) {
            out.writeInt(g.epoch());
        } else if (r instanceof ShareGroupRecord.SubscribedTopics s) {
            out.writeInt(s.topics().size());
            for (TopicMetadata t : s.topics().values()) {
                ConsumerGroupRecordCodec.writeUuid(out, t.id());
                GroupRecordCodec.writeString(out, t.name());
                out.writeInt(t.numPartitions());
            }
        } else if (r instanceof ShareGroupRecord.MemberMetadata m) {
            ShareGroupRecord.Metadata v = m.value();
            GroupRecordCodec.writeString(out, v.rackId());
            GroupRecordCodec.writeString(out, v.clientId());
            GroupRecordCodec.writeString(out, v.clientHost());
            out.writeInt(v.topicNames().size());
            for (String name : v.topicNames()) {
                GroupRecordCodec.writeString(out, name);
            }
        } else if (r instanceof ShareGroupRecord.TargetEpoch t) {
            out.writeInt(t.epoch());
        } else if (r instanceof ShareGroupRecord.TargetMember t) {
            ConsumerGroupRecordCodec.writeAssignment(out, t.value());
        } else if (r instanceof ShareGroupRecord.CurrentMember c) {
            out.writeInt(c.value().epoch());
            out.writeInt(c.value().previousEpoch());
            ConsumerGroupRecordCodec.writeAssignment(out, c.value().assigned());
        } else {
            ConsumerGroupRecordCodec.writeAssignment(out, ((ShareGroupRecord.InitializedPartitions) r).partitions());
        }
    }

    /**
     * The record of a share-group key whose type and group id were read from {@code key}.
     *
     * @param value null for a tombstone
     */
    static ShareGroupRecord decode(short type, String groupId, ByteBuffer key, ByteBuffer value) {
        String member = type == TYPE_MEMBER || type == TYPE_TARGET_MEMBER || type == TYPE_CURRENT_MEMBER
                ? GroupRecordCodec.readString(key) : null;
        if (value != null) {
            GroupRecordCodec.checkVersion(value.getShort(), VALUE_VERSION, "share group record type " + type);
        }
        switch (type) {
            case TYPE_GROUP_EPOCH:
                return new ShareGroupRecord.GroupEpoch(groupId, value == null ? null : value.getInt());
            case TYPE_SUBSCRIBED_TOPICS:
                return new ShareGroupRecord.SubscribedTopics(groupId,
                        value == null ? null : ConsumerGroupRecordCodec.readTopics(value));
            case TYPE_MEMBER:
                return new ShareGroupRecord.MemberMetadata(groupId, member, value == null ? null : readMember(value));
            case TYPE_TARGET_EPOCH:
                return new ShareGroupRecord.TargetEpoch(groupId, value == null ? null : value.getInt());
            case TYPE_TARGET_MEMBER:
                return new ShareGroupRecord.TargetMember(groupId, member,
                        value == null ? null : ConsumerGroupRecordCodec.readAssignment(value));
            case TYPE_CURRENT_MEMBER:
                return new ShareGroupRecord.CurrentMember(groupId, member, value == null ? null
                        : new ShareGroupRecord.Current(value.getInt(), value.getInt(),
                                ConsumerGroupRecordCodec.readAssignment(value)));
            default:
                return new ShareGroupRecord.InitializedPartitions(groupId,
                        value == null ? null : ConsumerGroupRecordCodec.readAssignment(value));
        }
    }

    private static ShareGroupRecord.Metadata readMember(ByteBuffer v) {
        String rackId = GroupRecordCodec.readString(v);
        String clientId = GroupRecordCodec.readString(v);
        String clientHost = GroupRecordCodec.readString(v);
        int count = ConsumerGroupRecordCodec.count(v, 2);
        List<String> names = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            names.add(GroupRecordCodec.readString(v));
        }
        return new ShareGroupRecord.Metadata(rackId, clientId, clientHost, names);
    }
}
