package io.aloft.broker.fetch;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;

/**
 * What one Fetch request reads and how its answer is made, as {@link FetchSessionManager#plan}
 * decides from the request's session id and epoch: the handler reads {@link #targets()} (waiting
 * for data as the request allows), then calls {@link #respond} once with what it read.
 *
 * <p>Implementations are confined to the request they were made for; {@link #respond} updates
 * the shared session state under that session's lock.
 */
public interface FetchPlan {

    /** The partitions to read, in the order to read them (the response byte budget goes first come, first served). */
    List<FetchTarget> targets();

    /**
     * The response to the request, given each target's answer ({@code answers.get(i)} answers
     * {@code targets().get(i)}). For a session, this is where its state moves forward; a request
     * that fails before this call leaves the session as it was.
     */
    FetchResponseData respond(List<PartitionData> answers);

    /** A plan that reads nothing and answers a top-level error (session errors carry no partitions). */
    static FetchPlan error(Errors error, int sessionId) {
        return new FetchPlan() {
            @Override
            public List<FetchTarget> targets() {
                return List.of();
            }

            @Override
            public FetchResponseData respond(List<PartitionData> answers) {
                return response(error, sessionId, List.of());
            }
        };
    }

    /** A topic of the response: grouped by name and id, as the client sent them. */
    record TopicKey(String name, Uuid id) {
    }

    /**
     * The response data: {@code error} at the top level, {@code sessionId}, and the partitions
     * grouped by topic in first-seen order.
     */
    static FetchResponseData response(Errors error, int sessionId,
            Iterable<Map.Entry<FetchTarget, PartitionData>> parts) {
        Map<TopicKey, FetchableTopicResponse> topics = new LinkedHashMap<>();
        for (Map.Entry<FetchTarget, PartitionData> e : parts) {
            FetchTarget t = e.getKey();
            topics.computeIfAbsent(new TopicKey(t.topicName(), t.topicId()), k -> new FetchableTopicResponse()
                    .setTopic(k.name() == null ? "" : k.name())
                    .setTopicId(k.id() == null ? Uuid.ZERO_UUID : k.id())
                    .setPartitions(new ArrayList<>())).partitions().add(e.getValue());
        }
        return new FetchResponseData().setThrottleTimeMs(0).setErrorCode(error.code()).setSessionId(sessionId)
                .setResponses(new ArrayList<>(topics.values()));
    }
}
