package io.aloft.broker.group.consumer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;

/**
 * How the admin APIs show a consumer group: ConsumerGroupDescribe and ListGroups (DescribeGroups,
 * the classic API, answers for a consumer group as for an unknown one, as Kafka does). Stateless.
 */
public final class ConsumerGroupDescriber {

    /** ListGroups' group type and DescribeGroups' protocol type of a consumer group. */
    public static final String GROUP_TYPE = "consumer";
    /** ConsumerGroupDescribe v1+ MemberType of a member using the consumer protocol. */
    private static final byte CONSUMER_MEMBER_TYPE = 1;

    private ConsumerGroupDescriber() {
    }

    public static ListedGroup listed(ConsumerGroup g) {
        return new ListedGroup().setGroupId(g.groupId()).setProtocolType(GROUP_TYPE)
                .setGroupState(g.state().protocolName()).setGroupType(GROUP_TYPE);
    }

    /** ConsumerGroupDescribe's answer for one group. */
    public static ConsumerGroupDescribeResponseData.DescribedGroup describe(ConsumerGroup g, String assignor,
                                                                            ClusterTopics cluster) {
        ConsumerGroupDescribeResponseData.DescribedGroup out = new ConsumerGroupDescribeResponseData.DescribedGroup()
                .setGroupId(g.groupId()).setGroupState(g.state().protocolName()).setGroupEpoch(g.groupEpoch())
                .setAssignmentEpoch(g.targetEpoch()).setAssignorName(assignor);
        Map<Uuid, String> names = Subscriptions.namesById(g.subscribedTopics());
        for (ConsumerGroupMember m : g.members().values()) {
            MemberSubscription s = m.subscription();
            out.members().add(new ConsumerGroupDescribeResponseData.Member()
                    .setMemberId(m.memberId()).setInstanceId(m.instanceId())
                    .setRackId(s == null ? null : s.rackId())
                    .setMemberEpoch(m.epoch())
                    .setClientId(s == null ? "" : s.clientId()).setClientHost(s == null ? "" : s.clientHost())
                    .setSubscribedTopicNames(s == null ? List.of() : s.topicNames())
                    .setSubscribedTopicRegex(s == null ? null : s.topicRegex())
                    .setAssignment(assignment(m.current().assigned(), names, cluster))
                    .setTargetAssignment(assignment(g.target(m.memberId()), names, cluster))
                    .setMemberType(CONSUMER_MEMBER_TYPE));
        }
        return out;
    }

    private static ConsumerGroupDescribeResponseData.Assignment assignment(Assignment a, Map<Uuid, String> names,
                                                                           ClusterTopics cluster) {
        List<ConsumerGroupDescribeResponseData.TopicPartitions> topics = new ArrayList<>();
        a.partitions().forEach((id, parts) -> topics.add(new ConsumerGroupDescribeResponseData.TopicPartitions()
                .setTopicId(id).setTopicName(name(id, names, cluster)).setPartitions(new ArrayList<>(parts))));
        return new ConsumerGroupDescribeResponseData.Assignment().setTopicPartitions(topics);
    }

    private static String name(Uuid id, Map<Uuid, String> names, ClusterTopics cluster) {
        String n = names.get(id);
        if (n == null) {
            TopicMetadata t = cluster.topic(id);
            n = t == null ? "" : t.name();
        }
        return n;
    }
}
