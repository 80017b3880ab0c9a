package io.aloft.controller.client;

import io.aloft.controller.ControllerConfig;
import io.aloft.controller.ControllerException;
import io.aloft.controller.RaftSetup;
import java.io.IOException;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerProto;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.util.TimeDuration;

/**
 * The Raft clients {@link ControllerClient} talks to the quorum through, one kind per use (writes
 * and reads, heartbeats, the watcher's long polls, a one-off look at the Raft configuration), each
 * with the reply timeout and retries that use needs.
 *
 * <p>Stateless; called from any thread.
 */
final class RaftClients {
    /** The pause between two attempts of a request, in Ratis's retries and in ControllerClient's. */
    static final long RETRY_SLEEP_MS = 100;

    private RaftClients() {
    }

    /**
     * How long the write and read clients wait for one reply before Ratis tries another voter: a
     * leader that went silent (its process paused) costs this much per client, not the 10 s of
     * {@code RaftSetup.CLIENT_RPC_TIMEOUT}. A command that outlives it is sent again and applied once.
     */
    static final long OPERATION_RPC_TIMEOUT_MS = 3_000;

    private static org.apache.ratis.conf.RaftProperties properties(long rpcTimeoutMs) {
        org.apache.ratis.conf.RaftProperties props = RaftSetup.baseProperties();
        org.apache.ratis.client.RaftClientConfigKeys.Rpc.setRequestTimeout(props,
                TimeDuration.valueOf(rpcTimeoutMs, TimeUnit.MILLISECONDS));
        return props;
    }

    /** A write or read client with {@code policy}'s retries (reads use none: they alternate voters themselves). */
    static RaftClient operation(ControllerConfig config, RetryPolicy policy) {
        return RaftClient.newBuilder()
                .setProperties(properties(OPERATION_RPC_TIMEOUT_MS))
                .setRaftGroup(RaftSetup.group(config.voters()))
                .setRetryPolicy(policy)
                .build();
    }

    /** A write client: bounded retries with {@link #RETRY_SLEEP_MS} between them. */
    static RaftClient operation(ControllerConfig config) {
        return withRpcTimeout(config, OPERATION_RPC_TIMEOUT_MS);
    }

    /**
     * The change feed watcher's client ({@link MetadataWatcher}): the write clients' reply timeout,
     * {@link #OPERATION_RPC_TIMEOUT_MS}, not the 10 s of {@code RaftSetup.CLIENT_RPC_TIMEOUT}. The
     * leader answers a poll at once ({@code MetadataWatcher.POLL_WAIT_MS} is 0: nothing is held
     * open), so a longer wait buys nothing; what it costs is a leader that went silent (its process
     * paused, its host unreachable): the poll sent to it waits out the whole timeout before Ratis
     * tries another voter, and meanwhile the broker learns of no change (partitions moved to it,
     * brokers fenced). A reply that does take longer (a large image from a loaded leader) fails
     * that poll, which is tried again from the same position: the read clients, whose answers can be
     * as large (a whole key-value prefix), rely on the same bound.
     */
    static RaftClient watch(ControllerConfig config) {
        return withRpcTimeout(config, OPERATION_RPC_TIMEOUT_MS);
    }

    /** A client whose replies may take {@code rpcTimeoutMs}, with bounded retries. */
    static RaftClient withRpcTimeout(ControllerConfig config, long rpcTimeoutMs) {
        // Bounded: Ratis's default retries forever without sleeping. Leader changes are retried here,
        // and again by submit() until the request timeout.
        int attempts = (int) Math.max(1, config.requestTimeoutMs() / RETRY_SLEEP_MS);
        return RaftClient.newBuilder()
                .setProperties(properties(rpcTimeoutMs))
                .setRaftGroup(RaftSetup.group(config.voters()))
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(attempts,
                        TimeDuration.valueOf(RETRY_SLEEP_MS, TimeUnit.MILLISECONDS)))
                .build();
    }

    /** One reply may take a quarter of the session (0.5 to 3 s): a heartbeat gets several voters to try within it. */
    static long livenessRpcTimeoutMs(ControllerConfig config) {
        return Math.max(500, Math.min(3_000, config.sessionTimeoutMs() / 4));
    }

    /**
     * The heartbeat's client: a shorter reply timeout (see {@link #livenessRpcTimeoutMs}) and as
     * many attempts as the others, since voters refusing connections fail attempts at once.
     */
    static RaftClient liveness(ControllerConfig config) {
        return withRpcTimeout(config, livenessRpcTimeoutMs(config));
    }

    /** The voter ids of the current Raft configuration, as the first of {@code peers} that answers describes it. */
    static List<Integer> voterIds(ControllerConfig config, List<RaftPeerId> peers) {
        Exception last = null;
        try (RaftClient admin = operation(config, RetryPolicies.noRetry())) {
            for (RaftPeerId peer : peers) {
                try {
                    GroupInfoReply info = admin.getGroupManagementApi(peer).info(RaftSetup.groupId());
                    TreeSet<Integer> ids = new TreeSet<>();
                    RaftConfigurationProto conf = info.getConf().orElse(null);
                    if (conf != null) {
                        // During a configuration change both the old and the new voters must support the level.
                        for (RaftPeerProto p : conf.getPeersList()) {
                            ids.add(RaftSetup.nodeId(RaftPeerId.valueOf(p.getId())));
                        }
                        for (RaftPeerProto p : conf.getOldPeersList()) {
                            ids.add(RaftSetup.nodeId(RaftPeerId.valueOf(p.getId())));
                        }
                    } else {
                        info.getGroup().getPeers().forEach(p -> ids.add(RaftSetup.nodeId(p.getId())));
                    }
                    return List.copyOf(ids);
                } catch (IOException | RuntimeException e) {
                    last = e;
                }
            }
        } catch (IOException e) {
            last = e;
        }
        throw new CompletionException(new ControllerException(ControllerException.Code.UNAVAILABLE,
                "no voter described the Raft configuration", last));
    }
}
