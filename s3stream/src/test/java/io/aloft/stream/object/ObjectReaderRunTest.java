package io.aloft.stream.object;

import static io.aloft.stream.object.ObjectTestSupport.await;
import static io.aloft.stream.object.ObjectTestSupport.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorageStats;
import io.aloft.stream.storage.ObjectStorages;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading runs of back-to-back blocks with one ranged GET. */
class ObjectReaderRunTest {
    @TempDir
    Path dir;

    @Test
    void readBlocks_contiguousRun_oneGetSameBlocksAsOneByOne() throws Exception {
        try (ObjectStorage storage = ObjectStorages.open(dir.toUri().toString())) {
            ObjectWriterConfig config = ObjectWriterConfig.builder().blockSize(4096).build();
            ObjectSummary summary = await(ObjectUploader.upload(storage, 7, run(1, 0, 0, 60, 2, 1000), config));
            ObjectReader reader = ObjectReader.open(storage, 7, summary.size());
            List<DataBlockIndex> index = await(reader.find(1, 0, Long.MAX_VALUE, Long.MAX_VALUE));
            assertEquals(20, index.size(), "three 1000-byte batches per 4 KiB block");
            List<DataBlockIndex> middle = index.subList(5, 15);

            long getsBefore = storage.stats().requests(ObjectStorageStats.Operation.GET);
            List<DataBlock> run = await(reader.readBlocks(middle));
            assertEquals(1, storage.stats().requests(ObjectStorageStats.Operation.GET) - getsBefore);

            for (int i = 0; i < middle.size(); i++) {
                DataBlock single = await(reader.readBlock(middle.get(i)));
                assertEquals(single.index(), run.get(i).index());
                ObjectTestSupport.assertBatchesEqual(single.batches(), run.get(i).batches());
            }
        }
    }

    /**
     * Issue 15: blocks read with one GET used to be slices of one array, so a cached block kept the
     * whole GET's bytes alive while the cache weighed only the block.
     */
    @Test
    void readBlocks_eachBlockHoldsOnlyItsOwnBytes() throws Exception {
        try (ObjectStorage storage = ObjectStorages.open(dir.toUri().toString())) {
            ObjectWriterConfig config = ObjectWriterConfig.builder().blockSize(4096).build();
            ObjectSummary summary = await(ObjectUploader.upload(storage, 9, run(1, 0, 0, 60, 2, 1000), config));
            ObjectReader reader = ObjectReader.open(storage, 9, summary.size());
            List<DataBlockIndex> index = await(reader.find(1, 0, Long.MAX_VALUE, Long.MAX_VALUE));

            List<DataBlock> blocks = await(reader.readBlocks(index));

            for (DataBlock block : blocks) {
                assertEquals(block.index().size(), block.size(), "bytes kept reachable by " + block);
            }
        }
    }

    @Test
    void readBlocks_gapBetweenBlocks_isRejected() throws Exception {
        try (ObjectStorage storage = ObjectStorages.open(dir.toUri().toString())) {
            ObjectWriterConfig config = ObjectWriterConfig.builder().blockSize(4096).build();
            ObjectSummary summary = await(ObjectUploader.upload(storage, 8, run(1, 0, 0, 30, 1, 1000), config));
            ObjectReader reader = ObjectReader.open(storage, 8, summary.size());
            List<DataBlockIndex> index = await(reader.find(1, 0, Long.MAX_VALUE, Long.MAX_VALUE));
            assertThrows(IllegalArgumentException.class, () -> reader.readBlocks(List.of(index.get(0), index.get(2))));
            assertThrows(IllegalArgumentException.class, () -> reader.readBlocks(List.of()));
        }
    }
}
