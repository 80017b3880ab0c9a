package io.aloft.broker.group;

import io.aloft.broker.coordinator.CoordinatorTimer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;

/** One member of a classic group. Confined to its shard's thread, like the group. */
final class GroupMember {

    /** A protocol the member supports, with its protocol-specific metadata (the subscription). */
    record Protocol(String name, byte[] metadata) {
        boolean sameAs(Protocol o) {
            return name.equals(o.name) && Arrays.equals(metadata, o.metadata);
        }
    }

    static final byte[] EMPTY = new byte[0];

    final String memberId;
    /** Static membership (KIP-345); null for a dynamic member. */
    final String groupInstanceId;
    /** The protocol type the member joined with ("consumer" for consumers, "connect", ...). */
    final String protocolType;
    String clientId;
    String clientHost;
    int rebalanceTimeoutMs;
    int sessionTimeoutMs;
    /** In the member's order of preference. */
    List<Protocol> protocols;
    byte[] assignment = EMPTY;

    /** Set while the member waits in JoinGroup for the rebalance to complete. */
    CompletableFuture<JoinGroupResponseData> awaitingJoin;
    short joinVersion;
    /** Set while the member waits in SyncGroup for the leader's assignment. */
    CompletableFuture<SyncGroupResponseData> awaitingSync;
    short syncVersion;

    /** Joined during the current rebalance and has not yet been through a completed join. */
    boolean isNew;
    /** Session expiry timer; {@link #sessionToken} tells a stale firing from the current one. */
    CoordinatorTimer.Scheduled sessionTimer;
    long sessionToken;

    GroupMember(String memberId, String groupInstanceId, String protocolType, String clientId, String clientHost,
                int rebalanceTimeoutMs, int sessionTimeoutMs, List<Protocol> protocols) {
        this.memberId = memberId;
        this.groupInstanceId = groupInstanceId;
        this.protocolType = protocolType;
        this.clientId = clientId;
        this.clientHost = clientHost;
        this.rebalanceTimeoutMs = rebalanceTimeoutMs;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.protocols = List.copyOf(protocols);
    }

    boolean isStatic() {
        return groupInstanceId != null;
    }

    /** The member's metadata for {@code protocol}, or an empty array if it does not support it. */
    byte[] metadata(String protocol) {
        for (Protocol p : protocols) {
            if (p.name().equals(protocol)) {
                return p.metadata();
            }
        }
        return EMPTY;
    }

    boolean supports(String protocol) {
        return protocols.stream().anyMatch(p -> p.name().equals(protocol));
    }

    /** Same protocols, in the same order, with byte-identical metadata. */
    boolean sameProtocols(List<Protocol> other) {
        if (other.size() != protocols.size()) {
            return false;
        }
        for (int i = 0; i < other.size(); i++) {
            if (!protocols.get(i).sameAs(other.get(i))) {
                return false;
            }
        }
        return true;
    }
}
