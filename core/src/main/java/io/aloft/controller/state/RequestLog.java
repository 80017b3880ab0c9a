package io.aloft.controller.state;

import io.aloft.controller.ControllerException;
import io.aloft.controller.command.Reply;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Recent replies per client, so a retried command (same client id and sequence) is applied once
 * and answered with its first reply, even when the retry reaches a new leader. Part of the
 * replicated state: every replica makes the same decision.
 *
 * <p>Bounded: the newest {@value #MAX_REPLIES_PER_CLIENT} replies per client, and clients silent
 * for {@value #SESSION_EXPIRY_MS} ms of controller clock are forgotten (far longer than any
 * client retries one request). Not thread-safe.
 */
final class RequestLog {
    static final int MAX_REPLIES_PER_CLIENT = 1024;
    static final long SESSION_EXPIRY_MS = 15 * 60_000L;
    private static final long SWEEP_INTERVAL_MS = 60_000L;

    private static final class Session {
        long lastUsedMs;
        final TreeMap<Long, Reply> replies = new TreeMap<>();
    }

    private final TreeMap<UUID, Session> sessions = new TreeMap<>();
    private long lastSweepMs;

    /**
     * The reply already given to this request, or null if it is new.
     *
     * @throws ControllerException {@code REQUEST_TOO_OLD} when the request is older than every retained reply
     */
    Reply lookup(UUID clientId, long sequence) {
        Session s = sessions.get(clientId);
        if (s == null) {
            return null;
        }
        Reply reply = s.replies.get(sequence);
        if (reply == null && s.replies.size() >= MAX_REPLIES_PER_CLIENT && sequence < s.replies.firstKey()) {
            throw new ControllerException(ControllerException.Code.REQUEST_TOO_OLD, "request " + sequence
                    + " of client " + clientId + " is older than its retained replies");
        }
        return reply;
    }

    void record(UUID clientId, long sequence, Reply reply, long clockMs) {
        Session s = sessions.computeIfAbsent(clientId, id -> new Session());
        s.lastUsedMs = clockMs;
        s.replies.put(sequence, reply);
        if (s.replies.size() > MAX_REPLIES_PER_CLIENT) {
            s.replies.pollFirstEntry();
        }
    }

    /** Forgets idle clients, at most once a minute of controller clock (cheap on the apply path). */
    void expire(long clockMs) {
        if (clockMs - lastSweepMs < SWEEP_INTERVAL_MS) {
            return;
        }
        lastSweepMs = clockMs;
        for (Iterator<Session> it = sessions.values().iterator(); it.hasNext(); ) {
            if (clockMs - it.next().lastUsedMs > SESSION_EXPIRY_MS) {
                it.remove();
            }
        }
    }

    long lastSweepMs() {
        return lastSweepMs;
    }

    List<ControllerSnapshot.Session> snapshot() {
        List<ControllerSnapshot.Session> out = new ArrayList<>(sessions.size());
        for (Map.Entry<UUID, Session> e : sessions.entrySet()) {
            List<ControllerSnapshot.CachedReply> replies = new ArrayList<>(e.getValue().replies.size());
            e.getValue().replies.forEach((seq, reply) -> replies.add(new ControllerSnapshot.CachedReply(seq, reply)));
            out.add(new ControllerSnapshot.Session(e.getKey(), e.getValue().lastUsedMs, replies));
        }
        return out;
    }

    void restore(long sweepMs, List<ControllerSnapshot.Session> saved) {
        sessions.clear();
        lastSweepMs = sweepMs;
        for (ControllerSnapshot.Session saved1 : saved) {
            Session s = new Session();
            s.lastUsedMs = saved1.lastUsedMs();
            saved1.replies().forEach(r -> s.replies.put(r.sequence(), r.reply()));
            sessions.put(saved1.clientId(), s);
        }
    }
}
