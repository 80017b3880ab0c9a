package io.aloft.broker.quota;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures one {@link QuotaType}'s rate per client and says how long a client over its quota must
 * wait: {@code (rate - quota) / quota * measured time}, Kafka's formula (the time after which the
 * rate, with nothing more recorded, is back at the quota), not capped: Kafka caps only the
 * controller mutation quota's throttle, and a cap would let a client whose requests or responses are
 * large (a 1 MB fetch against a 100 KB/s quota) take one of them per cap. Only clients a
 * quota applies to are measured; the rate belongs to whoever the quota's entity names (see
 * {@link ClientQuotas.Limit}), so clients sharing a quota share its rate. Rates nobody has
 * recorded into for an hour are dropped, as Kafka expires its quota sensors.
 *
 * <p>Thread-safe: called by whichever thread completes a request.
 */
final class QuotaManager {
    private static final long EXPIRY_MS = 3_600_000L;

    private record Account(String user, String clientId) {
    }

    private final QuotaType type;
    private final int samples;
    private final long windowMs;
    private final Map<Account, SampledRate> rates = new ConcurrentHashMap<>();
    private final AtomicLong nextSweepMs = new AtomicLong();

    QuotaManager(QuotaType type, QuotaConfig config) {
        this.type = type;
        this.samples = config.windowNum();
        this.windowMs = config.windowMs();
    }

    QuotaType type() {
        return type;
    }

    /**
     * Records {@code value} (bytes, or percent-seconds for the request quota) against {@code limit}
     * and returns the throttle time in ms (0 while within the quota). Nothing is recorded when
     * {@code limit} is null (no quota applies).
     */
    int recordAndThrottleMs(ClientQuotas.Limit limit, double value, long nowMs) {
        if (limit == null) {
            return 0;
        }
        sweep(nowMs);
        SampledRate rate = rates.computeIfAbsent(new Account(limit.user(), limit.clientId()),
                a -> new SampledRate(samples, windowMs, nowMs));
        double observed;
        long measuredMs;
        synchronized (rate) {
            observed = rate.record(value, nowMs);
            measuredMs = rate.measuredMs(nowMs);
        }
        return throttleMs(observed, limit.quota(), measuredMs);
    }

    /**
     * Kafka's throttle time: how long until the rate falls back to the quota. 0 within the quota
     * (and for a NaN quota, which Kafka accepts and which limits nothing).
     */
    static int throttleMs(double observed, double quota, long measuredMs) {
        if (!(observed > quota) || !(quota > 0)) {
            return 0;
        }
        double ms = (observed - quota) / quota * measuredMs;
        return (int) Math.min(Integer.MAX_VALUE, Math.round(ms));
    }

    /** The measured rate of this account now, or 0 if it is not measured (tests, meters). */
    double rate(String user, String clientId, long nowMs) {
        SampledRate r = rates.get(new Account(user, clientId));
        return r == null ? 0 : r.rate(nowMs);
    }

    private void sweep(long nowMs) {
        long next = nextSweepMs.get();
        if (nowMs < next || !nextSweepMs.compareAndSet(next, nowMs + 60_000L)) {
            return;
        }
        rates.values().removeIf(r -> nowMs - r.lastRecordMs() > EXPIRY_MS);
    }
}
