package io.aloft.controller;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.netty.NettyConfigKeys;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * The Raft group and Ratis settings shared by controller voters and clients (internal to the
 * controller packages). Every Ratis default that is unsafe or slow here is overridden in this one
 * place, with the reason.
 */
public final class RaftSetup {
    // No TLS or authentication on Raft traffic (voters with each other, brokers with voters), so the
    // quorum belongs on a private network (README, "Securing internal traffic"). Ratis 3.3.0 cannot
    // do it over this transport: NettyRpcService (server) and NettyRpcProxy (client, also used
    // voter-to-voter) build fixed pipelines (varint32 framing + protobuf codecs + handler) with no
    // SslHandler and no hook for one, and NettyConfigKeys.Server/Client have only host, port and
    // epoll keys. Ratis's TlsConf is wired only to the Netty DataStream transport
    // (NettyConfigKeys.DataStream.*.setTlsConf: bulk state-machine data, not Raft requests) and to
    // ratis-grpc (GrpcConfigKeys.TLS), the transport rejected here (slow close, lagging restarted
    // followers) and not a dependency. Ways forward: ratis-grpc with mutual TLS (and the failover
    // measurements redone), or an own RpcType (raft.rpc.type takes a class name) whose Netty
    // pipelines start with an SslHandler.

    // Ratis's netty keeps its default I/O threads (two per core). 64 were tried (its server blocks
    // an I/O thread per client request until the reply): every netty group then allocates 64 event
    // loops up front (130 MB of heap in the test JVM, which ran out of memory), and the drain of
    // 1,000 partitions that seemed to need them was as fast without (2.5-4.3 s) once controller
    // reads stopped failing on followers (ControllerClient#readTarget).

    private RaftSetup() {
    }

    /** One fixed group: a cluster has exactly one controller quorum. */
    private static final RaftGroupId GROUP_ID =
            RaftGroupId.valueOf(UUID.nameUUIDFromBytes("aloft-controller".getBytes(StandardCharsets.UTF_8)));

    /**
     * How long a client waits for one Raft reply unless it sets its own (ControllerClient's clients
     * all do: see RaftClients; the rest are one-off administrative calls).
     */
    public static final TimeDuration CLIENT_RPC_TIMEOUT = TimeDuration.valueOf(10, TimeUnit.SECONDS);

    public static RaftGroupId groupId() {
        return GROUP_ID;
    }

    public static RaftPeerId peerId(int nodeId) {
        return RaftPeerId.valueOf("n" + nodeId);
    }

    /** The node id of a peer id made by {@link #peerId}. */
    public static int nodeId(RaftPeerId peerId) {
        String id = peerId.toString();
        if (!id.matches("n\\d{1,9}")) {
            throw new IllegalArgumentException("peer id " + id + " is not a controller voter's (n<node id>)");
        }
        return Integer.parseInt(id.substring(1));
    }

    public static RaftGroup group(List<ControllerConfig.Voter> voters) {
        RaftPeer[] peers = voters.stream()
                .map(v -> RaftPeer.newBuilder().setId(peerId(v.id())).setAddress(v.host() + ":" + v.port()).build())
                .toArray(RaftPeer[]::new);
        return RaftGroup.valueOf(GROUP_ID, peers);
    }

    /** Netty transport (Ratis's gRPC one closes slowly and lets restarted followers lag) and client timeouts. */
    public static RaftProperties baseProperties() {
        RaftProperties props = new RaftProperties();
        RaftConfigKeys.Rpc.setType(props, SupportedRpcType.NETTY);
        RaftClientConfigKeys.Rpc.setRequestTimeout(props, CLIENT_RPC_TIMEOUT);
        return props;
    }

    /** A voter's server settings. */
    public static RaftProperties serverProperties(ControllerConfig config, ControllerConfig.Voter self) {
        RaftProperties props = baseProperties();
        // Bind where the voter list says, never all interfaces or a random port (Ratis's defaults).
        NettyConfigKeys.Server.setHost(props, self.host());
        NettyConfigKeys.Server.setPort(props, self.port());
        // Ratis's default storage is /tmp/raft-server.
        RaftServerConfigKeys.setStorageDir(props, List.of(new File(config.dataDir().toAbsolutePath().toString())));
        // Automatic snapshots are off by default and every snapshot is kept forever.
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(props, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(props, config.snapshotIntervalEntries());
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(props, 2);
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(props, true);
        RaftServerConfigKeys.Log.setSegmentSizeMax(props, SizeInBytes.valueOf("8MB"));
        // The extra commit-index entry per write costs ~35% of single-writer throughput and buys
        // only a faster restart; commit is re-learned from the leader anyway.
        RaftServerConfigKeys.Log.setLogMetadataEnabled(props, false);
        // Reads: ControllerClient sends stale reads with the index of its latest write (any voter
        // answers once applied); plain read-only requests (the change feed) go to the leader only,
        // a follower answering NotLeader. Not Ratis's
        // LINEARIZABLE option: with it a follower forwards a read index request to the leader over
        // the server-to-server async protocol, which the netty transport does not implement, so a
        // read that reaches a follower (any new client's first guess may be one) is never answered
        // and hangs until the client's RPC timeout. The cost of leader-only reads: a leader cut off
        // from the majority may answer reads until it steps down.
        RaftServerConfigKeys.Read.setOption(props, RaftServerConfigKeys.Read.Option.DEFAULT);
        // Elections: Ratis's 150-300 ms, and the 300-600 ms used before, churn on a loaded 2-core
        // machine, where a voter's JVM is descheduled for 400 ms at a time (Ratis logs "Unexpected
        // long sleep"): a leader lost every few seconds under a burst of broker requests. Kafka's
        // KRaft waits 1 s (controller.quorum.election.timeout.ms); a new leader is still elected
        // within about 2 s of losing the old one.
        RaftServerConfigKeys.Rpc.setTimeoutMin(props, TimeDuration.valueOf(1_000, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(props, TimeDuration.valueOf(2_000, TimeUnit.MILLISECONDS));
        return props;
    }
}
