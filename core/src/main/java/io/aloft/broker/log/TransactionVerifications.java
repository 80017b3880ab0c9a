package io.aloft.broker.log;

import java.util.HashMap;
import java.util.Map;

/**
 * The producers of one partition whose next transaction is being verified with their coordinator
 * (Kafka's {@code VerificationStateEntry}): a guard and the epoch it was handed out for, per
 * producer id. In memory only, as in Kafka: after a restart a batch in flight is verified again.
 * An entry ends when the batch it was made for opens the transaction, when a marker for the
 * producer is written (but see {@link #markerWritten}), or when it is older than the producer
 * expiration.
 *
 * <p>Not thread-safe: used under the owning log's lock.
 */
final class TransactionVerifications {
    private record Entry(VerificationGuard guard, short epoch, boolean supportsEpochBump, long createdMs) {
    }

    private final Map<Long, Entry> byProducer = new HashMap<>();

    /**
     * The guard for {@code producerId} at {@code epoch}: the one handed out already, or a new one.
     *
     * @param supportsEpochBump the batch is a transaction-version-2 producer's (see {@link #markerWritten})
     */
    VerificationGuard start(long producerId, short epoch, boolean supportsEpochBump, long nowMs) {
        Entry e = byProducer.get(producerId);
        if (e == null || e.epoch() != epoch) {
            e = new Entry(new VerificationGuard(), epoch, supportsEpochBump, nowMs);
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

    /**
     * A marker of {@code producerId} at {@code markerEpoch} was written: the transaction it ends may
     * be the one a guard was handed out for, so the guard goes; except, as in Kafka 4.3.1
     * (UnifiedLog.updateProducers), a transaction-version-2 batch's guard at the marker's epoch. A
     * version-2 producer's transaction ends with a marker one epoch above the one it ran at, which
     * is the epoch its next transaction runs at: such a marker ends the transaction before the
     * guarded batch's, whose first batches reach their leaders while those markers are still being
     * written. A marker ending the guarded batch's own transaction (epoch + 1, or + 2 when fenced)
     * still voids it.
     */
    void markerWritten(long producerId, short markerEpoch) {
        Entry e = byProducer.get(producerId);
        if (e != null && !(e.supportsEpochBump() && e.epoch() == markerEpoch)) {
            byProducer.remove(producerId);
        }
    }

    void expire(long nowMs, long expirationMs) {
        byProducer.values().removeIf(e -> nowMs - e.createdMs() >= expirationMs);
    }

    int size() {
        return byProducer.size();
    }
}
