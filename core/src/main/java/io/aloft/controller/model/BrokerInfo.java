package io.aloft.controller.model;

import java.util.List;
import java.util.Objects;

/**
 * A registered broker.
 *
 * @param brokerId the broker's node id
 * @param incarnationId identifies one run of the broker process: a restart registers a new one
 * @param brokerEpoch assigned at registration; heartbeats and other broker calls must carry it
 * @param endpoints listeners clients connect to
 * @param rack rack id, or null
 * @param state current standing
 * @param supportedFeatures the feature levels the broker's build supports (from its registration)
 */
public record BrokerInfo(int brokerId, String incarnationId, long brokerEpoch, List<Endpoint> endpoints, String rack,
        BrokerState state, FeatureRange supportedFeatures) {
    public BrokerInfo {
        Objects.requireNonNull(incarnationId, "incarnationId");
        endpoints = List.copyOf(endpoints);
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(supportedFeatures, "supportedFeatures");
    }

    /** A broker that supports only {@link FeatureLevel#INITIAL} (tests and tools that do not care about levels). */
    public BrokerInfo(int brokerId, String incarnationId, long brokerEpoch, List<Endpoint> endpoints, String rack,
            BrokerState state) {
        this(brokerId, incarnationId, brokerEpoch, endpoints, rack, state, FeatureRange.INITIAL_ONLY);
    }

    public BrokerInfo withState(BrokerState newState) {
        return new BrokerInfo(brokerId, incarnationId, brokerEpoch, endpoints, rack, newState, supportedFeatures);
    }
}
