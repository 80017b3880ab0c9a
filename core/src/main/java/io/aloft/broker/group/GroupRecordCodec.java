package io.aloft.broker.group;

import io.aloft.broker.coordinator.CoordinatorRecordSerde;
import io.aloft.broker.coordinator.TransactionMarker;
import io.aloft.broker.coordinator.TransactionalProducer;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Bytes of a {@link GroupRecord} as a key/value pair, in the shape of Kafka's own
 * {@code __consumer_offsets} records (a key that compaction goes by, a versioned value, a null
 * value for a tombstone) but in Aloft's own layout. Integrity (CRC) comes from the record batch
 * of the log that holds these pairs, so it is not repeated here. All integers are big-endian.
 *
 * <pre>
 * string := int16 length (-1 = null), UTF-8 bytes
 * bytes  := int32 length (-1 = null), bytes
 *
 * key    := int16 type, string groupId, [type OFFSET: string topic, int32 partition]
 *           [types CONSUMER_MEMBER, CONSUMER_TARGET_MEMBER, CONSUMER_CURRENT_MEMBER: string memberId]
 *           type OFFSET = 0, GROUP = 1 (classic groups);
 *           consumer groups (KIP-848): CONSUMER_GROUP_EPOCH = 2, CONSUMER_SUBSCRIBED_TOPICS = 3,
 *           CONSUMER_MEMBER = 4, CONSUMER_TARGET_EPOCH = 5, CONSUMER_TARGET_MEMBER = 6,
 *           CONSUMER_CURRENT_MEMBER = 7; their values are laid out in {@link ConsumerGroupRecordCodec}
 *           share groups (KIP-932): types 8 to 14 ([string memberId] for 10, 12, 13), laid out in
 *           {@link ShareGroupRecordCodec}
 *
 * value (OFFSET, version 0) := int16 version, int64 offset, int32 leaderEpoch, string metadata,
 *                              int64 commitTimestampMs, int64 expireTimestampMs (-1 = none)
 * value (GROUP, version 0)  := int16 version, string protocolType, int32 generationId,
 *                              string protocolName, string leaderId, int64 stateTimestampMs,
 *                              int32 memberCount, memberCount x member
 * member := string memberId, string groupInstanceId, string clientId, string clientHost,
 *           int32 rebalanceTimeoutMs, int32 sessionTimeoutMs, bytes subscription, bytes assignment
 * </pre>
 *
 * A reader refuses value versions newer than it knows, rather than misreading them. An offset of a
 * producer's transaction (TxnOffsetCommit) has the key and value of any offset; its batch, a
 * transactional one of that producer, is what makes it pending ({@link #SERDE}), and the marker
 * that ends it is the log's control batch. Stateless.
 */
public final class GroupRecordCodec {

    static final short TYPE_OFFSET = 0;
    static final short TYPE_GROUP = 1;
    static final short OFFSET_VALUE_VERSION = 0;
    static final short GROUP_VALUE_VERSION = 0;

    /** This codec as the group coordinator's record serde. */
    public static final CoordinatorRecordSerde<GroupRecord> SERDE = new CoordinatorRecordSerde<>() {
        @Override
        public byte[] key(GroupRecord record) {
            return GroupRecordCodec.key(record);
        }

        @Override
        public byte[] value(GroupRecord record) {
            return GroupRecordCodec.value(record);
        }

        @Override
        public GroupRecord decode(byte[] key, byte[] value) {
            return GroupRecordCodec.decode(key, value);
        }

        @Override
        public TransactionalProducer producerOf(GroupRecord record) {
            return record instanceof GroupRecord.TxnOffsetCommit t
                    ? new TransactionalProducer(t.producerId(), t.producerEpoch()) : null;
        }

        @Override
        public TransactionMarker markerOf(GroupRecord record) {
            return record instanceof GroupRecord.TxnMarker m ? m.marker() : null;
        }

        /** An offset of a transactional batch is pending in its producer's transaction. */
        @Override
        public GroupRecord decodeTransactional(TransactionalProducer producer, byte[] key, byte[] value) {
            GroupRecord r = GroupRecordCodec.decode(key, value);
            if (r instanceof GroupRecord.OffsetCommit c) {
                return new GroupRecord.TxnOffsetCommit(producer.producerId(), producer.producerEpoch(), c);
            }
            throw new CorruptGroupRecordException("a transactional batch of producer " + producer.producerId()
                    + " holds a group record other than an offset commit: " + r.getClass().getSimpleName());
        }

        @Override
        public GroupRecord decodeMarker(TransactionMarker marker) {
            return new GroupRecord.TxnMarker(marker);
        }
    };

    private GroupRecordCodec() {
    }

    /** The compaction key of {@code record}: offsets by (group, topic, partition), metadata by group. */
    public static byte[] key(GroupRecord record) {
        if (record instanceof GroupRecord.TxnOffsetCommit t) {
            return key(t.offset());
        }
        if (record instanceof GroupRecord.TxnMarker) {
            throw new IllegalArgumentException("a transaction marker is a control batch, not a keyed record");
        }
        return write(out -> {
            if (record instanceof GroupRecord.OffsetCommit r) {
                offsetKey(out, r.groupId(), r.topic(), r.partition());
            } else if (record instanceof GroupRecord.OffsetTombstone r) {
                offsetKey(out, r.groupId(), r.topic(), r.partition());
            } else if (record instanceof GroupRecord.ConsumerGroupChange r) {
                ConsumerGroupRecordCodec.key(out, r.change());
            } else if (record instanceof GroupRecord.ShareGroupChange r) {
                ShareGroupRecordCodec.key(out, r.change());
            } else {
                groupKey(out, record.groupId());
            }
        });
    }

    /** The value of {@code record}, or null for a tombstone. */
    public static byte[] value(GroupRecord record) {
        if (record instanceof GroupRecord.TxnOffsetCommit t) {
            return value(t.offset());
        }
        if (record instanceof GroupRecord.TxnMarker) {
            throw new IllegalArgumentException("a transaction marker is a control batch, not a keyed record");
        }
        if (record instanceof GroupRecord.OffsetCommit r) {
            return write(out -> {
                out.writeShort(OFFSET_VALUE_VERSION);
                out.writeLong(r.offset());
                out.writeInt(r.leaderEpoch());
                writeString(out, r.metadata());
                out.writeLong(r.commitTimestampMs());
                out.writeLong(r.expireTimestampMs());
            });
        }
        if (record instanceof GroupRecord.GroupMetadata r) {
            return write(out -> {
                out.writeShort(GROUP_VALUE_VERSION);
                writeString(out, r.protocolType());
                out.writeInt(r.generationId());
                writeString(out, r.protocolName());
                writeString(out, r.leaderId());
                out.writeLong(r.stateTimestampMs());
                out.writeInt(r.members().size());
                for (GroupRecord.Member m : r.members()) {
                    writeString(out, m.memberId());
                    writeString(out, m.groupInstanceId());
                    writeString(out, m.clientId());
                    writeString(out, m.clientHost());
                    out.writeInt(m.rebalanceTimeoutMs());
                    out.writeInt(m.sessionTimeoutMs());
                    writeBytes(out, m.subscription());
                    writeBytes(out, m.assignment());
                }
            });
        }
        if (record instanceof GroupRecord.ConsumerGroupChange r) {
            return ConsumerGroupRecordCodec.hasValue(r.change()) ? write(out -> ConsumerGroupRecordCodec.value(out,
                    r.change())) : null;
        }
        if (record instanceof GroupRecord.ShareGroupChange r) {
            return ShareGroupRecordCodec.hasValue(r.change()) ? write(out -> ShareGroupRecordCodec.value(out,
                    r.change())) : null;
        }
        return null; // tombstones
    }

    /**
     * Rebuilds a record from its key and value (null value: tombstone).
     *
     * @throws CorruptGroupRecordException if the bytes are truncated, of an unknown type, or of a
     *         value version this reader does not know
     */
    public static GroupRecord decode(byte[] key, byte[] value) {
        if (key == null) {
            // Every group record has a key; a keyless one was not written by this class.
            throw new CorruptGroupRecordException("group record without a key");
        }
        try {
            ByteBuffer k = ByteBuffer.wrap(key);
            short type = k.getShort();
            String groupId = readString(k);
            if (type == TYPE_OFFSET) {
                String topic = readString(k);
                int partition = k.getInt();
                if (value == null) {
                    return new GroupRecord.OffsetTombstone(groupId, topic, partition);
                }
                ByteBuffer v = ByteBuffer.wrap(value);
                checkVersion(v.getShort(), OFFSET_VALUE_VERSION, "offset");
                return new GroupRecord.OffsetCommit(groupId, topic, partition, v.getLong(), v.getInt(),
                        readString(v), v.getLong(), v.getLong());
            }
            if (type == TYPE_GROUP) {
                if (value == null) {
                    return new GroupRecord.GroupTombstone(groupId);
                }
                return decodeGroup(groupId, ByteBuffer.wrap(value));
            }
            if (ConsumerGroupRecordCodec.isConsumerType(type)) {
                return new GroupRecord.ConsumerGroupChange(ConsumerGroupRecordCodec.decode(type, groupId, k,
                        value == null ? null : ByteBuffer.wrap(value)));
            }
            if (ShareGroupRecordCodec.isShareType(type)) {
                return new GroupRecord.ShareGroupChange(ShareGroupRecordCodec.decode(type, groupId, k,
                        value == null ? null : ByteBuffer.wrap(value)));
            }
            throw new CorruptGroupRecordException("unknown group record key type " + type);
        } catch (BufferUnderflowException | IllegalArgumentException e) {
            throw new CorruptGroupRecordException("truncated or malformed group record", e);
        }
    }

    private static GroupRecord decodeGroup(String groupId, ByteBuffer v) {
        checkVersion(v.getShort(), GROUP_VALUE_VERSION, "group");
        String protocolType = readString(v);
        int generation = v.getInt();
        String protocolName = readString(v);
        String leader = readString(v);
        long stateTimestamp = v.getLong();
        int count = v.getInt();
        if (count < 0 || count > v.remaining()) {
            throw new CorruptGroupRecordException("group " + groupId + " claims " + count + " members");
        }
        List<GroupRecord.Member> members = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            members.add(new GroupRecord.Member(readString(v), readString(v), readString(v), readString(v),
                    v.getInt(), v.getInt(), readBytes(v), readBytes(v)));
        }
        return new GroupRecord.GroupMetadata(groupId, protocolType, generation, protocolName, leader,
                stateTimestamp, members);
    }

    static void checkVersion(short version, short known, String what) {
        if (version < 0 || version > known) {
            throw new CorruptGroupRecordException(what + " value version " + version
                    + " is not one this broker reads (up to " + known + ")");
        }
    }

    private static void offsetKey(DataOutputStream out, String group, String topic, int partition)
            throws IOException {
        out.writeShort(TYPE_OFFSET);
        writeString(out, group);
        writeString(out, topic);
        out.writeInt(partition);
    }

    private static void groupKey(DataOutputStream out, String group) throws IOException {
        out.writeShort(TYPE_GROUP);
        writeString(out, group);
    }

    interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    private static byte[] write(Writer w) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            w.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not throw
        }
        return bytes.toByteArray();
    }

    static void writeString(DataOutputStream out, String s) throws IOException {
        if (s == null) {
            out.writeShort(-1);
            return;
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > Short.MAX_VALUE) {
            throw new IllegalArgumentException("string of " + b.length + " bytes is too long for a group record");
        }
        out.writeShort(b.length);
        out.write(b);
    }

    static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        if (b == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(b.length);
        out.write(b);
    }

    static String readString(ByteBuffer in) {
        short len = in.getShort();
        if (len < 0) {
            return null;
        }
        byte[] b = new byte[len];
        in.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    static byte[] readBytes(ByteBuffer in) {
        int len = in.getInt();
        if (len < 0) {
            return null;
        }
        if (len > in.remaining()) {
            throw new BufferUnderflowException();
        }
        byte[] b = new byte[len];
        in.get(b);
        return b;
    }
}
