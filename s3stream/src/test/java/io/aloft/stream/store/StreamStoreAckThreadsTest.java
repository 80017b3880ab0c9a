package io.aloft.stream.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.Stream;
import io.aloft.stream.metadata.MemoryStreamMetadata;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorages;
import io.aloft.wal.BlockDeviceWal;
import io.aloft.wal.WalConfig;
import io.aloft.wal.WalRecord;
import io.aloft.wal.WalStats;
import io.aloft.wal.WriteAheadLog;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Appends are acknowledged on the stream's acknowledgement thread, not on the WAL's completion
 * thread: what callers chain on an append (in the broker, the high watermark, produce responses
 * and woken fetches) must not run on the one thread that completes every WAL write. Each stream's
 * appends still complete in offset order, on one thread.
 *
 * <p>The WAL here is a real WAL file whose completions the test holds and then releases, in WAL
 * order, from a thread named like the WAL's own: so callbacks are registered before completion
 * and the thread they run on is known.
 */
class StreamStoreAckThreadsTest {
    private static final String WAL_THREAD = "aloft-wal-callback-1";

    @TempDir
    Path dir;

    private ObjectStorage storage;
    private HeldWal wal;
    private StreamStore store;

    @BeforeEach
    void setUp() throws Exception {
        storage = ObjectStorages.open(dir.resolve("objects").toUri().toString());
        wal = new HeldWal(BlockDeviceWal.open(WalConfig.builder().path(dir.resolve("wal")).capacityBytes(16 << 20)
                .build()));
        store = StreamStore.open(StreamStoreTest.smallConfig().build(), wal, storage, new MemoryStreamMetadata());
    }

    @AfterEach
    void tearDown() throws Exception {
        wal.release();
        store.close();
        wal.close();
        storage.close();
    }

    @Test
    void append_completesOnTheStreamsAckThread_notTheWalThread() throws Exception {
        Stream stream = store.openStream(store.createStream().get(10, TimeUnit.SECONDS), 1).get(10, TimeUnit.SECONDS);
        CompletableFuture<Long> appended = stream.append(ByteBuffer.wrap(new byte[100]), 1);
        CompletableFuture<String> ranOn = appended.thenApply(offset -> Thread.currentThread().getName());

        wal.release();

        String thread = ranOn.get(10, TimeUnit.SECONDS);
        assertTrue(thread.startsWith(AckThreads.THREAD_PREFIX), "the append completed on " + thread);
        assertEquals(1, stream.confirmOffset());
    }

    @Test
    void concurrentAppendsToManyStreams_eachStreamCompletesInOffsetOrderOnOneAckThread() throws Exception {
        int streams = 16;
        int appenders = 4;
        int perAppender = 200;
        List<Stream> opened = new ArrayList<>();
        for (int i = 0; i < streams; i++) {
            opened.add(store.openStream(store.createStream().get(10, TimeUnit.SECONDS), 1).get(10, TimeUnit.SECONDS));
        }
        Map<Long, List<Long>> completedOffsets = new ConcurrentHashMap<>();
        Map<Long, List<String>> completedOn = new ConcurrentHashMap<>();
        List<CompletableFuture<?>> all = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(appenders);
        try {
            List<Future<?>> submitted = new ArrayList<>();
            for (int a = 0; a < appenders; a++) {
                int appender = a;
                submitted.add(pool.submit(() -> {
                    for (int i = 0; i < perAppender; i++) {
                        Stream s = opened.get((appender * 7 + i) % streams);
                        all.add(s.append(ByteBuffer.wrap(new byte[64]), 1 + i % 3).thenAccept(base -> {
                            completedOffsets.computeIfAbsent(s.streamId(),
                                    k -> java.util.Collections.synchronizedList(new ArrayList<>())).add(base);
                            completedOn.computeIfAbsent(s.streamId(),
                                    k -> java.util.Collections.synchronizedList(new ArrayList<>()))
                                    .add(Thread.currentThread().getName());
                        }));
                    }
                }));
            }
            for (Future<?> f : submitted) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdown();
        }

        wal.release();
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

        assertEquals(appenders * perAppender, completedOffsets.values().stream().mapToInt(List::size).sum());
        for (Stream s : opened) {
            List<Long> offsets = completedOffsets.get(s.streamId());
            for (int i = 1; i < offsets.size(); i++) {
                assertTrue(offsets.get(i) > offsets.get(i - 1), "stream " + s.streamId()
                        + " completed out of offset order: " + offsets);
            }
            List<String> threads = completedOn.get(s.streamId()).stream().distinct().toList();
            assertEquals(1, threads.size(), "stream " + s.streamId() + " completed on " + threads);
            assertTrue(threads.get(0).startsWith(AckThreads.THREAD_PREFIX), "stream " + s.streamId()
                    + " completed on " + threads.get(0));
            assertEquals(s.nextOffset(), s.confirmOffset());
        }
    }

    /**
     * A real WAL whose append futures complete only when the test releases them, in the order the
     * WAL completed them, on a thread named as the WAL's completion thread; after the first release
     * they pass straight through.
     */
    private static final class HeldWal implements WriteAheadLog {
        private final WriteAheadLog delegate;
        private final List<Runnable> held = new ArrayList<>();
        private boolean released;

        HeldWal(WriteAheadLog delegate) {
            this.delegate = delegate;
        }

        @Override
        public CompletableFuture<Long> append(ByteBuffer record) {
            CompletableFuture<Long> out = new CompletableFuture<>();
            delegate.append(record).whenComplete((offset, error) -> {
                Runnable completion = () -> {
                    if (error != null) {
                        out.completeExceptionally(error);
                    } else {
                        out.complete(offset);
                    }
                };
                synchronized (this) {
                    if (!released) {
                        held.add(completion);
                        return;
                    }
                }
                completion.run();
            });
            return out;
        }

        /** Runs the held completions on a thread named as the WAL's, in order, and waits for it. */
        void release() throws InterruptedException {
            List<Runnable> now;
            synchronized (this) {
                if (released) {
                    return;
                }
                released = true;
                now = new ArrayList<>(held);
                held.clear();
            }
            Thread t = new Thread(() -> now.forEach(Runnable::run), WAL_THREAD);
            t.start();
            t.join();
        }

        @Override
        public Iterator<WalRecord> recover() {
            return delegate.recover();
        }

        @Override
        public CompletableFuture<Void> trim(long offset) {
            return delegate.trim(offset);
        }

        @Override
        public CompletableFuture<Void> reset() {
            return delegate.reset();
        }

        @Override
        public long nextOffset() {
            return delegate.nextOffset();
        }

        @Override
        public long trimOffset() {
            return delegate.trimOffset();
        }

        @Override
        public long capacity() {
            return delegate.capacity();
        }

        @Override
        public long usedBytes() {
            return delegate.usedBytes();
        }

        @Override
        public WalStats stats() {
            return delegate.stats();
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
