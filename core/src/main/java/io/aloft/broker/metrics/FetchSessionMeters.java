package io.aloft.broker.metrics;

import io.aloft.broker.fetch.FetchSessionCache;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Kafka's {@code kafka.server:type=FetchSessionCache} meters over the broker's incremental fetch
 * sessions (KIP-227), read from the cache and its counters at scrape time. Stateless.
 */
final class FetchSessionMeters {

    private FetchSessionMeters() {
    }

    static void bind(MeterRegistry registry, FetchSessionCache sessions) {
        Gauge.builder("kafka.server.fetchsessioncache.numincrementalfetchsessions", sessions, FetchSessionCache::size)
                .description("Incremental fetch sessions cached (max.incremental.fetch.session.cache.slots bounds "
                        + "them); Kafka's FetchSessionCache NumIncrementalFetchSessions").register(registry);
        Gauge.builder("kafka.server.fetchsessioncache.numincrementalfetchpartitionscached", sessions,
                        FetchSessionCache::cachedPartitions)
                .description("Partitions held by the cached fetch sessions; Kafka's FetchSessionCache "
                        + "NumIncrementalFetchPartitionsCached").register(registry);
        FunctionCounter.builder("kafka.server.fetchsessioncache.incrementalfetchsessionevictions", sessions,
                        s -> s.stats().sessionsEvicted())
                .description("Fetch sessions evicted to make room for new ones; Kafka's FetchSessionCache "
                        + "IncrementalFetchSessionEvictionsPerSec").register(registry);
        FunctionCounter.builder("aloft.fetch.sessions.opened", sessions, s -> s.stats().sessionsCreated())
                .description("Incremental fetch sessions opened (created in the cache)").register(registry);
    }
}
