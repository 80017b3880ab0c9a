package io.aloft.broker.security.sasl;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Recent failed SASL authentications per client address, broker-wide, so that the delay before a
 * failure's answer grows for an address that keeps guessing (see {@link SaslSession#failureDelayMs}).
 * A failure counts as recent until {@link #WINDOW_NANOS} pass with no further failure from that
 * address. At most {@link #MAX_ADDRESSES} addresses are tracked: when full, addresses idle for a
 * window are forgotten, and if none is, a new address is not tracked (it gets the base delay).
 *
 * <p>Thread-safe (one lock; called once per failed authentication, on network threads).
 */
public final class FailedAuthentications {
    static final long WINDOW_NANOS = TimeUnit.MINUTES.toNanos(1);
    static final int MAX_ADDRESSES = 10_000;

    private final LongSupplier nanoTime;
    /** Per address: {count, last failure's nanoTime}. Guarded by this. */
    private final Map<InetAddress, long[]> recent = new HashMap<>();

    public FailedAuthentications(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** Records a failure from {@code address}; returns how many recent failures it has, this one included. */
    public synchronized int record(InetAddress address) {
        long now = nanoTime.getAsLong();
        long[] entry = recent.get(address);
        if (entry == null) {
            if (recent.size() >= MAX_ADDRESSES) {
                recent.values().removeIf(e -> now - e[1] >= WINDOW_NANOS);
                if (recent.size() >= MAX_ADDRESSES) {
                    return 1;
                }
            }
            entry = new long[] {0, now};
            recent.put(address, entry);
        } else if (now - entry[1] >= WINDOW_NANOS) {
            entry[0] = 0;
        }
        entry[0] = Math.min(entry[0] + 1, Integer.MAX_VALUE);
        entry[1] = now;
        return (int) entry[0];
    }
}
