package io.aloft.controller.command;

import io.aloft.controller.model.FeatureRange;
import java.util.List;
import java.util.Objects;

/**
 * A controller voter's supported feature levels, sent by the voter itself when it starts (and its
 * stored report differs). Replaces the voter's earlier report. Refused when the range does not
 * include the finalized level (such a voter stops itself anyway: it cannot read what the cluster
 * writes). Replies with the cluster's {@link io.aloft.controller.model.FeatureStatus}. Immutable.
 *
 * @param voterIds the voters of the reporter's configuration ({@code controller.quorum.voters}): once
 *     each has reported, a new cluster finalizes the highest level all of them support (once only;
 *     later upgrades are explicit)
 */
public record ReportVoterFeatures(int voterId, FeatureRange supported, List<Integer> voterIds) {
    public ReportVoterFeatures {
        Objects.requireNonNull(supported, "supported");
        voterIds = List.copyOf(voterIds);
    }
}
