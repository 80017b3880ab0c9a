package io.aloft.broker.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchMetadata;
import org.junit.jupiter.api.Test;

/** The bounded cache: slots, ids, and Kafka's eviction order (stale first, then smaller and old). */
class FetchSessionCacheTest {
    private static final long EVICTION_MS = 1_000;
    private long now = 50_000;
    private final FetchSessionStats stats = new FetchSessionStats();

    private FetchSessionCache cache(int slots) {
        AtomicInteger ids = new AtomicInteger(1);
        return new FetchSessionCache(slots, EVICTION_MS, () -> now, ids::getAndIncrement, stats);
    }

    private static LinkedHashMap<PartitionKey, CachedPartition> partitions(int n) {
        LinkedHashMap<PartitionKey, CachedPartition> out = new LinkedHashMap<>();
        Uuid topic = Uuid.randomUuid();
        for (int p = 0; p < n; p++) {
            PartitionKey key = PartitionKey.byId(topic, p);
            out.put(key, CachedPartition.added(key, new FetchPartition().setPartition(p)));
        }
        return out;
    }

    @Test
    void create_upToSlots_thenNoRoomWhileEverySessionIsYoungAndInUse() {
        FetchSessionCache cache = cache(2);
        assertEquals(1, cache.create(true, partitions(1)));
        assertEquals(2, cache.create(true, partitions(1)));
        now += EVICTION_MS; // not more than the eviction time: neither stale nor old enough
        assertEquals(0, cache.create(true, partitions(100)));
        assertEquals(2, cache.size());
        assertEquals(0, stats.sessionsEvicted());
    }

    @Test
    void create_sessionUnusedLongerThanEvictionTime_isEvictedWhateverItsSize() {
        FetchSessionCache cache = cache(2);
        int big = cache.create(true, partitions(50));
        now += 10;
        int small = cache.create(true, partitions(1));
        now += EVICTION_MS + 5; // big: unused for EVICTION_MS + 15; small: + 5
        assertNotNull(cache.get(small));
        int fresh = cache.create(true, partitions(1));
        assertTrue(fresh > 0);
        assertNull(cache.get(big), "the least recently used session, unused too long, goes first");
        assertNotNull(cache.get(small));
        assertEquals(1, stats.sessionsEvicted());
    }

    @Test
    void create_largerNewSession_evictsTheSmallestOldSession() {
        FetchSessionCache cache = cache(3);
        int s5 = cache.create(true, partitions(5));
        int s2 = cache.create(true, partitions(2));
        int s9 = cache.create(true, partitions(9));
        now += EVICTION_MS + 1;
        // All used again (none stale), and now older than the eviction time: evictable by size.
        cache.get(s5);
        cache.get(s2);
        cache.get(s9);
        assertEquals(0, cache.create(true, partitions(2)), "not larger than the smallest: no eviction");
        int s3 = cache.create(true, partitions(3));
        assertTrue(s3 > 0);
        assertNull(cache.get(s2));
        assertEquals(0, cache.create(true, partitions(4)), "the new session is young, the 5 and 9 are larger");
        int s6 = cache.create(true, partitions(6));
        assertTrue(s6 > 0);
        assertNull(cache.get(s5));
        assertNotNull(cache.get(s9));
        assertNotNull(cache.get(s3));
        assertEquals(2, stats.sessionsEvicted());
        assertEquals(9 + 3 + 6, cache.cachedPartitions());
    }

    @Test
    void create_oldSessionNotUsedSinceItWasYoung_isNotEvictableBySize() {
        FetchSessionCache cache = cache(1);
        int s1 = cache.create(true, partitions(1));
        now += EVICTION_MS / 2;
        cache.get(s1); // used while young
        now += EVICTION_MS / 2 + 10; // now old, but used recently: neither stale nor (as of its last use) old
        assertEquals(0, cache.create(true, partitions(100)));
        cache.get(s1); // used while old: from now on evictable by a larger session
        assertTrue(cache.create(true, partitions(100)) > 0);
        assertNull(cache.get(s1));
    }

    @Test
    void create_staleSessionGoesBeforeASmallerEvictableOne() {
        FetchSessionCache cache = cache(2);
        int stale = cache.create(true, partitions(10));
        int small = cache.create(true, partitions(1));
        now += EVICTION_MS + 1;
        cache.get(small); // evictable by size (1 < 5), but the stale one goes first
        now += EVICTION_MS / 2;
        assertTrue(cache.create(true, partitions(5)) > 0);
        assertNull(cache.get(stale));
        assertNotNull(cache.get(small));
    }

    @Test
    void create_noSlots_neverCreates() {
        FetchSessionCache cache = cache(0);
        assertEquals(0, cache.create(true, partitions(1)));
        assertEquals(0, cache.size());
        assertEquals(0, stats.sessionsCreated());
    }

    @Test
    void create_idsArePositiveAndUnique() {
        Iterator<Integer> ids = List.of(0, -5, 7, 7, Integer.MIN_VALUE, 8).iterator();
        IntSupplier next = ids::next;
        FetchSessionCache cache = new FetchSessionCache(5, EVICTION_MS, () -> now, next, stats);
        assertEquals(7, cache.create(false, partitions(1)));
        assertEquals(8, cache.create(false, partitions(1)));
    }

    @Test
    void resizedAndRemove_keepTheCountsRight() {
        FetchSessionCache cache = cache(4);
        int a = cache.create(true, partitions(3));
        int b = cache.create(true, partitions(4));
        assertEquals(7, cache.cachedPartitions());
        cache.resized(cache.get(a), 10);
        assertEquals(14, cache.cachedPartitions());
        assertTrue(cache.remove(b));
        assertTrue(!cache.remove(b));
        assertEquals(10, cache.cachedPartitions());
        assertEquals(1, cache.size());
        // A removed session resized late (its response was in flight) does not come back into the counts.
        FetchSession gone = cache.get(a);
        cache.remove(a);
        cache.resized(gone, 20);
        assertEquals(0, cache.cachedPartitions());
    }

    @Test
    void concurrentFetches_sessionsEvictingEachOther_keepTheCacheConsistent() throws Exception {
        // Two slots, four clients, a clock that moves 1 ms per reading and a 3 ms eviction time: the
        // clients' sessions constantly evict each other while their fetches run on four threads.
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong();
        FetchSessionKit kit = new FetchSessionKit(2, 3, clock::incrementAndGet);
        kit.createTopic("t", 4);
        kit.view(); // the metadata snapshot made before the threads share it
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<int[]>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int size = t + 1;
            results.add(pool.submit(() -> {
                start.await();
                int incremental = 0;
                int notFound = 0;
                int id = 0;
                int epoch = 0;
                List<FetchSessionKit.Part> parts = new ArrayList<>();
                for (int p = 0; p < size; p++) {
                    parts.add(kit.part("t", p, 0));
                }
                for (int i = 0; i < 3_000; i++) {
                    boolean full = epoch == 0;
                    var r = kit.fetch(FetchSessionKit.LATEST, id, epoch, full ? parts : List.of(), List.of());
                    if (r.errorCode() == Errors.FETCH_SESSION_ID_NOT_FOUND.code()) {
                        notFound++;
                        id = 0;
                        epoch = 0;
                    } else {
                        assertEquals(Errors.NONE.code(), r.errorCode());
                        if (!full) {
                            incremental++;
                            epoch = FetchMetadata.nextEpoch(epoch);
                        } else if (r.sessionId() != 0) {
                            id = r.sessionId();
                            epoch = 1;
                        }
                    }
                }
                return new int[] {incremental, notFound};
            }));
        }
        start.countDown();
        int incremental = 0;
        int notFound = 0;
        for (Future<int[]> f : results) {
            int[] r = f.get(60, TimeUnit.SECONDS);
            incremental += r[0];
            notFound += r[1];
        }
        pool.shutdown();
        assertTrue(incremental > 0, "sessions were used");
        assertTrue(notFound > 0, "sessions were evicted under their clients");
        assertEquals(notFound, stats.sessionIdNotFound() + kit.stats.sessionIdNotFound());
        assertTrue(kit.cache.size() <= 2);
        assertTrue(kit.stats.sessionsEvicted() > 0);
        assertEquals(kit.stats.sessionsCreated() - kit.stats.sessionsEvicted() - kit.stats.sessionsClosed(),
                kit.cache.size(), "every session created is still there, evicted or closed");
        long expectedPartitions = 0;
        for (int id = 101; id < 101 + kit.stats.sessionsCreated(); id++) {
            FetchSession s = kit.cache.get(id);
            expectedPartitions += s == null ? 0 : s.size();
        }
        assertEquals(expectedPartitions, kit.cache.cachedPartitions());
    }
}
