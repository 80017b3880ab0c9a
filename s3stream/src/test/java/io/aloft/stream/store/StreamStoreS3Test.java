package io.aloft.stream.store;

import static io.aloft.stream.store.StreamStoreTest.appendAll;
import static io.aloft.stream.store.StreamStoreTest.readAll;
import static io.aloft.stream.store.StreamStoreTest.smallConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.Stream;
import io.aloft.stream.metadata.MemoryStreamMetadata;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorageStats;
import io.aloft.stream.storage.ObjectStorages;
import io.aloft.stream.storage.S3ServerExtension;
import io.aloft.wal.BlockDeviceWal;
import io.aloft.wal.WalConfig;
import io.aloft.wal.WriteAheadLog;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The stream store against a real S3-protocol server (versitygw by default). */
class StreamStoreS3Test {
    @RegisterExtension
    static final S3ServerExtension S3 = new S3ServerExtension();

    @TempDir
    Path dir;

    @Test
    void uploadThenColdRead_overS3_returnsEveryBatch() throws Exception {
        MemoryStreamMetadata metadata = new MemoryStreamMetadata();
        try (ObjectStorage storage = ObjectStorages.open(S3.newBucketUrl())) {
            long id;
            try (WriteAheadLog wal = BlockDeviceWal.open(WalConfig.builder().path(dir.resolve("a.wal"))
                    .capacityBytes(16 << 20).build());
                    StreamStore store = StreamStore.open(smallConfig().build(), wal, storage, metadata)) {
                id = store.createStream().get();
                Stream stream = store.openStream(id, 1).get();
                appendAll(stream, 400, 2, 1500); // crosses the upload threshold: several objects
            }
            long puts = storage.stats().requests(ObjectStorageStats.Operation.PUT);
            assertTrue(puts >= 2, "objects uploaded: " + puts);

            try (WriteAheadLog wal = BlockDeviceWal.open(WalConfig.builder().path(dir.resolve("b.wal"))
                    .capacityBytes(16 << 20).build());
                    StreamStore store = StreamStore.open(smallConfig().build(), wal, storage, metadata)) {
                Stream stream = store.openStream(id, 2).get();
                assertEquals(800, stream.confirmOffset());
                assertFalse(stream.fetch(0, 800, 4096).get().cacheHit());
                assertEquals(400, readAll(stream, 0, 1500).size());
            }
            assertTrue(storage.stats().requests(ObjectStorageStats.Operation.GET) > 0);
        }
    }
}
