package io.aloft.broker.conformance;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Share group membership (KIP-932) as KafkaShareConsumer speaks it: a member joins with epoch 0 and
 * a member id of its own, heartbeats with its epoch, is fenced for a wrong one, and leaves with
 * epoch -1; bad input; ShareGroupDescribe of a live and an unknown group. Only run where the broker
 * advertises the APIs. (Deeper checks against Kafka: {@code ShareGroupMembershipOracleTest}.)
 *
 * <p>Stateless.
 */
final class ShareGroupCases {

    private ShareGroupCases() {
    }

    static List<Shape> shapes() {
        List<Shape> shapes = new ArrayList<>();
        shapes.add(Shape.script(ApiKeys.SHARE_GROUP_HEARTBEAT, "join, heartbeat, fenced, leave", 1, 1, (s, v) -> {
            String group = "conf-sg-heartbeat-v" + v;
            String member = Uuid.randomUuid().toString();
            ShareGroupHeartbeatResponseData joined = joined(s, group, member, v);
            s.ask("heartbeat", ApiKeys.SHARE_GROUP_HEARTBEAT, v, heartbeat(group, member, joined.memberEpoch()));
            s.ask("epoch ahead", ApiKeys.SHARE_GROUP_HEARTBEAT, v,
                    heartbeat(group, member, joined.memberEpoch() + 10));
            s.ask("unknown member", ApiKeys.SHARE_GROUP_HEARTBEAT, v,
                    heartbeat(group, Uuid.randomUuid().toString(), 1));
            s.ask("unknown group", ApiKeys.SHARE_GROUP_HEARTBEAT, v, heartbeat("conf-sg-no-group", member, 1));
            s.ask("leave", ApiKeys.SHARE_GROUP_HEARTBEAT, v, heartbeat(group, member, -1));
        }));
        shapes.add(Shape.script(ApiKeys.SHARE_GROUP_HEARTBEAT, "bad input", 1, 1, (s, v) -> {
            String group = "conf-sg-bad-v" + v;
            s.ask("no subscription", ApiKeys.SHARE_GROUP_HEARTBEAT, v, joinRequest(group,
                    Uuid.randomUuid().toString()).setSubscribedTopicNames(null));
            s.ask("no member id", ApiKeys.SHARE_GROUP_HEARTBEAT, v, joinRequest(group, ""));
            s.ask("empty group id", ApiKeys.SHARE_GROUP_HEARTBEAT, v, joinRequest("", Uuid.randomUuid().toString()));
            s.ask("epoch -2", ApiKeys.SHARE_GROUP_HEARTBEAT, v, joinRequest(group, Uuid.randomUuid().toString())
                    .setMemberEpoch(-2));
        }));
        shapes.add(Shape.script(ApiKeys.SHARE_GROUP_DESCRIBE, "live and unknown group", 1, 1, (s, v) -> {
            String group = "conf-sg-describe-v" + v;
            String member = Uuid.randomUuid().toString();
            joined(s, group, member, (short) 1);
            s.ask("describe", ApiKeys.SHARE_GROUP_DESCRIBE, v, new ShareGroupDescribeRequestData()
                    .setGroupIds(List.of(group, "conf-sg-no-such-group")));
            s.ask("leave", ApiKeys.SHARE_GROUP_HEARTBEAT, (short) 1, heartbeat(group, member, -1));
        }));
        return shapes;
    }

    private static ShareGroupHeartbeatRequestData joinRequest(String group, String member) {
        return heartbeat(group, member, 0).setSubscribedTopicNames(List.of(Target.DATA));
    }

    private static ShareGroupHeartbeatRequestData heartbeat(String group, String member, int epoch) {
        return new ShareGroupHeartbeatRequestData().setGroupId(group).setMemberId(member).setMemberEpoch(epoch);
    }

    /** A join, whose answer must be a member epoch (else the rest of the case would test nothing). */
    private static ShareGroupHeartbeatResponseData joined(Session s, String group, String member, short v)
            throws Exception {
        ShareGroupHeartbeatResponseData r = (ShareGroupHeartbeatResponseData) s.ask("join",
                ApiKeys.SHARE_GROUP_HEARTBEAT, v, joinRequest(group, member));
        if (r == null || r.errorCode() != 0 || r.memberEpoch() <= 0) {
            throw new AssertionError(s.target + ": the join was not answered with a member epoch: " + r);
        }
        return r;
    }
}
