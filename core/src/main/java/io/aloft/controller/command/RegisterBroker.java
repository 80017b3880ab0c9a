package io.aloft.controller.command;

import io.aloft.controller.model.Endpoint;
import io.aloft.controller.model.FeatureRange;
import java.util.List;
import java.util.Objects;

/**
 * A broker announces itself. A new incarnation gets a new broker epoch (and the partitions it
 * serves get new leader epochs, since its previous run is gone); registering the same incarnation
 * again returns the epoch it already has. Refused when the broker's build does not support the
 * cluster's finalized feature level.
 *
 * @param rack rack id, or null
 * @param supportedFeatures the feature levels the broker's build supports
 */
public record RegisterBroker(int brokerId, String incarnationId, List<Endpoint> endpoints, String rack,
        FeatureRange supportedFeatures) {
    public RegisterBroker {
        Objects.requireNonNull(incarnationId, "incarnationId");
        endpoints = List.copyOf(endpoints);
        Objects.requireNonNull(supportedFeatures, "supportedFeatures");
    }
}
