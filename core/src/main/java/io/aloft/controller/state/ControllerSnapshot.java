package io.aloft.controller.state;

import io.aloft.controller.command.Reply;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.FeatureLevel;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import io.aloft.controller.model.VoterFeatures;
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
 * @param finalizedFeatureLevel the cluster's {@link FeatureLevel}
 * @param voterFeatures the feature levels each voter reported, by voter id
 * @param featureLevelBootstrapped whether the cluster has finalized its first level from its voters'
 *     reports (done once; later upgrades are explicit)
 */
public record ControllerSnapshot(StreamMetadataSnapshot streams, long nextBrokerEpoch, List<BrokerInfo> brokers,
        List<TopicInfo> topics, List<Kv> kv, long clockMs, long lastSessionSweepMs, List<Session> sessions,
        long nextProducerId, int finalizedFeatureLevel, List<VoterFeatures> voterFeatures,
        boolean featureLevelBootstrapped) {
    public ControllerSnapshot {
        Objects.requireNonNull(streams, "streams");
        if (finalizedFeatureLevel < FeatureLevel.INITIAL) {
            throw new IllegalArgumentException("feature level " + finalizedFeatureLevel + " does not exist");
        }
        brokers = List.copyOf(brokers);
        topics = List.copyOf(topics);
        kv = List.copyOf(kv);
        sessions = List.copyOf(sessions);
        voterFeatures = List.copyOf(voterFeatures);
    }

    public record Kv(String key, byte[] value) {
        public Kv {
            // The key-value space is a sorted map without null keys or values.
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
        }
    }

    public record Session(UUID clientId, long lastUsedMs, List<CachedReply> replies) {
        public Session {
            Objects.requireNonNull(clientId, "clientId");
            replies = List.copyOf(replies);
        }
    }

    public record CachedReply(long sequence, Reply reply) {
        public CachedReply {
            Objects.requireNonNull(reply, "reply");
        }
    }

    /**
     * A canonical text form (one line per entity, in id order) for comparing states: every field,
     * cached replies' content included, so equal dumps mean equal states.
     */
    public String dump() {
        StringBuilder sb = new StringBuilder(streams.dump());
        sb.append("nextBrokerEpoch=").append(nextBrokerEpoch).append(" nextProducerId=").append(nextProducerId)
                .append(" clockMs=").append(clockMs)
                .append(" lastSessionSweepMs=").append(lastSessionSweepMs)
                .append(" finalizedFeatureLevel=").append(finalizedFeatureLevel)
                .append(" featureLevelBootstrapped=").append(featureLevelBootstrapped).append('\n');
        for (VoterFeatures v : voterFeatures) {
            sb.append("voter ").append(v.voterId()).append(" supports=").append(v.supported()).append('\n');
        }
        for (BrokerInfo b : brokers) {
            sb.append("broker ").append(b.brokerId()).append(" incarnation=").append(ValueText.of(b.incarnationId()))
                    .append(" epoch=").append(b.brokerEpoch()).append(' ').append(b.state())
                    .append(" rack=").append(ValueText.of(b.rack()))
                    .append(" supports=").append(b.supportedFeatures())
                    .append(" endpoints=").append(ValueText.of(b.endpoints())).append('\n');
        }
        for (TopicInfo t : topics) {
            sb.append("topic ").append(t.topicId()).append(" name=").append(ValueText.of(t.name()))
                    .append(" configs=").append(ValueText.of(t.configs())).append('\n');
            for (PartitionInfo p : t.partitions()) {
                sb.append("  partition ").append(p.partition()).append(" broker=").append(p.brokerId())
                        .append(" leaderEpoch=").append(p.leaderEpoch()).append(" streams=").append(p.streamIds())
                        .append('\n');
            }
        }
        for (Kv e : kv) {
            sb.append("kv ").append(ValueText.of(e.key())).append('=').append(HexFormat.of().formatHex(e.value()))
                    .append('\n');
        }
        for (Session s : sessions) {
            sb.append("session ").append(s.clientId()).append(" lastUsed=").append(s.lastUsedMs()).append('\n');
            for (CachedReply r : s.replies()) {
                sb.append("  reply ").append(r.sequence()).append(' ');
                if (r.reply().failure() == null) {
                    sb.append("value=").append(ValueText.of(r.reply().value()));
                } else {
                    sb.append("failure=").append(ValueText.of(r.reply().failure()));
                }
                sb.append('\n');
            }
        }
        return sb.toString();
    }
}
