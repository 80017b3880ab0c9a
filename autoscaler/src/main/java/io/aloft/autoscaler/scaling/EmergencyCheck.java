package io.aloft.autoscaler.scaling;

import io.aloft.autoscaler.model.BrokerLoad;
import io.aloft.autoscaler.model.ClusterSnapshot;
import io.aloft.autoscaler.policy.EmergencyRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Whether a snapshot shows back-pressure under {@link EmergencyRule}: any broker above any
 * configured threshold (WAL-full waits, WAL fill, Produce p99). Unreported signals (NaN) never
 * breach. Stateless; thread-safe.
 */
final class EmergencyCheck {

    private EmergencyCheck() {
    }

    /** The breaches in broker order ("broker 2 walFullWaitsPerSec 12.0 > 5.0"), empty when none. */
    static List<String> breaches(EmergencyRule rule, ClusterSnapshot snapshot) {
        List<String> found = new ArrayList<>();
        for (BrokerLoad b : snapshot.brokers()) {
            if (rule.walFullWaitsPerSec().isPresent()
                    && b.walFullWaitsPerSec() > rule.walFullWaitsPerSec().getAsDouble()) {
                found.add(String.format(Locale.ROOT, "broker %d walFullWaitsPerSec %.2f > %.2f", b.id(),
                        b.walFullWaitsPerSec(), rule.walFullWaitsPerSec().getAsDouble()));
            }
            if (rule.walFillRatio().isPresent() && b.walFillRatio() > rule.walFillRatio().getAsDouble()) {
                found.add(String.format(Locale.ROOT, "broker %d walFillRatio %.2f > %.2f", b.id(),
                        b.walFillRatio(), rule.walFillRatio().getAsDouble()));
            }
            if (rule.produceP99().isPresent()
                    && b.produceP99Seconds() * 1000 > rule.produceP99().get().toNanos() / 1e6) {
                found.add(String.format(Locale.ROOT, "broker %d produceP99 %.0fms > %dms", b.id(),
                        b.produceP99Seconds() * 1000, rule.produceP99().get().toMillis()));
            }
        }
        return found;
    }

    /** A one-line summary: the first breach and how many more. */
    static Optional<String> summary(List<String> breaches) {
        if (breaches.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(breaches.get(0) + (breaches.size() > 1 ? " (+" + (breaches.size() - 1) + " more)" : ""));
    }
}
