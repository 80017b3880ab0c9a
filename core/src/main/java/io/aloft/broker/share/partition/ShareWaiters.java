package io.aloft.broker.share.partition;

import io.aloft.broker.log.PartitionLog;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The wake-ups waiting for records of one share partition to become acquirable
 * ({@link SharePartitions#wakeOnAvailable}). Each runs once, on the first of: records released or
 * expired here ({@link #wakeAll}), new records in the log (its registration with
 * {@link PartitionLog#wakeOnData}, made by the share partition), or the share partition closing.
 * Whichever fires first removes the other.
 *
 * <p>Thread-safe: {@code this} guards the map, taken inside the share partition's lock (so a
 * registration and the availability check before it are one step against changes of state, which
 * wake after their lock is released) and never around the log's lock or a wake-up.
 */
final class ShareWaiters {
    private final PartitionLog log;
    /** wake-up -> its registration with the log, or itself when it has none. */
    private final Map<Runnable, Runnable> waiting = new HashMap<>();

    ShareWaiters(PartitionLog log) {
        this.log = log;
    }

    synchronized boolean contains(Runnable wake) {
        return waiting.containsKey(wake);
    }

    /** @param onData {@code wake}'s registration with the log, or null */
    synchronized void add(Runnable wake, Runnable onData) {
        waiting.put(wake, onData != null ? onData : wake);
    }

    /** Runs {@code wake} if it is still waiting, after removing its log registration. */
    void wake(Runnable wake) {
        if (remove(wake)) {
            wake.run();
        }
    }

    /** Removes a registration that has not run; whether there was one. */
    boolean remove(Runnable wake) {
        Runnable onData;
        synchronized (this) {
            onData = waiting.remove(wake);
        }
        if (onData != null && onData != wake) {
            log.cancelWake(onData);
        }
        return onData != null;
    }

    /** Runs every waiting wake-up (records became available, or the share partition closed). */
    void wakeAll() {
        List<Runnable> woken;
        synchronized (this) {
            if (waiting.isEmpty()) {
                return;
            }
            woken = new ArrayList<>(waiting.keySet());
        }
        woken.forEach(this::wake);
    }
}
