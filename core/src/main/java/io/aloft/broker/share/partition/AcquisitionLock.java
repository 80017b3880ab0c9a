package io.aloft.broker.share.partition;

import io.aloft.broker.coordinator.CoordinatorTimer;

/**
 * One acquisition lock: the records one acquisition (or one renewal) gave a member, held until
 * {@code deadlineMs}, with the timer that expires them then. Each in-flight offset points at the
 * lock holding it; the timer releases only the offsets that still point at this lock (a renewal
 * moves offsets to a new lock; an acknowledgement frees them).
 *
 * <p>Not thread-safe: guarded by the lock of its {@link SharePartition}.
 */
final class AcquisitionLock {
    final String memberId;
    final long deadlineMs;
    /** The lowest and highest offset ever held, bounding the expiry scan. */
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    /** Offsets still held; the timer is cancelled when it drops to 0. */
    int held;
    CoordinatorTimer.Scheduled timer;

    AcquisitionLock(String memberId, long deadlineMs) {
        this.memberId = memberId;
        this.deadlineMs = deadlineMs;
    }

    void hold(long offset) {
        first = Math.min(first, offset);
        last = Math.max(last, offset);
        held++;
    }

    /** One offset no longer held (acknowledged, released, renewed elsewhere). */
    void free() {
        if (--held == 0 && timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    void cancel() {
        held = 0;
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }
}
