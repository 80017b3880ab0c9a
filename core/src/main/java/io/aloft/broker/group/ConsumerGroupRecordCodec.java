package io.aloft.broker.group;

import io.aloft.broker.group.consumer.Assignment;
import io.aloft.broker.group.consumer.ConsumerGroupRecord;
import io.aloft.broker.group.consumer.MemberAssignment;
import io.aloft.broker.group.consumer.MemberState;
import io.aloft.broker.group.consumer.MemberSubscription;
import io.aloft.broker.group.consumer.TopicMetadata;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;

/**
 * The consumer-group (KIP-848) part of {@link GroupRecordCodec}: keys of types 2 to 7 and their
 * values. Same conventions (big-endian, {@code string} and the key prefix as there); a value is
 * null for a tombstone, and a reader refuses a value version newer than it knows.
 *
 * <pre>
 * uuid       := int64 mostSignificantBits, int64 leastSignificantBits
 * assignment := int32 topicCount, topicCount x (uuid topicId, int32 count, count x int32 partition)
 *
 * CONSUMER_GROUP_EPOCH (2), key group        value v0 := int16 version, int32 groupEpoch
 * CONSUMER_SUBSCRIBED_TOPICS (3), key group  value v0 := int16 version, int32 count,
 *                                            count x (uuid topicId, string name, int32 partitions)
 * CONSUMER_MEMBER (4), key group + member    value v0 := int16 version, string instanceId, string rackId,
 *                                            string clientId, string clientHost, int32 count,
 *                                            count x string topicName, string topicRegex,
 *                                            string serverAssignor, int32 rebalanceTimeoutMs
 * CONSUMER_TARGET_EPOCH (5), key group       value v0 := int16 version, int32 assignmentEpoch
 * CONSUMER_TARGET_MEMBER (6), key + member   value v0 := int16 version, assignment
 * CONSUMER_CURRENT_MEMBER (7), key + member  value v0 := int16 version, int32 memberEpoch,
 *                                            int32 previousMemberEpoch, int8 state (MemberState code),
 *                                            assignment assigned, assignment pendingRevocation
 * </pre>
 * Stateless.
 */
final class ConsumerGroupRecordCodec {

    static final short TYPE_GROUP_EPOCH = 2;
    static final short TYPE_SUBSCRIBED_TOPICS = 3;
    static final short TYPE_MEMBER = 4;
    static final short TYPE_TARGET_EPOCH = 5;
    static final short TYPE_TARGET_MEMBER = 6;
    static final short TYPE_CURRENT_MEMBER = 7;
    static final short VALUE_VERSION = 0;

    private ConsumerGroupRecordCodec() {
    }

    static boolean isConsumerType(short type) {
        return type >= TYPE_GROUP_EPOCH && type <= TYPE_CURRENT_MEMBER;
    }

    static void key(DataOutputStream out, ConsumerGroupRecord r) throws IOException {
        String member = null;
        short type;
        if (r instanceof ConsumerGroupRecord.GroupEpoch) {
            type = TYPE_GROUP_EPOCH;
        } else if (r instanceof ConsumerGroupRecord.SubscribedTopics) {
            type = TYPE_SUBSCRIBED_TOPICS;
        } else if (r instanceof ConsumerGroupRecord.MemberMetadata m) {
            type = TYPE_MEMBER;
            member = m.memberId();
        } else if (r instanceof ConsumerGroupRecord.TargetEpoch) {
            type = TYPE_TARGET_EPOCH;
        } else if (r instanceof ConsumerGroupRecord.TargetMember m) {
            type = TYPE_TARGET_MEMBER;
            member = m.memberId();
        } else {
            type = TYPE_CURRENT_MEMBER;
            member = ((ConsumerGroupRecord.CurrentMember) r).memberId();
        }
        out.writeShort(type);
        GroupRecordCodec.writeString(out, r.groupId());
        if (member != null) {
            GroupRecordCodec.writeString(out, member);
        }
    }

    /** Whether the record has a value (is not a tombstone). */
    static boolean hasValue(ConsumerGroupRecord r) {
        if (r instanceof ConsumerGroupRecord.GroupEpoch g) {
            return g.epoch() != null;
        } else if (r instanceof ConsumerGroupRecord.SubscribedTopics s) {
            return s.topics() != null;
        } else if (r instanceof ConsumerGroupRecord.MemberMetadata m) {
            return m.value() != null;
        } else if (r instanceof ConsumerGroupRecord.TargetEpoch t) {
            return t.epoch() != null;
        } else if (r instanceof ConsumerGroupRecord.TargetMember t) {
            return t.value() != null;
        }
        return ((ConsumerGroupRecord.CurrentMember) r).value() != null;
    }

    static void value(DataOutputStream out, ConsumerGroupRecord r) throws IOException {
        out.writeShort(VALUE_VERSION);
        if (r instanceof ConsumerGroupRecord.GroupEpoch g) {
            out.writeInt(g.epoch());
        } else if (r instanceof ConsumerGroupRecord.SubscribedTopics s) {
            out.writeInt(s.topics().size());
            for (TopicMetadata t : s.topics().values()) {
                writeUuid(out, t.id());
                GroupRecordCodec.writeString(out, t.name());
                out.writeInt(t.numPartitions());
            }
        } else if (r instanceof ConsumerGroupRecord.MemberMetadata m) {
            MemberSubscription v = m.value();
            GroupRecordCodec.writeString(out, v.instanceId());
            GroupRecordCodec.writeString(out, v.rackId());
            GroupRecordCodec.writeString(out, v.clientId());
            GroupRecordCodec.writeString(out, v.clientHost());
            out.writeInt(v.topicNames().size());
            for (String name : v.topicNames()) {
                GroupRecordCodec.writeString(out, name);
            }
            GroupRecordCodec.writeString(out, v.topicRegex());
            GroupRecordCodec.writeString(out, v.serverAssignor());
            out.writeInt(v.rebalanceTimeoutMs());
        } else if (r instanceof ConsumerGroupRecord.TargetEpoch t) {
            out.writeInt(t.epoch());
        } else if (r instanceof ConsumerGroupRecord.TargetMember t) {
            writeAssignment(out, t.value());
        } else {
            MemberAssignment v = ((ConsumerGroupRecord.CurrentMember) r).value();
            out.writeInt(v.epoch());
            out.writeInt(v.previousEpoch());
            out.writeByte(v.state().code());
            writeAssignment(out, v.assigned());
            writeAssignment(out, v.pendingRevocation());
        }
    }

    /**
     * The record of a consumer-group key whose type and group id were read from {@code key}.
     *
     * @param value null for a tombstone
     */
    static ConsumerGroupRecord decode(short type, String groupId, ByteBuffer key, ByteBuffer value) {
        String member = type == TYPE_MEMBER || type == TYPE_TARGET_MEMBER || type == TYPE_CURRENT_MEMBER
                ? GroupRecordCodec.readString(key) : null;
        if (value != null) {
            GroupRecordCodec.checkVersion(value.getShort(), VALUE_VERSION, "consumer group record type " + type);
        }
        switch (type) {
            case TYPE_GROUP_EPOCH:
                return new ConsumerGroupRecord.GroupEpoch(groupId, value == null ? null : value.getInt());
            case TYPE_SUBSCRIBED_TOPICS:
                return new ConsumerGroupRecord.SubscribedTopics(groupId, value == null ? null : readTopics(value));
            case TYPE_MEMBER:
                return new ConsumerGroupRecord.MemberMetadata(groupId, member, value == null ? null : readMember(value));
            case TYPE_TARGET_EPOCH:
                return new ConsumerGroupRecord.TargetEpoch(groupId, value == null ? null : value.getInt());
            case TYPE_TARGET_MEMBER:
                return new ConsumerGroupRecord.TargetMember(groupId, member,
                        value == null ? null : readAssignment(value));
            default:
                return new ConsumerGroupRecord.CurrentMember(groupId, member, value == null ? null
                        : new MemberAssignment(value.getInt(), value.getInt(), MemberState.ofCode(value.get()),
                                readAssignment(value), readAssignment(value)));
        }
    }

    static Map<String, TopicMetadata> readTopics(ByteBuffer v) {
        int count = count(v, 20);
        Map<String, TopicMetadata> out = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            Uuid id = readUuid(v);
            String name = GroupRecordCodec.readString(v);
            out.put(name, new TopicMetadata(id, name, v.getInt()));
        }
        return out;
    }

    private static MemberSubscription readMember(ByteBuffer v) {
        String instanceId = GroupRecordCodec.readString(v);
        String rackId = GroupRecordCodec.readString(v);
        String clientId = GroupRecordCodec.readString(v);
        String clientHost = GroupRecordCodec.readString(v);
        int count = count(v, 2);
        List<String> names = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            names.add(GroupRecordCodec.readString(v));
        }
        return new MemberSubscription(instanceId, rackId, clientId, clientHost, names, GroupRecordCodec.readString(v),
                GroupRecordCodec.readString(v), v.getInt());
    }

    static void writeAssignment(DataOutputStream out, Assignment a) throws IOException {
        out.writeInt(a.partitions().size());
        for (Map.Entry<Uuid, ? extends Set<Integer>> e : a.partitions().entrySet()) {
            writeUuid(out, e.getKey());
            out.writeInt(e.getValue().size());
            for (int p : e.getValue()) {
                out.writeInt(p);
            }
        }
    }

    static Assignment readAssignment(ByteBuffer v) {
        int topics = count(v, 20);
        Map<Uuid, Set<Integer>> out = new HashMap<>();
        for (int i = 0; i < topics; i++) {
            Uuid id = readUuid(v);
            int n = count(v, 4);
            Set<Integer> parts = new TreeSet<>();
            for (int j = 0; j < n; j++) {
                parts.add(v.getInt());
            }
            out.put(id, parts);
        }
        return Assignment.of(out);
    }

    /** A count that the remaining bytes can hold ({@code minBytes} each), or a corrupt record. */
    static int count(ByteBuffer v, int minBytes) {
        int n = v.getInt();
        if (n < 0 || (long) n * minBytes > v.remaining()) {
            throw new CorruptGroupRecordException("consumer group record claims " + n + " entries in "
                    + v.remaining() + " bytes");
        }
        return n;
    }

    static void writeUuid(DataOutputStream out, Uuid id) throws IOException {
        out.writeLong(id.getMostSignificantBits());
        out.writeLong(id.getLeastSignificantBits());
    }

    static Uuid readUuid(ByteBuffer v) {
        return new Uuid(v.getLong(), v.getLong());
    }
}
