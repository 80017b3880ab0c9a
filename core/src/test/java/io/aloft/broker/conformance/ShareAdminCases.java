package io.aloft.broker.conformance;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Share group admin APIs on the wire: ShareGroupDescribe of a live and an unknown group, and
 * Describe/Alter/DeleteShareGroupOffsets of a live group (Alter and Delete refused while it has a
 * member), of the group once empty, of an unknown group and of an unknown topic, with a member that
 * joined by ShareGroupHeartbeat ({@link ShareCases}).
 *
 * <p>Stateless.
 */
final class ShareAdminCases {
    private static final String NO_TOPIC = "conf-share-no-such-topic";
    /**
     * A group no case creates, for the read-only APIs whose responses name it. Alter and Delete
     * (whose responses do not) use a new name each run, {@link #unknownGroup()}: Kafka creates a
     * group that AlterShareGroupOffsets names.
     */
    private static final String NO_GROUP = "conf-share-no-such-group";

    private ShareAdminCases() {
    }

    static List<Shape> shapes() {
        List<Shape> shapes = new ArrayList<>();
        shapes.add(Shape.script(ApiKeys.SHARE_GROUP_DESCRIBE, "live and unknown group", 1, 1, (s, v) -> {
            String group = "conf-share-describe-v" + v; // named in the response paths: the same on every run
            String member = Uuid.randomUuid().toString();
            ShareCases.join(s, "join", group, member);
            s.ask("describe", ApiKeys.SHARE_GROUP_DESCRIBE, v, new ShareGroupDescribeRequestData()
                    .setGroupIds(List.of(group, NO_GROUP)).setIncludeAuthorizedOperations(true));
            s.ask("leave", ApiKeys.SHARE_GROUP_HEARTBEAT, (short) 1, ShareCases.heartbeat(group, member, -1));
        }));
        shapes.add(Shape.script(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, "live and unknown group, unknown topic", 0, 1,
                (s, v) -> {
                    String group = "conf-share-offsets-v" + v; // named in the response paths
                    String member = Uuid.randomUuid().toString();
                    ShareCases.join(s, "join", group, member);
                    s.ask("describe", ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, v, new DescribeShareGroupOffsetsRequestData()
                            .setGroups(List.of(describeGroup(group, Target.DATA), describeGroup(NO_GROUP, Target.DATA),
                                    describeGroup(group, NO_TOPIC))));
                    s.ask("leave", ApiKeys.SHARE_GROUP_HEARTBEAT, (short) 1, ShareCases.heartbeat(group, member, -1));
                }));
        shapes.add(Shape.script(ApiKeys.ALTER_SHARE_GROUP_OFFSETS, "live, empty and unknown group", 0, 0, (s, v) -> {
            String group = "conf-share-alter-" + Uuid.randomUuid();
            String member = Uuid.randomUuid().toString();
            ShareCases.join(s, "join", group, member);
            s.ask("group has a member", ApiKeys.ALTER_SHARE_GROUP_OFFSETS, v, alter(group, Target.DATA));
            s.ask("leave", ApiKeys.SHARE_GROUP_HEARTBEAT, (short) 1, ShareCases.heartbeat(group, member, -1));
            s.ask("empty group", ApiKeys.ALTER_SHARE_GROUP_OFFSETS, v, alter(group, Target.DATA));
            s.ask("unknown topic", ApiKeys.ALTER_SHARE_GROUP_OFFSETS, v, alter(group, NO_TOPIC));
            s.ask("unknown group", ApiKeys.ALTER_SHARE_GROUP_OFFSETS, v, alter(unknownGroup(), Target.DATA));
        }));
        shapes.add(Shape.script(ApiKeys.DELETE_SHARE_GROUP_OFFSETS, "live, empty and unknown group", 0, 0, (s, v) -> {
            String group = "conf-share-delete-" + Uuid.randomUuid();
            String member = Uuid.randomUuid().toString();
            ShareCases.join(s, "join", group, member);
            s.ask("group has a member", ApiKeys.DELETE_SHARE_GROUP_OFFSETS, v, delete(group, Target.DATA));
            s.ask("leave", ApiKeys.SHARE_GROUP_HEARTBEAT, (short) 1, ShareCases.heartbeat(group, member, -1));
            // Whether the member's short stay initialized the partition's state is a matter of timing:
            // altering the offsets initializes it, so that there is state to delete.
            s.ask("alter", ApiKeys.ALTER_SHARE_GROUP_OFFSETS, (short) 0, alter(group, Target.DATA));
            s.ask("empty group", ApiKeys.DELETE_SHARE_GROUP_OFFSETS, v, delete(group, Target.DATA));
            s.ask("unknown topic", ApiKeys.DELETE_SHARE_GROUP_OFFSETS, v, delete(group, NO_TOPIC));
            s.ask("unknown group", ApiKeys.DELETE_SHARE_GROUP_OFFSETS, v, delete(unknownGroup(), Target.DATA));
        }));
        return shapes;
    }

    private static String unknownGroup() {
        return "conf-share-unknown-" + Uuid.randomUuid();
    }

    private static DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup describeGroup(
            String group, String topic) {
        return new DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup().setGroupId(group)
                .setTopics(List.of(new DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestTopic()
                        .setTopicName(topic).setPartitions(List.of(0))));
    }

    private static AlterShareGroupOffsetsRequestData alter(String group, String topic) {
        AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopicCollection topics =
                new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopicCollection();
        topics.add(new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic().setTopicName(topic)
                .setPartitions(List.of(new AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestPartition()
                        .setPartitionIndex(0).setStartOffset(1))));
        return new AlterShareGroupOffsetsRequestData().setGroupId(group).setTopics(topics);
    }

    private static DeleteShareGroupOffsetsRequestData delete(String group, String topic) {
        return new DeleteShareGroupOffsetsRequestData().setGroupId(group).setTopics(List.of(
                new DeleteShareGroupOffsetsRequestData.DeleteShareGroupOffsetsRequestTopic().setTopicName(topic)));
    }
}
