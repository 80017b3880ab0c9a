package io.aloft.stream.store;

import static io.aloft.stream.store.StreamStoreTest.appendAll;
import static io.aloft.stream.store.StreamStoreTest.payload;
import static io.aloft.stream.store.StreamStoreTest.smallConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.Stream;
import io.aloft.stream.StreamException;
import io.aloft.stream.metadata.CommitStreamSetObjectRequest;
import io.aloft.stream.metadata.MemoryStreamMetadata;
import io.aloft.stream.metadata.StreamMetadata;
import io.aloft.stream.metadata.StreamMetadataException;
import io.aloft.stream.storage.ForwardingObjectStorage;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorageException;
import io.aloft.stream.storage.ObjectStorageStats;
import io.aloft.stream.storage.ObjectStorages;
import io.aloft.wal.BlockDeviceWal;
import io.aloft.wal.WalClosedException;
import io.aloft.wal.WalConfig;
import io.aloft.wal.WriteAheadLog;
import io.aloft.wal.device.FaultyFileChannel;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When the store gives up and when it does not: a failed WAL and a commit metadata rejects as
 * inconsistent are final (the listener hears once, appends fail); an object-storage outage is
 * retried and is not. Faults are injected at seams: a {@link FaultyFileChannel} under a real WAL,
 * a forwarding storage over the real file backend, a proxy over the in-memory metadata.
 */
class StreamStoreFailureTest {
    @TempDir
    Path dir;

    private ObjectStorage files;
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final Recorder listener = new Recorder();

    /** The listener under test: every call, and the first as a future. */
    private static final class Recorder implements StreamStoreFailureListener {
        final List<Throwable> calls = new CopyOnWriteArrayList<>();
        final CompletableFuture<Throwable> first = new CompletableFuture<>();

        @Override
        public void storeFailed(Throwable cause) {
            calls.add(cause);
            first.complete(cause);
        }
    }

    @BeforeEach
    void setUp() {
        files = ObjectStorages.open(dir.resolve("objects").toUri().toString());
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        files.close();
    }

    private WriteAheadLog openWal(BooleanSupplier broken) throws IOException {
        WriteAheadLog wal = BlockDeviceWal.builder(WalConfig.builder().path(dir.resolve("store.wal"))
                .capacityBytes(16 << 20).build()).channelOpener(FaultyFileChannel.opener(broken)).open();
        toClose.add(wal);
        return wal;
    }

    private StreamStore openStore(WriteAheadLog wal, ObjectStorage storage, StreamMetadata metadata) {
        StreamStore store = StreamStore.builder(smallConfig().build(), wal, storage, metadata)
                .failureListener(listener).open();
        toClose.add(store);
        return store;
    }

    @Test
    void walWriteFails_storeGivesUpOnce_andEveryLaterAppendFails() throws Exception {
        AtomicBoolean broken = new AtomicBoolean();
        StreamStore store = openStore(openWal(broken::get), files, new MemoryStreamMetadata());
        Stream stream = store.openStream(store.createStream().get(), 1).get();
        appendAll(stream, 10, 1, 100);

        broken.set(true);
        ExecutionException failed = assertThrows(ExecutionException.class,
                () -> stream.append(payload(stream.streamId(), 10, 100), 1).get(5, TimeUnit.SECONDS));
        assertInstanceOf(StreamException.class, failed.getCause());
        Throwable told = listener.first.get(5, TimeUnit.SECONDS);
        assertTrue(hasCause(told, WalClosedException.class), "the WAL's failure is the cause: " + told);

        broken.set(false); // the device coming back changes nothing: the store does not trust it again
        ExecutionException later = assertThrows(ExecutionException.class,
                () -> stream.append(payload(stream.streamId(), 11, 100), 1).get(5, TimeUnit.SECONDS));
        assertInstanceOf(StreamException.class, later.getCause());
        assertThrows(StreamException.class, () -> store.openStream(stream.streamId(), 2));
        assertEquals(1, listener.calls.size(), "told once: " + listener.calls);
    }

    @Test
    void commitRejectedAsInconsistent_storeGivesUp() throws Exception {
        MemoryStreamMetadata real = new MemoryStreamMetadata();
        StreamMetadata rejecting = rejectingCommits(real, StreamMetadataException.Code.OFFSET_MISMATCH);
        StreamStore store = openStore(openWal(() -> false), files, rejecting);
        Stream stream = store.openStream(store.createStream().get(), 1).get();
        appendAll(stream, 10, 1, 100);

        CompletableFuture<Void> flush = store.flush();
        Throwable told = listener.first.get(10, TimeUnit.SECONDS);
        assertTrue(told.getMessage().contains("retrying cannot fix it"), told.toString());
        StreamMetadataException rejected = (StreamMetadataException) told.getCause();
        assertEquals(StreamMetadataException.Code.OFFSET_MISMATCH, rejected.code());
        assertThrows(ExecutionException.class, () -> flush.get(5, TimeUnit.SECONDS));
        ExecutionException later = assertThrows(ExecutionException.class,
                () -> stream.append(payload(stream.streamId(), 10, 100), 1).get(5, TimeUnit.SECONDS));
        assertInstanceOf(StreamException.class, later.getCause());
        assertEquals(0, real.describeStream(stream.streamId()).get().endOffset(), "nothing was committed");
        assertEquals(1, listener.calls.size(), "told once: " + listener.calls);
    }

    @Test
    void uploadBreaksAnInvariant_storeGivesUp() throws Exception {
        ObjectStorage buggy = new ForwardingObjectStorage(files) {
            @Override
            public CompletableFuture<Void> put(String key, ByteBuffer data) {
                return CompletableFuture.failedFuture(new IllegalArgumentException("injected invariant break"));
            }
        };
        StreamStore store = openStore(openWal(() -> false), buggy, new MemoryStreamMetadata());
        Stream stream = store.openStream(store.createStream().get(), 1).get();
        appendAll(stream, 5, 1, 100);
        store.flush();
        Throwable told = listener.first.get(10, TimeUnit.SECONDS);
        assertTrue(told.getMessage().startsWith("uploading log cache block"), told.toString());
        assertEquals("injected invariant break", told.getCause().getMessage());
    }

    @Test
    void objectStorageOutage_isRetried_andIsNotAFailure() throws Exception {
        AtomicBoolean down = new AtomicBoolean(true);
        CountDownLatch refused = new CountDownLatch(2); // the first attempt and at least one retry
        ObjectStorage flaky = new ForwardingObjectStorage(files) {
            @Override
            public CompletableFuture<Void> put(String key, ByteBuffer data) {
                if (down.get()) {
                    refused.countDown();
                    return CompletableFuture.failedFuture(new ObjectStorageException(ObjectStorageStats.Operation.PUT,
                            key, "injected outage (503 Slow Down)", null));
                }
                return super.put(key, data);
            }
        };
        MemoryStreamMetadata metadata = new MemoryStreamMetadata();
        StreamStore store = openStore(openWal(() -> false), flaky, metadata);
        Stream stream = store.openStream(store.createStream().get(), 1).get();
        appendAll(stream, 5, 1, 100);
        CompletableFuture<Void> flush = store.flush();

        assertTrue(refused.await(10, TimeUnit.SECONDS), "the upload is retried during the outage");
        assertFalse(flush.isDone(), "nothing is committed while storage is down");
        appendAll(stream, 5, 1, 100); // appends are still acknowledged from the WAL

        down.set(false);
        flush.get(10, TimeUnit.SECONDS);
        store.flush().get(10, TimeUnit.SECONDS);
        assertEquals(10, metadata.describeStream(stream.streamId()).get().endOffset());
        assertTrue(listener.calls.isEmpty(), "an outage is not a failure: " + listener.calls);
    }

    @Test
    void abort_failsAppends_uploadsNothing_andLeavesDataInTheWal() throws Exception {
        MemoryStreamMetadata metadata = new MemoryStreamMetadata();
        StreamStore store = openStore(openWal(() -> false), files, metadata);
        Stream stream = store.openStream(store.createStream().get(), 1).get();
        appendAll(stream, 10, 1, 100);

        store.abort();
        ExecutionException later = assertThrows(ExecutionException.class,
                () -> stream.append(payload(stream.streamId(), 10, 100), 1).get(5, TimeUnit.SECONDS));
        assertInstanceOf(StreamException.class, later.getCause());
        store.close(); // does nothing more: no upload
        assertEquals(0, metadata.describeStream(stream.streamId()).get().endOffset(), "nothing was uploaded");
        assertTrue(listener.calls.isEmpty(), "an abort is not reported: " + listener.calls);

        // The next store on the same WAL recovers the acknowledged appends from it.
        toClose.remove(store);
        WriteAheadLog wal = toClose.stream().filter(WriteAheadLog.class::isInstance).map(WriteAheadLog.class::cast)
                .findFirst().orElseThrow();
        wal.close();
        toClose.remove(wal);
        StreamStore next = StreamStore.open(smallConfig().build(), openWal(() -> false), files, metadata);
        toClose.add(next);
        assertEquals(10, metadata.describeStream(stream.streamId()).get().endOffset(), "recovered from the WAL");
    }

    @Test
    void builder_optionSetTwiceOrNull_failsAtOnce() throws Exception {
        StreamStoreBuilder b = StreamStore.builder(smallConfig().build(), openWal(() -> false), files,
                new MemoryStreamMetadata()).failureListener(listener);
        IllegalStateException twice = assertThrows(IllegalStateException.class, () -> b.failureListener(listener));
        assertTrue(twice.getMessage().startsWith("failureListener"), twice.getMessage());
        NullPointerException none = assertThrows(NullPointerException.class, () -> b.clock(null));
        assertNotNull(none.getMessage());
    }

    /** Metadata that rejects every stream-set commit with {@code code}, and passes everything else on. */
    private static StreamMetadata rejectingCommits(StreamMetadata real, StreamMetadataException.Code code) {
        return (StreamMetadata) Proxy.newProxyInstance(StreamMetadata.class.getClassLoader(),
                new Class<?>[] {StreamMetadata.class}, (proxy, method, args) -> {
                    if (method.getName().equals("commitStreamSetObject")) {
                        CommitStreamSetObjectRequest r = (CommitStreamSetObjectRequest) args[0];
                        return CompletableFuture.failedFuture(new StreamMetadataException(code,
                                "injected rejection of object " + r.objectId()));
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static boolean hasCause(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }
}
