package io.aloft.controller.command;

import java.util.List;

/**
 * Raises the cluster's finalized feature level. Accepted only when every voter named in
 * {@code voterIds} has reported a range that includes {@code level}, and so has every registered
 * broker that is not fenced; a lower level than the finalized one is refused (no downgrade), the
 * same level is a no-op. Replies with the finalized level. Immutable.
 *
 * @param level the new level
 * @param voterIds the voters of the current Raft configuration, as the submitter read them from
 *     Ratis (the state machine cannot read the configuration deterministically itself)
 */
public record UpdateFeatureLevel(int level, List<Integer> voterIds) {
    public UpdateFeatureLevel {
        voterIds = List.copyOf(voterIds);
    }
}
