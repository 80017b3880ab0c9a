package io.aloft.broker.log;

import java.util.HashMap;
import java.util.Map;

/**
 * The producers of one partition whose next transaction is being verified with their coordinator
 * (Kafka's {@code VerificationStateEntry}): a guard and the epoch it was handed out for, per
 * producer id. In memory only, as in Kafka: after a restart a batch in flight is verified again.
 * An entry ends when the batch it was made for opens the transaction, when a marker for the
 * producer is written, or when it is older than the producer expiration.
 *
 * <p>Not thread-safe: used under the owning log's lock.
 */
final class TransactionVerifications {
    private record Entry(VerificationGuard guard, short epoch, long createdMs) {
    }

    private final Map<Long, Entry> byProducer = new HashMap<>();

    /** The guard for {@code producerId} at {@code epoch}: the one handed out already, or a new one. */
    VerificationGuard start(long producerId, short epoch, long nowMs) {
        Entry e = byProducer.get(producerId);
        if (e == null || e.epoch() != epoch) {
            e = new Entry(new VerificationGuard(), epoch, nowMs);
            byProducer.put(producerId, e);
        }
        return e.guard();
    }

    /** Whether {@code guard} is the one this log holds for {@code producerId} (never the sentinel). */
    boolean holds(long producerId, VerificationGuard guard) {
        Entry e = byProducer.get(producerId);
        return guard != null && guard != VerificationGuard.SENTINEL && e != null && e.guard() == guard;
    }

    void clear(long producerId) {
        byProducer.remove(producerId);
    }

    void expire(long nowMs, long expirationMs) {
        byProducer.values().removeIf(e -> nowMs - e.createdMs() >= expirationMs);
    }

    int size() {
        return byProducer.size();
    }
}
