package io.aloft.broker.handler;

import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.Endpoint;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * KIP-951 leader discovery: a Produce (v10+) partition answered NOT_LEADER_OR_FOLLOWER, or a Fetch
 * (v16+) one answered that or FENCED_LEADER_EPOCH (the codes and versions Kafka 4.3 fills them for),
 * carries the partition's current leader and leader epoch, and the response carries the endpoints
 * of those leaders on the request's listener, so the client moves to the right broker without a
 * Metadata round trip first. A leader the metadata does not know, or a fenced one, is answered as
 * unknown (-1), with no endpoint, as Kafka does.
 *
 * <p>Confined to the thread building one response: made per response, from one metadata view.
 */
final class LeaderHints {
    /** The first Produce version with CurrentLeader and NodeEndpoints. */
    static final short FIRST_PRODUCE_VERSION = 10;
    /** The first Fetch version with NodeEndpoints (and so the first Kafka fills CurrentLeader in). */
    static final short FIRST_FETCH_VERSION = 16;

    /** A partition's leader as the hint names it; -1 for unknown. */
    record Leader(int id, int epoch) {
        static final Leader UNKNOWN = new Leader(-1, -1);
    }

    /** A leader's address on the request's listener. */
    record Node(int id, String host, int port, String rack) {
    }

    private final MetadataCache.View view;
    private final String listener;
    private final Map<Integer, Node> nodes = new TreeMap<>();

    LeaderHints(MetadataCache.View view, String listener) {
        this.view = view;
        this.listener = listener;
    }

    /** Whether a Produce partition answered with {@code errorCode} gets a hint. */
    static boolean wantedInProduce(short errorCode) {
        return errorCode == Errors.NOT_LEADER_OR_FOLLOWER.code();
    }

    /** Whether a Fetch partition answered with {@code errorCode} gets a hint. */
    static boolean wantedInFetch(short errorCode) {
        return errorCode == Errors.NOT_LEADER_OR_FOLLOWER.code() || errorCode == Errors.FENCED_LEADER_EPOCH.code();
    }

    /** The topic's name: {@code name} when given, else the one the id has in the metadata (null if none). */
    String topicName(String name, Uuid topicId) {
        if (name != null && !name.isEmpty()) {
            return name;
        }
        if (topicId == null || Uuid.ZERO_UUID.equals(topicId)) {
            return null;
        }
        TopicInfo t = view.topic(new UUID(topicId.getMostSignificantBits(), topicId.getLeastSignificantBits()));
        return t == null ? null : t.name();
    }

    /**
     * The partition's current leader, remembering its endpoint for {@link #nodes()}; unknown when the
     * topic or partition is not in the metadata or its broker is not live with an endpoint here.
     */
    Leader leader(String topic, int partition) {
        TopicInfo t = topic == null ? null : view.topic(topic);
        if (t == null || partition < 0 || partition >= t.partitions().size()) {
            return Leader.UNKNOWN;
        }
        PartitionInfo p = t.partitions().get(partition);
        BrokerInfo b = p.brokerId() < 0 ? null : view.brokers().get(p.brokerId());
        if (b == null || b.state() == BrokerState.FENCED) {
            return Leader.UNKNOWN;
        }
        for (Endpoint e : b.endpoints()) {
            if (e.listener().equals(listener)) {
                nodes.put(b.brokerId(), new Node(b.brokerId(), e.host(), e.port(), b.rack()));
                return new Leader(b.brokerId(), p.leaderEpoch());
            }
        }
        return Leader.UNKNOWN;
    }

    /** The endpoints of every leader {@link #leader} named, by id. */
    Collection<Node> nodes() {
        return nodes.values();
    }
}
