package io.aloft.autoscaler.policy;

import java.util.List;

/**
 * A policy file that cannot be used: every problem found, each naming its field's path
 * ({@code scaling.targetTracking[0].target: must be > 0, was -5}), so an operator fixes the file
 * in one pass. Immutable.
 */
public final class PolicyException extends Exception {

    private static final long serialVersionUID = 1L;

    private final List<String> errors;

    /** @param errors the problems, each "path: message", at least one */
    public PolicyException(List<String> errors) {
        super(message(errors));
        this.errors = List.copyOf(errors);
    }

    /** Each problem, "path: message", in file order. */
    public List<String> errors() {
        return errors;
    }

    private static String message(List<String> errors) {
        if (errors.size() == 1) {
            return "invalid policy: " + errors.get(0);
        }
        return "invalid policy, " + errors.size() + " errors:\n  " + String.join("\n  ", errors);
    }
}
