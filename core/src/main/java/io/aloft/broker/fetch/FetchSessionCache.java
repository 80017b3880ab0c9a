package io.aloft.broker.fetch;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The broker's fetch sessions, at most {@code slots} of them, by id.
 *
 * <p><b>Eviction</b> (KIP-227's rules, without the "privileged" follower sessions: Aloft has no
 * followers). When every slot is taken, a new session may take the slot of
 * <ol>
 *   <li>the least recently used session, if it has been unused for more than {@code evictionMs}
 *       (its client has probably gone: sessions are not tied to a connection, so a client that
 *       disconnects leaves its session to age out); otherwise of</li>
 *   <li>the session with the fewest partitions among those that were already older than
 *       {@code evictionMs} when last used, if the new session has more partitions than it. So
 *       a new session never evicts one that is young, and large sessions, which save the most,
 *       are kept.</li>
 * </ol>
 * Otherwise the new session is not created: its full fetch is answered with session id 0 and the
 * client goes on with full fetches, trying again each time. Both choices take O(log slots).
 *
 * <p><b>Memory</b> is bounded by {@code slots} times the partitions of the largest session (which a
 * request's size bounds): about 200 bytes per cached partition.
 *
 * <p><b>Thread-safety.</b> Thread-safe: every method synchronizes on this cache, whose monitor
 * guards the id map, the two eviction indexes and the index fields of each {@link FetchSession}.
 * Requests arrive on any network thread. The monitor is held only for map and index updates,
 * never while a session's own monitor is held (nor the reverse), so the two cannot deadlock; a
 * session's partition bookkeeping runs under its own monitor, in parallel with other sessions'.
 */
public final class FetchSessionCache {
    /** The key of the recency index: last use, then id to tell sessions apart. */
    private record UseKey(long lastUsedMs, int id) implements Comparable<UseKey> {
        @Override
        public int compareTo(UseKey o) {
            int c = Long.compare(lastUsedMs, o.lastUsedMs);
            return c != 0 ? c : Integer.compare(id, o.id);
        }
    }

    /** The key of the size index: partitions, then id. */
    private record SizeKey(int size, int id) implements Comparable<SizeKey> {
        @Override
        public int compareTo(SizeKey o) {
            int c = Integer.compare(size, o.size);
            return c != 0 ? c : Integer.compare(id, o.id);
        }
    }

    private final int slots;
    private final long evictionMs;
    private final LongSupplier clockMs;
    private final IntSupplier randomInts;
    private final FetchSessionStats stats;

    private final Map<Integer, FetchSession> sessions = new HashMap<>();
    private final TreeMap<UseKey, FetchSession> byLastUse = new TreeMap<>();
    /** Sessions older than evictionMs when last used, smallest first. */
    private final TreeMap<SizeKey, FetchSession> evictableBySize = new TreeMap<>();
    private long cachedPartitions;

    /**
     * @param slots the most sessions kept; 0 keeps none
     * @param evictionMs how long unused, or how old, a session must be before it may be evicted
     *     (see the class comment); the broker uses {@link FetchSessionConfig#MIN_EVICTION_MS}
     * @param clockMs the time in milliseconds
     * @param randomInts where session ids come from (non-positive values and ids in use are skipped)
     */
    public FetchSessionCache(int slots, long evictionMs, LongSupplier clockMs, IntSupplier randomInts,
            FetchSessionStats stats) {
        if (slots < 0) {
            throw new IllegalArgumentException("slots: " + slots + " is negative");
        }
        this.slots = slots;
        this.evictionMs = evictionMs;
        this.clockMs = clockMs;
        this.randomInts = randomInts;
        this.stats = stats;
    }

    /** A cache on the system clock with random ids and Kafka's eviction time. */
    public FetchSessionCache(int slots, FetchSessionStats stats) {
        this(slots, FetchSessionConfig.MIN_EVICTION_MS, System::currentTimeMillis,
                () -> ThreadLocalRandom.current().nextInt(), stats);
    }

    public FetchSessionStats stats() {
        return stats;
    }

    /** The most sessions kept. */
    public int slots() {
        return slots;
    }

    /**
     * Creates a session holding {@code partitions} (which the session owns from now on) if a
     * slot is free or can be freed by eviction.
     *
     * @return the new session's id, or {@link org.apache.kafka.common.requests.FetchMetadata#INVALID_SESSION_ID}
     *     (0) if there is no room
     */
    synchronized int create(boolean usesTopicIds, LinkedHashMap<PartitionKey, CachedPartition> partitions) {
        if (slots == 0) {
            return 0;
        }
        long now = clockMs.getAsLong();
        if (sessions.size() >= slots && !evictOne(partitions.size(), now)) {
            return 0;
        }
        int id;
        do {
            id = randomInts.getAsInt();
        } while (id <= 0 || sessions.containsKey(id));
        FetchSession session = new FetchSession(id, usesTopicIds, now, partitions);
        sessions.put(id, session);
        index(session);
        stats.onCreated();
        return id;
    }

    /** Makes room for a session of {@code newSize} partitions by the class comment's rules. */
    private boolean evictOne(int newSize, long now) {
        Map.Entry<UseKey, FetchSession> leastRecent = byLastUse.firstEntry();
        if (leastRecent == null) {
            return false;
        }
        FetchSession victim = null;
        if (now - leastRecent.getValue().lastUsedMs > evictionMs) {
            victim = leastRecent.getValue();
        } else {
            Map.Entry<SizeKey, FetchSession> smallest = evictableBySize.firstEntry();
            if (smallest != null && newSize > smallest.getKey().size()) {
                victim = smallest.getValue();
            }
        }
        if (victim == null) {
            return false;
        }
        unindex(victim);
        sessions.remove(victim.id);
        stats.onEvicted();
        return true;
    }

    /** The session with this id, marked as used now; null if there is none. */
    synchronized FetchSession get(int id) {
        FetchSession session = sessions.get(id);
        if (session != null) {
            unindex(session);
            long now = clockMs.getAsLong();
            session.lastUsedMs = now;
            session.evictable = now - session.creationMs > evictionMs;
            index(session);
        }
        return session;
    }

    /** Re-indexes a session whose partition count may have changed to {@code size}. */
    synchronized void resized(FetchSession session, int size) {
        if (sessions.get(session.id) == session && session.indexedSize != size) {
            unindex(session);
            session.indexedSize = size;
            index(session);
        }
    }

    /** Removes the session with this id; false if there was none. */
    synchronized boolean remove(int id) {
        FetchSession session = sessions.remove(id);
        if (session == null) {
            return false;
        }
        unindex(session);
        return true;
    }

    /** Sessions kept now. */
    public synchronized int size() {
        return sessions.size();
    }

    /** Partitions cached over all sessions now (as last indexed). */
    public synchronized long cachedPartitions() {
        return cachedPartitions;
    }

    private void index(FetchSession s) {
        byLastUse.put(new UseKey(s.lastUsedMs, s.id), s);
        if (s.evictable) {
            evictableBySize.put(new SizeKey(s.indexedSize, s.id), s);
        }
        cachedPartitions += s.indexedSize;
    }

    private void unindex(FetchSession s) {
        byLastUse.remove(new UseKey(s.lastUsedMs, s.id));
        if (s.evictable) {
            evictableBySize.remove(new SizeKey(s.indexedSize, s.id));
        }
        cachedPartitions -= s.indexedSize;
    }
}
