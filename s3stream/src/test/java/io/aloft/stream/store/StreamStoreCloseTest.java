package io.aloft.stream.store;

import static io.aloft.stream.store.StreamStoreTest.payload;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.aloft.stream.Stream;
import io.aloft.stream.metadata.MemoryStreamMetadata;
import io.aloft.stream.metadata.StreamInfo;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorageStats;
import io.aloft.stream.storage.ObjectStorages;
import io.aloft.wal.BlockDeviceWal;
import io.aloft.wal.WalConfig;
import io.aloft.wal.WriteAheadLog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing streams, which a broker does to every partition it hands over: each close completes only
 * once everything appended to its stream is committed to object storage, and closes that arrive
 * while an upload is in flight share one object rather than uploading one each (a drain closes a
 * thousand partitions at once).
 */
class StreamStoreCloseTest {
    private static final int STREAMS = 50;

    @TempDir
    Path dir;

    @Test
    void closesDuringAnUpload_shareOneObject_eachCommittedWhenItsCloseCompletes() throws Exception {
        MemoryStreamMetadata metadata = new MemoryStreamMetadata();
        StreamStoreConfig config = StreamStoreConfig.builder(1).uploadThresholdBytes(1 << 20)
                .logCacheSizeBytes(4 << 20).uploadIntervalMs(60_000).build();
        try (ObjectStorage files = ObjectStorages.open(dir.resolve("objects").toUri().toString());
                WriteAheadLog wal = BlockDeviceWal.open(WalConfig.builder().path(dir.resolve("a.wal"))
                        .capacityBytes(16 << 20).build())) {
            StreamStoreBudgetTest.StalledStorage storage = new StreamStoreBudgetTest.StalledStorage(files);
            StreamStore store = StreamStore.open(config, wal, storage, metadata);
            List<Stream> streams = new ArrayList<>();
            List<CompletableFuture<Long>> acked = new ArrayList<>();
            for (int i = 0; i < STREAMS; i++) {
                Stream s = store.openStream(store.createStream().get(), 1).get();
                streams.add(s);
                acked.add(s.append(payload(s.streamId(), 0, 100), 1));
            }
            CompletableFuture<Void> first = store.flush(); // an upload in flight, held by the storage
            List<CompletableFuture<Void>> closes = new ArrayList<>();
            for (Stream s : streams) {
                // As a partition log closes: a last record (its checkpoint), durable, then the close.
                s.append(payload(s.streamId(), 1, 100), 1).get(10, TimeUnit.SECONDS);
                closes.add(s.close());
            }
            for (CompletableFuture<Long> f : acked) {
                f.get(10, TimeUnit.SECONDS);
            }
            assertFalse(closes.stream().anyMatch(CompletableFuture::isDone), "closes wait for the upload in flight");

            storage.release();
            first.get(10, TimeUnit.SECONDS);
            for (CompletableFuture<Void> c : closes) {
                c.get(10, TimeUnit.SECONDS);
            }
            assertEquals(2, files.stats().requests(ObjectStorageStats.Operation.PUT),
                    "the held upload, then one object for every stream closed meanwhile");
            for (Stream s : streams) {
                StreamInfo info = metadata.describeStream(s.streamId()).get();
                assertEquals(StreamInfo.State.CLOSED, info.state(), "stream " + s.streamId());
                assertEquals(2, info.endOffset(), "stream " + s.streamId() + " committed both its records");
            }
            store.close();
        }
    }
}
