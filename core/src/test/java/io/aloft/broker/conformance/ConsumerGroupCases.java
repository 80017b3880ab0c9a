package io.aloft.broker.conformance;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The KIP-848 consumer group protocol as kafka-clients 4.x and librdkafka 2.10+ speak it: a member
 * joins with epoch 0 and a member id of its own, heartbeats with the epoch and partitions it was
 * given, is fenced for a wrong epoch, and leaves with epoch -1; bad input (no subscription, an
 * unknown assignor, a bad regular expression); ConsumerGroupDescribe of a live and an unknown group.
 * (Deeper protocol checks against Kafka are in {@code ConsumerGroupProtocolOracleTest}.)
 *
 * <p>Stateless.
 */
final class ConsumerGroupCases {

    private ConsumerGroupCases() {
    }

    static List<Shape> shapes() {
        List<Shape> shapes = new ArrayList<>();
        shapes.add(Shape.script(ApiKeys.CONSUMER_GROUP_HEARTBEAT, "join, heartbeat, fenced, leave", 0, 1, (s, v) -> {
            String group = "conf-cg-heartbeat-v" + v;
            String member = Uuid.randomUuid().toString();
            ConsumerGroupHeartbeatResponseData joined = joined(s, join(s, "join", v, group, member));
            ConsumerGroupHeartbeatRequestData again = heartbeat(group, member, joined.memberEpoch())
                    .setTopicPartitions(owned(joined));
            s.ask("heartbeat", ApiKeys.CONSUMER_GROUP_HEARTBEAT, v, again);
            s.ask("epoch ahead", ApiKeys.CONSUMER_GROUP_HEARTBEAT, v,
                    heartbeat(group, member, joined.memberEpoch() + 10).setTopicPartitions(owned(joined)));
            s.ask("unknown member", ApiKeys.CONSUMER_GROUP_HEARTBEAT, v,
                    heartbeat(group, Uuid.randomUuid().toString(), 1).setTopicPartitions(List.of()));
            s.ask("unknown group", ApiKeys.CONSUMER_GROUP_HEARTBEAT, v,
                    heartbeat("conf-cg-no-group", member, 1).setTopicPartitions(List.of()));
            s.ask("leave", ApiKeys.CONSUMER_GROUP_HEARTBEAT, v, heartbeat(group, member, -1));
        }));
        shapes.add(Shape.script(ApiKeys.CONSUMER_GROUP_HEARTBEAT, "bad input", 0, 1, (s, v) -> {
            String group = "conf-cg-bad-v" + v;
            s.ask("no subscription", ApiKeys.CONSUMER_GROUP_HEARTBEAT, v, joinRequest(group,
                    Uuid.randomUuid().toString()).setSubscribedTopicNames(null));
            s.ask("unknown assignor", ApiKeys.CONSUMER_GROUP_HEARTBEAT, v, joinRequest(group,
                    Uuid.randomUuid().toString()).setServerAssignor("conf-no-such-assignor"));
            s.ask("empty group id", ApiKeys.CONSUMER_GROUP_HEARTBEAT, v, joinRequest("",
                    Uuid.randomUuid().toString()));
            if (v >= 1) {
                s.ask("bad regex", ApiKeys.CONSUMER_GROUP_HEARTBEAT, v, joinRequest(group,
                        Uuid.randomUuid().toString()).setSubscribedTopicNames(null).setSubscribedTopicRegex("conf-(["));
            }
        }));
        shapes.add(Shape.script(ApiKeys.CONSUMER_GROUP_DESCRIBE, "live and unknown group", 0, 1, (s, v) -> {
            String group = "conf-cg-describe-v" + v;
            String member = Uuid.randomUuid().toString();
            joined(s, join(s, "join", (short) 1, group, member));
            s.ask("describe", ApiKeys.CONSUMER_GROUP_DESCRIBE, v, new ConsumerGroupDescribeRequestData()
                    .setGroupIds(List.of(group, "conf-cg-no-such-group")));
            s.ask("leave", ApiKeys.CONSUMER_GROUP_HEARTBEAT, (short) 1, heartbeat(group, member, -1));
        }));
        return shapes;
    }

    /** A member joining with epoch 0, subscribed to the data topic. */
    private static ConsumerGroupHeartbeatRequestData joinRequest(String group, String member) {
        return heartbeat(group, member, 0).setRebalanceTimeoutMs(30_000)
                .setSubscribedTopicNames(List.of(Target.DATA)).setTopicPartitions(List.of());
    }

    private static ConsumerGroupHeartbeatRequestData heartbeat(String group, String member, int epoch) {
        return new ConsumerGroupHeartbeatRequestData().setGroupId(group).setMemberId(member).setMemberEpoch(epoch)
                .setRebalanceTimeoutMs(-1);
    }

    private static ConsumerGroupHeartbeatResponseData join(Session s, String step, short v, String group,
            String member) throws Exception {
        return (ConsumerGroupHeartbeatResponseData) s.ask(step, ApiKeys.CONSUMER_GROUP_HEARTBEAT, v,
                joinRequest(group, member));
    }

    /** The join's answer, which must be a member epoch (else the rest of the case would test nothing). */
    private static ConsumerGroupHeartbeatResponseData joined(Session s, ConsumerGroupHeartbeatResponseData r) {
        if (r == null || r.errorCode() != 0 || r.memberEpoch() <= 0) {
            throw new AssertionError(s.target + ": the join was not answered with a member epoch: " + r);
        }
        s.note("join", "assigned partitions", owned(r).stream().mapToInt(tp -> tp.partitions().size()).sum());
        return r;
    }

    /** The partitions a heartbeat response assigned, as the next heartbeat reports them owned. */
    private static List<ConsumerGroupHeartbeatRequestData.TopicPartitions> owned(
            ConsumerGroupHeartbeatResponseData response) {
        List<ConsumerGroupHeartbeatRequestData.TopicPartitions> out = new ArrayList<>();
        if (response.assignment() != null) {
            for (ConsumerGroupHeartbeatResponseData.TopicPartitions tp : response.assignment().topicPartitions()) {
                out.add(new ConsumerGroupHeartbeatRequestData.TopicPartitions().setTopicId(tp.topicId())
                        .setPartitions(tp.partitions()));
            }
        }
        return out;
    }
}
