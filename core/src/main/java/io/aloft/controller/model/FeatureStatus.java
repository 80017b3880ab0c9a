package io.aloft.controller.model;

import java.util.List;

/**
 * The cluster's feature level and what each voter reported (brokers' ranges are in their
 * {@link BrokerInfo}). Immutable.
 *
 * @param finalizedLevel the level records are written at
 * @param voters every voter that reported, by id
 */
public record FeatureStatus(int finalizedLevel, List<VoterFeatures> voters) {
    public FeatureStatus {
        voters = List.copyOf(voters);
    }
}
