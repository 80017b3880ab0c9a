package io.aloft.broker.handler;

import java.util.List;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.FinalizedFeatureKey;
import org.apache.kafka.common.message.ApiVersionsResponseData.SupportedFeatureKey;

/**
 * The features (KIP-584) ApiVersions reports from v3: for each, the levels this broker supports and
 * the level finalized for the cluster, with the finalized features' epoch. Only features Aloft
 * honours are listed: {@code transaction.version} while transactions are on, {@code share.version}
 * (KIP-932 share groups) while share groups are on. Kafka 4.3 lists more
 * ({@code metadata.version}, {@code kraft.version}, {@code group.version},
 * {@code streams.version}, {@code eligible.leader.replicas.version}); their levels describe Kafka's
 * metadata log, KRaft and groups implementation, which Aloft's are not, so a tool reading them
 * would be misled.
 *
 * <p>Kafka's answer to ApiVersions v3 leaves out supported features whose minimum is 0 (clients of
 * Kafka 2.x-3.6 refuse them, KAFKA-17011); v4+ lists them all. A finalized level of 0 is listed
 * nowhere (the feature is off). Immutable.
 */
public record KafkaFeatures(List<Feature> features, long finalizedEpoch) {
    /** The name of the transaction version feature. */
    public static final String TRANSACTION_VERSION = "transaction.version";

    /** The name of the share groups feature (KIP-932). */
    public static final String SHARE_VERSION = "share.version";

    /** No features (what a broker reports with transactions off). */
    public static final KafkaFeatures NONE = new KafkaFeatures(List.of(), -1);

    /** One feature: the range this broker supports and the level finalized. */
    public record Feature(String name, short minSupported, short maxSupported, short finalized) {
    }

    public KafkaFeatures {
        features = List.copyOf(features);
    }

    /**
     * {@code transaction.version}: supported 0-2, as Kafka 4.3, finalized at {@code level}.
     *
     * @param epoch the finalized features' epoch (see {@code TransactionCoordinatorConfig})
     */
    public static KafkaFeatures transactions(short level, long epoch) {
        return new KafkaFeatures(List.of(new Feature(TRANSACTION_VERSION, (short) 0, (short) 2, level)), epoch);
    }

    /**
     * These features and {@code share.version}: supported 0-1, as Kafka 4.3, finalized at
     * {@code level} (0: share groups off, then listed only as supported).
     */
    public KafkaFeatures withShares(short level) {
        List<Feature> all = new java.util.ArrayList<>(features);
        all.add(new Feature(SHARE_VERSION, (short) 0, (short) 1, level));
        return new KafkaFeatures(all, finalizedEpoch);
    }

    /** Sets the feature fields of {@code data}, an answer to ApiVersions of {@code version}. */
    void fill(ApiVersionsResponseData data, short version) {
        if (version < 3) {
            return; // the fields exist from v3
        }
        for (Feature f : features) {
            if (version >= 4 || f.minSupported() > 0) {
                data.supportedFeatures().add(new SupportedFeatureKey().setName(f.name())
                        .setMinVersion(f.minSupported()).setMaxVersion(f.maxSupported()));
            }
            if (f.finalized() > 0) {
                data.finalizedFeatures().add(new FinalizedFeatureKey().setName(f.name())
                        .setMinVersionLevel(f.finalized()).setMaxVersionLevel(f.finalized()));
            }
        }
        data.setFinalizedFeaturesEpoch(finalizedEpoch);
    }
}
