package io.aloft.stream.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The thread-safe facade: futures, rejections, snapshots, and many threads at once. */
class MemoryStreamMetadataTest {

    private static final long TTL_MS = 60_000;

    private final MemoryStreamMetadata metadata = new MemoryStreamMetadata();

    private static <T> T join(CompletableFuture<T> future) {
        return future.join();
    }

    private static StreamMetadataException.Code rejection(CompletableFuture<?> future) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(1, TimeUnit.SECONDS));
        return assertInstanceOf(StreamMetadataException.class, e.getCause()).code();
    }

    @Test
    void commands_valid_futuresCompleteWithResults() {
        long id = join(metadata.createStream(new CreateStreamRequest(1)));
        StreamInfo info = join(metadata.openStream(new OpenStreamRequest(id, 1, 1)));
        long object = join(metadata.prepareObjects(new PrepareObjectsRequest(1, 1, TTL_MS, 0)));
        join(metadata.commitStreamSetObject(new CommitStreamSetObjectRequest(1, object, 10,
                List.of(new StreamRange(id, 1, 0, 5)), List.of(), List.of(), 0)));

        assertEquals(StreamInfo.State.OPEN, info.state());
        assertEquals(5, join(metadata.describeStream(id)).endOffset());
        assertEquals(List.of(object), join(metadata.getObjects(id, 0, -1, 10)).stream().map(ObjectRef::objectId)
                .toList());
        assertEquals(List.of(object), join(metadata.getStreamSetObjects(1)).stream().map(S3Object::objectId)
                .toList());
        assertEquals(List.of(), join(metadata.getStreamObjects(id, 0, -1, 10)));
    }

    @Test
    void commands_rejected_futureFailsWithCode() {
        long id = join(metadata.createStream(new CreateStreamRequest(1)));
        join(metadata.openStream(new OpenStreamRequest(id, 1, 1)));

        assertEquals(StreamMetadataException.Code.FENCED,
                rejection(metadata.openStream(new OpenStreamRequest(id, 1, 2))));
        assertEquals(StreamMetadataException.Code.STREAM_NOT_FOUND, rejection(metadata.describeStream(99)));
        assertEquals(StreamMetadataException.Code.OBJECT_NOT_FOUND,
                rejection(metadata.objectsDeleted(List.of(3L))));
    }

    @Test
    void snapshot_newInstance_sameState() {
        long id = join(metadata.createStream(new CreateStreamRequest(1)));
        join(metadata.openStream(new OpenStreamRequest(id, 4, 2)));

        MemoryStreamMetadata restored = new MemoryStreamMetadata(metadata.snapshot());

        assertEquals(metadata.dump(), restored.dump());
    }

    /**
     * Writers each own a stream and commit uploads (some with split-out stream objects) and trims,
     * while a reader looks objects up and a cleaner drains the deletion queue.
     */
    @Test
    void commitStreamSetObject_concurrentWritersOnOwnStreams_finalStateConsistent() throws Exception {
        int writers = 6;
        int uploads = 300;
        ExecutorService pool = Executors.newFixedThreadPool(writers + 2);
        try {
            CountDownLatch start = new CountDownLatch(1);
            AtomicBoolean done = new AtomicBoolean();
            List<Future<Long>> streams = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int node = w + 1;
                streams.add(pool.submit(() -> write(node, uploads, start)));
            }
            Future<?> reader = pool.submit(() -> {
                start.await();
                while (!done.get()) {
                    for (long id = 0; id < writers; id++) {
                        metadata.getObjects(id, 0, -1, 100).exceptionally(e -> List.of()).join();
                    }
                }
                return null;
            });
            Future<?> cleaner = pool.submit(() -> {
                start.await();
                while (!done.get()) {
                    // Time 0: the writers' clocks (their loop counters) decide when prepared ids expire.
                    List<S3Object> due = join(metadata.getObjectsToDelete(0, 0));
                    join(metadata.objectsDeleted(due.stream().map(S3Object::objectId).toList()));
                }
                return null;
            });
            start.countDown();
            List<Long> ids = new ArrayList<>();
            for (Future<Long> f : streams) {
                ids.add(f.get(30, TimeUnit.SECONDS));
            }
            done.set(true);
            reader.get(30, TimeUnit.SECONDS);
            cleaner.get(30, TimeUnit.SECONDS);

            metadata.checkConsistency();
            for (long id : ids) {
                StreamInfo s = join(metadata.describeStream(id));
                assertEquals(uploads * 15L, s.endOffset());
                assertEquals(uploads * 15L - 100, s.startOffset());
                List<ObjectRef> refs = join(metadata.getObjects(id, 0, -1, Integer.MAX_VALUE));
                assertEquals(s.endOffset(), refs.get(refs.size() - 1).range().endOffset());
                for (int i = 1; i < refs.size(); i++) {
                    assertEquals(refs.get(i - 1).range().endOffset(), refs.get(i).range().startOffset());
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** One writer: its own stream, uploads of 10 offsets plus a split-out 5 every time, trims as it goes. */
    private long write(int node, int uploads, CountDownLatch start) throws InterruptedException {
        start.await();
        long id = join(metadata.createStream(new CreateStreamRequest(node)));
        join(metadata.openStream(new OpenStreamRequest(id, 1, node)));
        long end = 0;
        for (int i = 0; i < uploads; i++) {
            long first = join(metadata.prepareObjects(new PrepareObjectsRequest(node, 2, TTL_MS, i)));
            join(metadata.commitStreamSetObject(new CommitStreamSetObjectRequest(node, first, 100,
                    List.of(new StreamRange(id, 1, end, end + 10)),
                    List.of(new StreamObjectSpec(first + 1, 50, new StreamRange(id, 1, end + 10, end + 15))),
                    List.of(), i)));
            end += 15;
            if (end > 100) {
                join(metadata.trimStream(new TrimStreamRequest(id, 1, end - 100)));
            }
        }
        return id;
    }
}
