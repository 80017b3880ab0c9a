package io.aloft.controller.server;

import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When this replica last applied a heartbeat (or registration) of each broker, by its own
 * monotonic clock. Only the leader acts on it (by writing a fence command), so liveness decisions
 * are log entries while the timing never depends on clocks agreeing across machines.
 *
 * <p>A new leader counts every broker as heard at the moment it took over: brokers get a full
 * session to reach it before it fences anyone. Thread-safe.
 */
final class BrokerLiveness {
    private final Map<Integer, Long> lastHeardNanos = new ConcurrentHashMap<>();
    private volatile long leaderSinceNanos = System.nanoTime();

    void heard(int brokerId) {
        lastHeardNanos.put(brokerId, System.nanoTime());
    }

    void becameLeader() {
        leaderSinceNanos = System.nanoTime();
    }

    /** The brokers, not already fenced, whose last heartbeat is more than {@code timeoutNanos} ago. */
    List<BrokerInfo> lapsed(List<BrokerInfo> brokers, long timeoutNanos) {
        long now = System.nanoTime();
        long since = leaderSinceNanos;
        List<BrokerInfo> lapsed = new ArrayList<>();
        for (BrokerInfo b : brokers) {
            if (b.state() == BrokerState.FENCED) {
                continue;
            }
            long heard = lastHeardNanos.getOrDefault(b.brokerId(), since);
            long reference = heard - since > 0 ? heard : since;
            if (now - reference > timeoutNanos) {
                lapsed.add(b);
            }
        }
        return lapsed;
    }
}
