package io.aloft.controller.model;

import java.util.Objects;

/**
 * The feature levels one controller voter reported when it last started. Immutable.
 *
 * @param voterId the voter's node id
 * @param supported the levels its build supports
 */
public record VoterFeatures(int voterId, FeatureRange supported) {
    public VoterFeatures {
        Objects.requireNonNull(supported, "supported");
    }
}
