package io.aloft.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * What {@code /healthz} and {@code /readyz} answer. Liveness: the process has not hit a critical
 * failure (a broker that has halts its process soon after; one embedded in another process stays,
 * unhealthy). Readiness: every named condition holds, checked in the order they were added; a
 * condition not yet added is not met, so a starting broker is unready until it says otherwise.
 *
 * <p>Thread-safe: conditions are added by the starting thread and read by the HTTP thread.
 */
public final class Health {

    private final Map<String, BooleanSupplier> conditions = new ConcurrentHashMap<>();
    private final List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile BooleanSupplier alive = () -> true;

    /** Conditions that must all be added and hold before the process is ready, in the order reported. */
    public Health(List<String> required) {
        order.addAll(required);
    }

    /** Sets what liveness checks: true while the process has not failed. */
    public void livenessFrom(BooleanSupplier alive) {
        this.alive = alive;
    }

    /** Adds or replaces the check of a readiness condition. */
    public void readyWhen(String condition, BooleanSupplier check) {
        conditions.put(condition, check);
        if (!order.contains(condition)) {
            order.add(condition);
        }
    }

    /** Marks a condition as met for good (a step of start-up that is done). */
    public void done(String condition) {
        readyWhen(condition, () -> true);
    }

    public boolean alive() {
        return alive.getAsBoolean();
    }

    /** The conditions not met now, in order; empty when ready. A dead process is never ready. */
    public List<String> unmet() {
        List<String> unmet = new ArrayList<>();
        if (!alive()) {
            unmet.add("alive");
        }
        for (String condition : order) {
            BooleanSupplier check = conditions.get(condition);
            if (check == null || !check.getAsBoolean()) {
                unmet.add(condition);
            }
        }
        return unmet;
    }
}
