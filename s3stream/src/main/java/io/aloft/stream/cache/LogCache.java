package io.aloft.stream.cache;

import io.aloft.stream.StreamRecordBatch;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The tail of every stream, in memory, in blocks that are uploaded together.
 *
 * <p>Batches are added to the <em>active</em> block when they are appended (before they are
 * durable) so their order in the cache is their order in the write-ahead log; they are
 * <em>confirmed</em> once durable. A block is <em>sealed</em> (by size, age, a stream's close, or
 * shutdown) and uploaded as one stream-set object once all its batches are confirmed; after the
 * upload is committed it is marked uploaded and may be evicted, oldest first, when the cache is
 * over its byte budget. Tail reads are served from here and never touch object storage.
 *
 * <p>Thread-safe: a read-write lock guards the block list; readers never see unconfirmed data
 * because callers bound their reads by the stream's confirmed offset.
 */
public final class LogCache {
    private final long budgetBytes;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    // Guarded by lock; oldest first, the last one is active.
    private final ArrayDeque<Block> blocks = new ArrayDeque<>();
    private long totalBytes;
    private long nextBlockId;
    /**
     * Per stream, the offset below which cached batches are stale: a range replacement (key
     * compaction) committed other bytes for those offsets. Reads below it go to object storage;
     * the stale batches themselves leave with their blocks. Guarded by lock.
     */
    private final Map<Long, Long> floors = new HashMap<>();

    public LogCache(long budgetBytes, long nowMs) {
        this.budgetBytes = budgetBytes;
        blocks.add(new Block(nextBlockId++, nowMs));
    }

    /** One upload unit. Batches are added and confirmed under the cache's lock. */
    public static final class Block {
        private final long id;
        private final long createdAtMs;
        private final Map<Long, List<StreamRecordBatch>> streams = new HashMap<>();
        private final CompletableFuture<Void> allConfirmed = new CompletableFuture<>();
        private long bytes;
        private long maxWalOffset = -1;
        private int unconfirmed;
        private boolean sealed;
        private boolean uploaded;
        /** When {@link LogCache#seal} sealed it; written under the cache's write lock. */
        private long sealedAtMs;

        Block(long id, long createdAtMs) {
            this.id = id;
            this.createdAtMs = createdAtMs;
        }

        public long id() {
            return id;
        }

        public long createdAtMs() {
            return createdAtMs;
        }

        /** Bytes of payload held. */
        public synchronized long bytes() {
            return bytes;
        }

        /** Highest WAL offset among the block's confirmed batches, -1 if none. */
        public synchronized long maxWalOffset() {
            return maxWalOffset;
        }

        /** Completes once the block is sealed and every batch in it is durable. */
        public CompletableFuture<Void> allConfirmed() {
            return allConfirmed;
        }

        /** The batches by stream, each list in offset order. Only stable once sealed. */
        public synchronized Map<Long, List<StreamRecordBatch>> streams() {
            Map<Long, List<StreamRecordBatch>> copy = new HashMap<>();
            streams.forEach((id, list) -> copy.put(id, List.copyOf(list)));
            return copy;
        }

        /** Whether this block holds data of the stream. */
        public synchronized boolean contains(long streamId) {
            return streams.containsKey(streamId);
        }

        private synchronized void add(StreamRecordBatch batch) {
            List<StreamRecordBatch> list = streams.computeIfAbsent(batch.streamId(), k -> new ArrayList<>());
            if (!list.isEmpty() && list.get(list.size() - 1).lastOffsetExclusive() != batch.baseOffset()) {
                throw new IllegalStateException("stream " + batch.streamId() + " batch at " + batch.baseOffset()
                        + " does not continue the cached tail ending at "
                        + list.get(list.size() - 1).lastOffsetExclusive());
            }
            list.add(batch);
            bytes += batch.size();
            unconfirmed++;
        }

        private void confirm(long walOffset) {
            boolean done;
            synchronized (this) {
                maxWalOffset = Math.max(maxWalOffset, walOffset);
                unconfirmed--;
                done = sealed && unconfirmed == 0;
            }
            if (done) {
                allConfirmed.complete(null);
            }
        }

        private void seal() {
            boolean done;
            synchronized (this) {
                sealed = true;
                done = unconfirmed == 0;
            }
            if (done) {
                allConfirmed.complete(null);
            }
        }

        private synchronized List<StreamRecordBatch> batchesOf(long streamId) {
            List<StreamRecordBatch> list = streams.get(streamId);
            return list == null ? List.of() : list;
        }
    }

    /** Adds a not-yet-durable batch to the active block and returns that block. */
    public Block put(StreamRecordBatch batch) {
        lock.writeLock().lock();
        try {
            Block active = blocks.peekLast();
            active.add(batch);
            totalBytes += batch.size();
            return active;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Stops serving the stream's cached batches below {@code offset} (a batch boundary), whose
     * committed bytes were replaced: reads below it miss the cache and go to the new objects.
     * Only rises.
     */
    public void hideBelow(long streamId, long offset) {
        lock.writeLock().lock();
        try {
            floors.merge(streamId, offset, Math::max);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Marks one batch of {@code block} durable at {@code walOffset}. */
    public void confirm(Block block, long walOffset) {
        block.confirm(walOffset);
    }

    /** Bytes in the active block. */
    public long activeBytes() {
        lock.readLock().lock();
        try {
            return blocks.peekLast().bytes();
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Creation time of the active block. */
    public long activeCreatedAtMs() {
        lock.readLock().lock();
        try {
            return blocks.peekLast().createdAtMs();
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Seals the active block if it holds anything and opens a new one; returns the sealed block or null. */
    public Block seal(long nowMs) {
        lock.writeLock().lock();
        try {
            Block active = blocks.peekLast();
            if (active.bytes() == 0 && active.streams().isEmpty()) {
                return null;
            }
            active.sealedAtMs = nowMs;
            active.seal();
            blocks.addLast(new Block(nextBlockId++, nowMs));
            return active;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** The block's data is committed to object storage: it may be evicted, oldest first, when over budget. */
    public void markUploaded(Block block) {
        lock.writeLock().lock();
        try {
            block.uploaded = true;
            // Evict only from the head so each stream's cached data stays one contiguous tail.
            while (totalBytes > budgetBytes && blocks.size() > 1 && blocks.peekFirst().uploaded) {
                totalBytes -= blocks.pollFirst().bytes();
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Bytes held, uploaded or not. */
    public long totalBytes() {
        lock.readLock().lock();
        try {
            return totalBytes;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Bytes held that are not yet committed to object storage. */
    public long unuploadedBytes() {
        lock.readLock().lock();
        try {
            long bytes = 0;
            for (Block b : blocks) {
                if (!b.uploaded) {
                    bytes += b.bytes();
                }
            }
            return bytes;
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Returns cached batches of a stream from the one containing {@code from} towards {@code to},
     * stopping once {@code maxBytes} are collected (at least one batch), or an empty list when
     * the cache does not hold {@code from}. The caller bounds {@code to} by the confirmed offset.
     */
    public List<StreamRecordBatch> get(long streamId, long from, long to, int maxBytes) {
        lock.readLock().lock();
        try {
            if (from < floors.getOrDefault(streamId, Long.MIN_VALUE)) {
                return List.of();
            }
            List<StreamRecordBatch> out = new ArrayList<>();
            long next = from;
            int bytes = 0;
            for (Block block : blocks) {
                List<StreamRecordBatch> list = block.batchesOf(streamId);
                if (list.isEmpty() || list.get(list.size() - 1).lastOffsetExclusive() <= next) {
                    continue;
                }
                int i = out.isEmpty() ? firstEndingAfter(list, next) : 0;
                for (; i < list.size(); i++) {
                    StreamRecordBatch b = list.get(i);
                    if (b.baseOffset() >= to || (!out.isEmpty() && bytes + b.size() > maxBytes)) {
                        return out;
                    }
                    if (b.baseOffset() > next) {
                        return out; // a gap: the cache does not hold `next`
                    }
                    out.add(b);
                    bytes += b.size();
                    next = b.lastOffsetExclusive();
                }
            }
            return out;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Lowest cached offset of a stream that reads are served from (see {@link #hideBelow}), or -1 if none. */
    public long startOffset(long streamId) {
        lock.readLock().lock();
        try {
            long floor = floors.getOrDefault(streamId, Long.MIN_VALUE);
            for (Block block : blocks) {
                for (StreamRecordBatch b : block.batchesOf(streamId)) {
                    if (b.baseOffset() >= floor) {
                        return b.baseOffset();
                    }
                }
            }
            return -1;
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * When the oldest sealed block not yet uploaded was sealed, or {@link Long#MAX_VALUE} if every
     * sealed block is uploaded: how long uploads have been behind.
     */
    public long oldestPendingSealMs() {
        lock.readLock().lock();
        try {
            for (Block b : blocks) {
                if (b.sealed && !b.uploaded) {
                    return b.sealedAtMs;
                }
            }
            return Long.MAX_VALUE;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Sealed blocks not yet uploaded, oldest first (for shutdown and stream close). */
    public List<Block> pendingBlocks() {
        lock.readLock().lock();
        try {
            List<Block> out = new ArrayList<>();
            for (Block b : blocks) {
                if (b.sealed && !b.uploaded) {
                    out.add(b);
                }
            }
            return Collections.unmodifiableList(out);
        } finally {
            lock.readLock().unlock();
        }
    }

    private static int firstEndingAfter(List<StreamRecordBatch> list, long offset) {
        int lo = 0;
        int hi = list.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (list.get(mid).lastOffsetExclusive() > offset) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }
}
