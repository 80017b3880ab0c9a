package io.aloft.stream.store;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.aloft.stream.metadata.ObjectRef;
import io.aloft.stream.metadata.StreamMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * {@link StreamMetadata#getObjects} with the last answer per stream kept for a short while: a
 * catch-up reader asks for the objects of every fetch (and readahead for every chunk), and with
 * the controller's metadata each ask is a Raft query (7 of 40 samples in a short catch-up profile
 * of the broker, bench-cpu.sh --jfr: as many as reading and decoding the blocks), while the answer changes only when an
 * upload or compaction commits.
 *
 * <p>Why a stale answer is safe: an object replaced by compaction or a trim holds the same bytes
 * for the same offsets as its replacement, and is deleted from object storage only {@code s3.object.delete.delay.ms} after it was released, and a kept answer is used
 * for at most half of that (at most {@link #MAX_TTL_MS}), so every object it names can still be
 * read, with the same bytes. An answer is used only for an offset it covers (held by one of its
 * objects, and then the objects after it while they are contiguous); anything else asks metadata,
 * so data committed since is found as soon as a reader reaches it. A read that fails drops the
 * stream's answer ({@link #forget}).
 *
 * <p>Thread-safe.
 */
final class ObjectLookups {
    static final long MAX_TTL_MS = 5_000;

    private final StreamMetadata metadata;
    private final LongSupplier clockMs;
    private final long ttlMs;
    private final Cache<Long, Answer> answers = Caffeine.newBuilder().maximumSize(10_000)
            .executor(Runnable::run).build();

    /** Bumped by every {@link #forget}: an answer asked for before one is not kept (it may predate the change). */
    private final java.util.concurrent.atomic.AtomicLong forgets = new java.util.concurrent.atomic.AtomicLong();

    private record Answer(List<ObjectRef> refs, long atMs) {
    }

    /** @param objectDeleteDelayMs {@code s3.object.delete.delay.ms}: answers are kept for at most half of it */
    ObjectLookups(StreamMetadata metadata, LongSupplier clockMs, long objectDeleteDelayMs) {
        this.metadata = metadata;
        this.clockMs = clockMs;
        this.ttlMs = Math.min(MAX_TTL_MS, objectDeleteDelayMs / 2);
    }

    /** As {@link StreamMetadata#getObjects}, possibly shorter than the metadata's answer would be (never wrong). */
    CompletableFuture<List<ObjectRef>> getObjects(long streamId, long from, long to, int limit) {
        if (ttlMs > 0) {
            Answer a = answers.getIfPresent(streamId);
            if (a != null && clockMs.getAsLong() - a.atMs() < ttlMs) {
                List<ObjectRef> kept = covering(a.refs(), from, to, limit);
                if (kept != null) {
                    return CompletableFuture.completedFuture(kept);
                }
            }
        }
        long askedAt = clockMs.getAsLong();
        long forgetsBefore = forgets.get();
        return metadata.getObjects(streamId, from, to, limit).thenApply(refs -> {
            if (ttlMs > 0 && !refs.isEmpty() && forgets.get() == forgetsBefore) {
                answers.put(streamId, new Answer(List.copyOf(refs), askedAt));
            }
            return refs;
        });
    }

    /**
     * Drops the stream's kept answer: a read of one of its objects failed, or a range of it was
     * rewritten with other bytes (the log cleaner's {@link RangeRewrite}: unlike object compaction,
     * which moves the same bytes, the old objects then hold records the new ones dropped).
     */
    void forget(long streamId) {
        forgets.incrementAndGet();
        answers.invalidate(streamId);
    }

    /**
     * The refs from the one holding {@code from}, while contiguous and starting below {@code to}
     * (-1: no end), at most {@code limit}; null when none holds {@code from}.
     */
    static List<ObjectRef> covering(List<ObjectRef> refs, long from, long to, int limit) {
        int i = 0;
        while (i < refs.size() && refs.get(i).range().endOffset() <= from) {
            i++;
        }
        if (i == refs.size() || refs.get(i).range().startOffset() > from) {
            return null;
        }
        List<ObjectRef> out = new ArrayList<>();
        out.add(refs.get(i));
        for (int j = i + 1; j < refs.size() && out.size() < limit; j++) {
            ObjectRef r = refs.get(j);
            boolean contiguous = r.range().startOffset() == refs.get(j - 1).range().endOffset();
            if (!contiguous || (to >= 0 && r.range().startOffset() >= to)) {
                break;
            }
            out.add(r);
        }
        return out;
    }
}
