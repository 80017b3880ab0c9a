package io.aloft.broker.fetch;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of fetch sessions since the broker started: what tests (and, later, metrics) read to
 * see that sessions are used, evicted and refused as expected. The number of sessions and cached
 * partitions right now are on {@link FetchSessionCache}.
 *
 * <p>Thread-safe.
 */
public final class FetchSessionStats {
    private final LongAdder created = new LongAdder();
    private final LongAdder evicted = new LongAdder();
    private final LongAdder closed = new LongAdder();
    private final LongAdder fullFetches = new LongAdder();
    private final LongAdder incrementalFetches = new LongAdder();
    private final LongAdder sessionIdNotFound = new LongAdder();
    private final LongAdder invalidEpoch = new LongAdder();
    private final LongAdder topicIdErrors = new LongAdder();

    void onCreated() {
        created.increment();
    }

    void onEvicted() {
        evicted.increment();
    }

    void onClosed() {
        closed.increment();
    }

    void onFullFetch() {
        fullFetches.increment();
    }

    void onIncrementalFetch() {
        incrementalFetches.increment();
    }

    void onSessionIdNotFound() {
        sessionIdNotFound.increment();
    }

    void onInvalidEpoch() {
        invalidEpoch.increment();
    }

    void onTopicIdError() {
        topicIdErrors.increment();
    }

    /** Sessions created by full fetches. */
    public long sessionsCreated() {
        return created.sum();
    }

    /** Sessions evicted to make room for a new one. */
    public long sessionsEvicted() {
        return evicted.sum();
    }

    /** Sessions closed by their client (epoch -1, a full fetch naming them, or every partition forgotten). */
    public long sessionsClosed() {
        return closed.sum();
    }

    /** Fetches (v7+) answered with every requested partition: sessionless, or creating a session. */
    public long fullFetches() {
        return fullFetches.sum();
    }

    /** Incremental fetches answered without a session error. */
    public long incrementalFetches() {
        return incrementalFetches.sum();
    }

    /** Incremental fetches answered FETCH_SESSION_ID_NOT_FOUND. */
    public long sessionIdNotFound() {
        return sessionIdNotFound.sum();
    }

    /** Incremental fetches answered INVALID_FETCH_SESSION_EPOCH. */
    public long invalidEpoch() {
        return invalidEpoch.sum();
    }

    /** Incremental fetches answered FETCH_SESSION_TOPIC_ID_ERROR. */
    public long topicIdErrors() {
        return topicIdErrors.sum();
    }
}
