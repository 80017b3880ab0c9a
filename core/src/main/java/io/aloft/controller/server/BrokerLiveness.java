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

    /** When the previous liveness check ran (the timer thread's), 0 before the first. */
    private long lastCheckNanos;

    /**
     * Records a liveness check at {@code nowNanos}; true when it comes more than {@code maxGapNanos}
     * after the previous one. This process was then paused or starved (a SIGSTOP, a long stall): a
     * leader waking up still believes it leads and sees every broker silent for as long as it slept,
     * and a fence it submitted would reach, and be applied by, the voter that leads now (a broker
     * fenced that way has its WAL taken over while it runs). So a late check fences no one, and every
     * broker gets a full session from now, time enough for a stale leader to learn it no longer
     * leads. Timer thread only.
     */
    boolean checkedLate(long nowNanos, long maxGapNanos) {
        long last = lastCheckNanos;
        lastCheckNanos = nowNanos;
        if (last != 0 && nowNanos - last > maxGapNanos) {
            leaderSinceNanos = nowNanos;
            return true;
        }
        return false;
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
