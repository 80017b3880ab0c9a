package io.aloft.broker.share.fetch;

import io.aloft.broker.share.ShareGroupConfig;
import io.aloft.broker.share.partition.SharePartitions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The share sessions of this broker (KIP-932), one per (group, member), at most
 * {@code group.share.max.share.sessions} of them.
 *
 * <p><b>Epochs</b>, as Kafka 4.3 checks them (compared with it on raw frames): a ShareFetch with
 * epoch 0 opens a session, replacing the member's existing one (whose records stay acquired: it
 * is the same member), and may not acknowledge (INVALID_REQUEST); the session then expects 1, 2,
 * ... (after {@code Integer.MAX_VALUE}, 1), each ShareFetch or ShareAcknowledge taking the next;
 * another epoch is INVALID_SHARE_SESSION_EPOCH, no session SHARE_SESSION_NOT_FOUND. Epoch -1 is the
 * member's last request: its acknowledgements are applied, then the session closes and the records
 * the member still holds here are released ({@link SharePartitions#releaseMember}). A
 * ShareAcknowledge may not open a session (epoch 0: INVALID_SHARE_SESSION_EPOCH).
 *
 * <p><b>Membership</b> is not checked here, as in Kafka: the session is keyed by the member id the
 * client sends (Kafka 4.3 accepts any non-empty one, even a member the group does not know), and
 * records are acquired for that id; the group coordinator tells {@link #memberLeft} when a member
 * is gone, which closes its session and releases its records at once rather than at their lock
 * timeouts.
 *
 * <p><b>Expiry.</b> Kafka 4.3 ends a session when its client's connection closes; Aloft's handlers
 * do not see connections close, so a session unused for {@link #idleMs(ShareGroupConfig)} (the
 * longer of the largest session timeout and the largest record lock duration a group may have)
 * is closed by {@link #expireIdle()}, which the broker runs periodically, and also when a new
 * session would otherwise exceed the limit. By then the member has left its group or its locks
 * have timed out, so releasing its records takes nothing from a live consumer; the client, if
 * alive, gets SHARE_SESSION_NOT_FOUND and opens a new session.
 *
 * <p><b>Thread-safety.</b> Thread-safe: every method synchronizes on this cache, whose monitor
 * guards the session map and every {@link ShareSession}'s fields. Releases are started after the
 * monitor is let go, so SharePartitions is never called under it.
 */
public final class ShareSessionCache {
    private static final Logger log = LoggerFactory.getLogger(ShareSessionCache.class);

    public static final int INITIAL_EPOCH = 0;
    public static final int FINAL_EPOCH = -1;

    /** Whom a ShareFetch answers, from the session step. */
    public enum Mode {
        /** Epoch 0: every partition of the request, the new session's. */
        FULL,
        /** A later epoch: the session's partitions, answered only where there is news. */
        INCREMENTAL,
        /** Epoch -1: acknowledge only, then the session closes; nothing acquired. */
        FINAL
    }

    /**
     * The session step of one ShareFetch: an error for the whole request, or the partitions to
     * acquire from (a copy) and how to answer. Immutable.
     */
    public static final class FetchStep {
        private final Errors error;
        private final Mode mode;
        private final List<SessionPartition> partitions;
        private final ShareSession session;

        private FetchStep(Errors error, Mode mode, List<SessionPartition> partitions, ShareSession session) {
            this.error = error;
            this.mode = mode;
            this.partitions = partitions;
            this.session = session;
        }

        static FetchStep failed(Errors error) {
            return new FetchStep(error, null, List.of(), null);
        }

        public Errors error() {
            return error;
        }

        public Mode mode() {
            return mode;
        }

        public List<SessionPartition> partitions() {
            return partitions;
        }
    }

    private record Key(String groupId, String memberId) {
    }

    private final int maxSessions;
    private final long idleMs;
    private final LongSupplier clockMs;
    private final SharePartitions sharePartitions;
    private final Map<Key, ShareSession> sessions = new HashMap<>();

    /**
     * @param maxSessions the most sessions kept ({@code group.share.max.share.sessions})
     * @param idleMs how long a session may go unused before it may be closed
     * @param clockMs the time in milliseconds
     * @param sharePartitions where a closed session's records are released
     */
    public ShareSessionCache(int maxSessions, long idleMs, LongSupplier clockMs, SharePartitions sharePartitions) {
        if (maxSessions < 1 || idleMs < 1) {
            throw new IllegalArgumentException("maxSessions " + maxSessions + " and idleMs " + idleMs
                    + " must be positive");
        }
        this.maxSessions = maxSessions;
        this.idleMs = idleMs;
        this.clockMs = clockMs;
        this.sharePartitions = sharePartitions;
    }

    /** The broker's cache: its limit and idle bound from {@code config}, on the wall clock. */
    public static ShareSessionCache of(ShareGroupConfig config, SharePartitions sharePartitions) {
        return new ShareSessionCache(config.get(ShareGroupConfig.MAX_SHARE_SESSIONS), idleMs(config),
                System::currentTimeMillis, sharePartitions);
    }

    /**
     * How long a session may go unused: the longest session timeout a group may set
     * ({@code group.share.max.session.timeout.ms}) or the longest record lock
     * ({@code group.share.max.record.lock.duration.ms}), whichever is longer.
     */
    public static long idleMs(ShareGroupConfig config) {
        return Math.max(config.get(ShareGroupConfig.MAX_SESSION_TIMEOUT_MS),
                config.get(ShareGroupConfig.MAX_RECORD_LOCK_DURATION_MS));
    }

    /** The epoch after {@code epoch} (Kafka's ShareRequestMetadata.nextEpoch). */
    static int nextEpoch(int epoch) {
        if (epoch < 0) {
            return FINAL_EPOCH;
        }
        return epoch == Integer.MAX_VALUE ? 1 : epoch + 1;
    }

    /**
     * ShareFetch's session step.
     *
     * @param requested the partitions of the request's Topics (added to the session)
     * @param forgotten the partitions of its ForgottenTopicsData (removed)
     * @param acknowledges whether the request carries acknowledgements
     */
    public FetchStep fetch(String groupId, String memberId, int epoch, List<SessionPartition> requested,
            List<SessionPartition> forgotten, boolean acknowledges) {
        List<ShareSession> expired = new ArrayList<>();
        FetchStep step;
        synchronized (this) {
            step = fetchLocked(new Key(groupId, memberId), epoch, requested, forgotten, acknowledges, expired);
        }
        release(expired, "expired to make room for a new one");
        return step;
    }

    private FetchStep fetchLocked(Key key, int epoch, List<SessionPartition> requested,
            List<SessionPartition> forgotten, boolean acknowledges, List<ShareSession> expired) {
        long now = clockMs.getAsLong();
        if (epoch == INITIAL_EPOCH) {
            if (acknowledges) {
                return FetchStep.failed(Errors.INVALID_REQUEST); // nothing acquired yet in a new session
            }
            sessions.remove(key); // replaced; its records stay the member's until acknowledged or timed out
            if (sessions.size() >= maxSessions) {
                expireLocked(now, expired);
                if (sessions.size() >= maxSessions) {
                    return FetchStep.failed(Errors.SHARE_SESSION_LIMIT_REACHED);
                }
            }
            ShareSession session = new ShareSession(key.groupId(), key.memberId(), requested, now);
            sessions.put(key, session);
            return new FetchStep(Errors.NONE, Mode.FULL, List.copyOf(session.partitions), session);
        }
        ShareSession session = sessions.get(key);
        if (session == null) {
            return FetchStep.failed(Errors.SHARE_SESSION_NOT_FOUND);
        }
        if (epoch == FINAL_EPOCH) {
            session.lastUsedMs = now;
            return new FetchStep(Errors.NONE, Mode.FINAL, List.of(), session);
        }
        if (epoch != session.epoch) {
            return FetchStep.failed(Errors.INVALID_SHARE_SESSION_EPOCH);
        }
        session.partitions.addAll(requested);
        forgotten.forEach(session.partitions::remove);
        session.epoch = nextEpoch(session.epoch);
        session.lastUsedMs = now;
        return new FetchStep(Errors.NONE, Mode.INCREMENTAL, List.copyOf(session.partitions), session);
    }

    /**
     * ShareAcknowledge's session step: NONE (the epoch taken; for -1 the caller closes the session
     * with {@link #close} once the acknowledgements are applied), or the whole request's error.
     */
    public synchronized Errors acknowledge(String groupId, String memberId, int epoch) {
        if (epoch == INITIAL_EPOCH) {
            return Errors.INVALID_SHARE_SESSION_EPOCH; // checked before the lookup, as Kafka does
        }
        ShareSession session = sessions.get(new Key(groupId, memberId));
        if (session == null) {
            return Errors.SHARE_SESSION_NOT_FOUND;
        }
        session.lastUsedMs = clockMs.getAsLong();
        if (epoch == FINAL_EPOCH) {
            return Errors.NONE;
        }
        if (epoch != session.epoch) {
            return Errors.INVALID_SHARE_SESSION_EPOCH;
        }
        session.epoch = nextEpoch(session.epoch);
        return Errors.NONE;
    }

    /**
     * Closes the session a final ShareFetch ({@code step} of mode FINAL) ended, and releases the
     * records its member holds here.
     */
    public void close(FetchStep step) {
        if (step.session == null) {
            return;
        }
        Key key = new Key(step.session.groupId, step.session.memberId);
        synchronized (this) {
            sessions.remove(key, step.session); // not a session opened since by a new epoch 0
        }
        release(List.of(step.session), "closed by its member");
    }

    /**
     * Closes the member's session (a final ShareAcknowledge), releasing the records it holds
     * here; nothing if it has none.
     */
    public void close(String groupId, String memberId) {
        end(groupId, memberId, "closed by its member");
    }

    /**
     * The group coordinator says the member is gone (left, fenced, timed out): its session closes
     * and its records here are released. For the lead to wire as a
     * {@link io.aloft.broker.share.ShareGroupListener}: does not block.
     */
    public void memberLeft(String groupId, String memberId) {
        end(groupId, memberId, "its member left the group");
    }

    private void end(String groupId, String memberId, String why) {
        ShareSession gone;
        synchronized (this) {
            gone = sessions.remove(new Key(groupId, memberId));
        }
        if (gone != null) {
            release(List.of(gone), why);
        }
    }

    /** Closes every session unused for longer than the idle bound; returns how many. */
    public int expireIdle() {
        List<ShareSession> expired = new ArrayList<>();
        synchronized (this) {
            expireLocked(clockMs.getAsLong(), expired);
        }
        release(expired, "unused for more than " + idleMs + " ms");
        return expired.size();
    }

    private void expireLocked(long now, List<ShareSession> expired) {
        for (Iterator<ShareSession> it = sessions.values().iterator(); it.hasNext(); ) {
            ShareSession s = it.next();
            if (now - s.lastUsedMs > idleMs) {
                it.remove();
                expired.add(s);
            }
        }
    }

    /** How long a session may go unused before {@link #expireIdle()} closes it. */
    public long idleMs() {
        return idleMs;
    }

    public synchronized int size() {
        return sessions.size();
    }

    /** The epoch the member's session expects next, or null without a session (tests, diagnostics). */
    public synchronized Integer expectedEpoch(String groupId, String memberId) {
        ShareSession s = sessions.get(new Key(groupId, memberId));
        return s == null ? null : s.epoch;
    }

    private void release(List<ShareSession> ended, String why) {
        for (ShareSession s : ended) {
            log.debug("Share session of member {} of group {} {}: releasing its records", s.memberId, s.groupId, why);
            sharePartitions.releaseMember(s.groupId, s.memberId).whenComplete((v, e) -> {
                if (e != null) {
                    // Its records come back at their lock timeouts instead.
                    log.debug("Releasing the records of member {} of group {} failed", s.memberId, s.groupId, e);
                }
            });
        }
    }
}
