package io.aloft.controller.state;

import io.aloft.controller.command.Reply;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.TopicInfo;
import io.aloft.stream.metadata.StreamMetadataSnapshot;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * The whole controller state as plain values: what a snapshot file holds. Derived indexes are
 * rebuilt on restore. Immutable.
 *
 * @param streams streams and objects
 * @param nextBrokerEpoch the epoch the next registration gets
 * @param brokers registered brokers by id
 * @param topics topics by id
 * @param kv the key-value space by key
 * @param clockMs the latest time any applied command carried
 * @param lastSessionSweepMs when idle client sessions were last expired
 * @param sessions recent replies per client, for idempotent retries
 * @param nextProducerId the first idempotent-producer id not yet given to a broker
 */
public record ControllerSnapshot(StreamMetadataSnapshot streams, long nextBrokerEpoch, List<BrokerInfo> brokers,
        List<TopicInfo> topics, List<Kv> kv, long clockMs, long lastSessionSweepMs, List<Session> sessions,
        long nextProducerId) {

    public ControllerSnapshot {
        Objects.requireNonNull(streams, "streams");
        brokers = List.copyOf(brokers);
        topics = List.copyOf(topics);
        kv = List.copyOf(kv);
        sessions = List.copyOf(sessions);
    }

    public record Kv(String key, byte[] value) {
    }

    public record Session(UUID clientId, long lastUsedMs, List<CachedReply> replies) {
        public Session {
            replies = List.copyOf(replies);
        }
    }

    public record CachedReply(long sequence, Reply reply) {
    }

    /** A canonical text form (one line per entity, in id order) for comparing states. */
    public String dump() {
        StringBuilder sb = new StringBuilder(streams.dump());
        sb.append("nextBrokerEpoch=").append(nextBrokerEpoch).append(" nextProducerId=").append(nextProducerId)
                .append(" clockMs=").append(clockMs)
                .append(" lastSessionSweepMs=").append(lastSessionSweepMs).append('\n');
        for (BrokerInfo b : brokers) {
            sb.append(b).append('\n');
        }
        for (TopicInfo t : topics) {
            sb.append(t).append('\n');
        }
        for (Kv e : kv) {
            sb.append("kv ").append(e.key()).append('=').append(HexFormat.of().formatHex(e.value())).append('\n');
        }
        for (Session s : sessions) {
            sb.append("session ").append(s.clientId()).append(" lastUsed=").append(s.lastUsedMs()).append(" seqs=");
            for (CachedReply r : s.replies()) {
                sb.append(r.sequence()).append(r.reply().failure() == null ? "" : "!").append(',');
            }
            sb.append('\n');
        }
        return sb.toString();
    }
}
