package io.aloft.broker.group.share;

import io.aloft.broker.group.consumer.Assignment;
import io.aloft.broker.group.consumer.ClusterTopics;
import io.aloft.broker.group.consumer.TopicMetadata;
import io.aloft.broker.share.ShareGroupDirectory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;

/** How the admin APIs show a share group: ShareGroupDescribe, ListGroups, the share directory. Stateless. */
public final class ShareGroupDescriber {

    /** ListGroups' group type and protocol type of a share group. */
    public static final String GROUP_TYPE = "share";

    private ShareGroupDescriber() {
    }

    public static ListedGroup listed(ShareGroup g) {
        return new ListedGroup().setGroupId(g.groupId()).setProtocolType(GROUP_TYPE)
                .setGroupState(g.state().protocolName()).setGroupType(GROUP_TYPE);
    }

    /** ShareGroupDescribe's answer for one group. */
    public static ShareGroupDescribeResponseData.DescribedGroup describe(ShareGroup g, ClusterTopics cluster) {
        ShareGroupDescribeResponseData.DescribedGroup out = new ShareGroupDescribeResponseData.DescribedGroup()
                .setGroupId(g.groupId()).setGroupState(g.state().protocolName()).setGroupEpoch(g.groupEpoch())
                .setAssignmentEpoch(g.targetEpoch()).setAssignorName(SimpleShareAssignor.NAME);
        Map<Uuid, String> names = new HashMap<>();
        g.subscribedTopics().values().forEach(t -> names.put(t.id(), t.name()));
        for (ShareGroupMember m : g.members().values()) {
            ShareGroupRecord.Metadata meta = m.metadata();
            out.members().add(new ShareGroupDescribeResponseData.Member()
                    .setMemberId(m.memberId()).setRackId(meta == null ? null : meta.rackId())
                    .setMemberEpoch(m.epoch())
                    .setClientId(meta == null ? "" : meta.clientId())
                    .setClientHost(meta == null ? "" : meta.clientHost())
                    .setSubscribedTopicNames(meta == null ? List.of() : meta.topicNames())
                    .setAssignment(assignment(m.assigned(), names, cluster)));
        }
        return out;
    }

    /** The group as the share admin APIs see it. */
    public static ShareGroupDirectory.ShareGroupSummary summary(ShareGroup g) {
        Set<String> subscribed = new TreeSet<>();
        g.members().values().forEach(m -> {
            if (m.metadata() != null) {
                subscribed.addAll(m.metadata().topicNames());
            }
        });
        Map<Uuid, Set<Integer>> initialized = new HashMap<>();
        g.initialized().partitions().forEach((t, p) -> initialized.put(t, Set.copyOf(p)));
        return new ShareGroupDirectory.ShareGroupSummary(g.groupId(), g.state().protocolName(), g.groupEpoch(),
                g.members().size(), subscribed, initialized);
    }

    private static ShareGroupDescribeResponseData.Assignment assignment(Assignment a, Map<Uuid, String> names,
                                                                        ClusterTopics cluster) {
        List<ShareGroupDescribeResponseData.TopicPartitions> topics = new ArrayList<>();
        a.partitions().forEach((id, parts) -> {
            String name = names.get(id);
            if (name == null) {
                TopicMetadata t = cluster.topic(id);
                name = t == null ? "" : t.name();
            }
            topics.add(new ShareGroupDescribeResponseData.TopicPartitions().setTopicId(id).setTopicName(name)
                    .setPartitions(new ArrayList<>(parts)));
        });
        return new ShareGroupDescribeResponseData.Assignment().setTopicPartitions(topics);
    }
}
