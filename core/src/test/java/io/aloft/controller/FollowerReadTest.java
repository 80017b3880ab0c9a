package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.client.ControllerStreamMetadata;
import io.aloft.controller.codec.ControllerSchemas;
import io.aloft.controller.model.FeatureLevel;
import io.aloft.controller.query.Queries;
import io.aloft.stream.metadata.CreateStreamRequest;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A read that reaches a follower is answered with NotLeader (naming the leader), so clients move
 * on to the leader at once. Regression: with Ratis's LINEARIZABLE read option the follower asks
 * the leader for a read index over a server protocol the netty transport lacks, and never answers;
 * every new client whose first guess was a follower waited out 10 s RPC timeouts.
 */
class FollowerReadTest {
    @TempDir
    Path dir;

    @Test
    void followerAnswersReadWithNotLeader() throws Exception {
        try (TestQuorum q = new TestQuorum(dir, 3); ControllerClient client = q.newClient()) {
            int leader = q.awaitLeader();
            long stream = new ControllerStreamMetadata(client).createStream(new CreateStreamRequest(1))
                    .get(60, TimeUnit.SECONDS);
            int follower = leader == 1 ? 2 : 1;
            Message read = Message.valueOf(ByteString.copyFrom(
                    ControllerSchemas.CODEC.encode(new Queries.DescribeStream(stream), FeatureLevel.INITIAL,
                            FeatureLevel.INITIAL)));
            // No retries: the reply of the one server asked is what this test is about.
            try (RaftClient raw = RaftClient.newBuilder().setProperties(RaftSetup.baseProperties())
                    .setRaftGroup(RaftSetup.group(q.config(1).voters())).setRetryPolicy(RetryPolicies.noRetry())
                    .build()) {
                NotLeaderException notLeader;
                try {
                    RaftClientReply reply = raw.async().sendReadOnly(read, RaftSetup.peerId(follower))
                            .get(60, TimeUnit.SECONDS);
                    notLeader = reply.getNotLeaderException();
                } catch (ExecutionException e) {
                    notLeader = findNotLeader(e);
                }
                assertNotNull(notLeader, "follower " + follower + " answers a read with NotLeader");
                int current = q.awaitLeader();
                assertNotEquals(follower, current);
                if (notLeader.getSuggestedLeader() != null) {
                    assertEquals(RaftSetup.peerId(current), notLeader.getSuggestedLeader().getId(),
                            "the follower names the leader");
                }
            }
        }
    }

    private static NotLeaderException findNotLeader(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof NotLeaderException n) {
                return n;
            }
        }
        throw new AssertionError("the follower's read failed with something other than NotLeader", e);
    }
}
