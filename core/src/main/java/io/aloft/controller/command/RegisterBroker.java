package io.aloft.controller.command;

import io.aloft.controller.model.Endpoint;
import java.util.List;
import java.util.Objects;

/**
 * A broker announces itself. A new incarnation gets a new broker epoch (and the partitions it
 * serves get new leader epochs, since its previous run is gone); registering the same incarnation
 * again returns the epoch it already has.
 *
 * @param rack rack id, or null
 */
public record RegisterBroker(int brokerId, String incarnationId, List<Endpoint> endpoints, String rack) {
    public RegisterBroker {
        Objects.requireNonNull(incarnationId, "incarnationId");
        endpoints = List.copyOf(endpoints);
    }
}
