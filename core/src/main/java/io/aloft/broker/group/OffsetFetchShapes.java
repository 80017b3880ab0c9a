package io.aloft.broker.group;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartition;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopic;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetFetch requests and responses come in two shapes: one group per request (v1-7) and many
 * (v8+), with topics named by id from v10. This turns both into {@link OffsetManager} queries and
 * its results back into the right shape. Stateless apart from the resolver; thread-safe.
 */
final class OffsetFetchShapes {

    private final TopicIdResolver topicIds;

    OffsetFetchShapes(TopicIdResolver topicIds) {
        this.topicIds = topicIds;
    }

    /** v1-7; null when all of the group's offsets are asked for. */
    List<OffsetManager.TopicQuery> queries(OffsetFetchRequestData req) {
        if (req.topics() == null) {
            return null;
        }
        List<OffsetManager.TopicQuery> out = new ArrayList<>();
        req.topics().forEach(t -> out.add(new OffsetManager.TopicQuery(t.name(), null, t.partitionIndexes())));
        return out;
    }

    /** v8+; a topic id that resolves to no topic gives a null name (UNKNOWN_TOPIC_ID). */
    List<OffsetManager.TopicQuery> queries(OffsetFetchRequestData.OffsetFetchRequestGroup rg, boolean byId) {
        if (rg.topics() == null) {
            return null;
        }
        List<OffsetManager.TopicQuery> out = new ArrayList<>();
        rg.topics().forEach(t -> out.add(new OffsetManager.TopicQuery(
                byId ? topicIds.name(t.topicId()) : t.name(), t.topicId(), t.partitionIndexes())));
        return out;
    }

    OffsetFetchResponseData singleGroup(List<OffsetManager.TopicResult> results) {
        OffsetFetchResponseData response = new OffsetFetchResponseData();
        for (OffsetManager.TopicResult t : results) {
            List<OffsetFetchResponsePartition> parts = new ArrayList<>();
            for (OffsetManager.PartitionResult p : t.partitions()) {
                parts.add(new OffsetFetchResponsePartition().setPartitionIndex(p.partition())
                        .setCommittedOffset(p.offset()).setCommittedLeaderEpoch(p.leaderEpoch())
                        .setMetadata(p.metadata()).setErrorCode(p.error().code()));
            }
            response.topics().add(new OffsetFetchResponseTopic().setName(t.name()).setPartitions(parts));
        }
        return response;
    }

    /** v1 has no group-level error, so the error also goes on every partition asked for. */
    OffsetFetchResponseData singleGroupError(OffsetFetchRequestData req, short version, Errors error) {
        OffsetFetchResponseData response = new OffsetFetchResponseData().setErrorCode(error.code());
        if (version < 2 && req.topics() != null) {
            for (OffsetFetchRequestData.OffsetFetchRequestTopic t : req.topics()) {
                List<OffsetFetchResponsePartition> parts = new ArrayList<>();
                for (int p : t.partitionIndexes()) {
                    parts.add(new OffsetFetchResponsePartition().setPartitionIndex(p)
                            .setCommittedOffset(OffsetManager.NO_OFFSET).setMetadata("").setErrorCode(error.code()));
                }
                response.topics().add(new OffsetFetchResponseTopic().setName(t.name()).setPartitions(parts));
            }
        }
        return response;
    }

    OffsetFetchResponseGroup groupError(String groupId, Errors error) {
        return new OffsetFetchResponseGroup().setGroupId(groupId).setErrorCode(error.code());
    }

    OffsetFetchResponseGroup group(String groupId, List<OffsetManager.TopicResult> results, boolean byId) {
        OffsetFetchResponseGroup group = new OffsetFetchResponseGroup().setGroupId(groupId);
        for (OffsetManager.TopicResult t : results) {
            List<OffsetFetchResponsePartitions> parts = new ArrayList<>();
            for (OffsetManager.PartitionResult p : t.partitions()) {
                parts.add(new OffsetFetchResponsePartitions().setPartitionIndex(p.partition())
                        .setCommittedOffset(p.offset()).setCommittedLeaderEpoch(p.leaderEpoch())
                        .setMetadata(p.metadata()).setErrorCode(p.error().code()));
            }
            OffsetFetchResponseTopics topic = new OffsetFetchResponseTopics().setPartitions(parts);
            if (byId) {
                topic.setTopicId(t.id());
            } else {
                topic.setName(t.name());
            }
            group.topics().add(topic);
        }
        return group;
    }
}
