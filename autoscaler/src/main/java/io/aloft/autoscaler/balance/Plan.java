package io.aloft.autoscaler.balance;

import java.util.List;

/**
 * A balancing plan: the moves in the order they should run, and what the balancer found (one line
 * per goal: its state before and after the plan), which the dry run prints and the service logs.
 * Immutable.
 *
 * @param moves the moves, in execution order
 * @param findings human-readable lines on each goal, before and after
 */
public record Plan(List<Move> moves, List<String> findings) {

    public Plan {
        moves = List.copyOf(moves);
        findings = List.copyOf(findings);
    }

    /** A plan with nothing to do. */
    public static Plan empty(List<String> findings) {
        return new Plan(List.of(), findings);
    }

    public boolean isEmpty() {
        return moves.isEmpty();
    }
}
