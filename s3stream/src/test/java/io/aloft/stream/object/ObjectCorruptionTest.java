package io.aloft.stream.object;

import static io.aloft.stream.object.ObjectTestSupport.await;
import static io.aloft.stream.object.ObjectTestSupport.bytes;
import static io.aloft.stream.object.ObjectTestSupport.corruption;
import static io.aloft.stream.object.ObjectTestSupport.failure;
import static io.aloft.stream.object.ObjectTestSupport.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.storage.MemoryObjectStorage;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorageStats.Operation;
import io.aloft.stream.storage.ObjectStorages;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Damaged objects fail with ObjectCorruptedException, never with an unchecked index error or bad data. */
class ObjectCorruptionTest {

    private static final long ID = 77;
    private static final ObjectWriterConfig CONFIG = ObjectWriterConfig.builder().blockSize(4096).build();

    @TempDir
    Path dir;

    private ObjectStorage storage;
    private byte[] object;
    private List<DataBlockIndex> index;

    @BeforeEach
    void writeObject() throws Exception {
        storage = ObjectStorages.open(dir.toUri().toString());
        List<StreamRecordBatch> batches = new ArrayList<>(run(1, 0, 0, 20, 2, 1000));
        batches.addAll(run(2, 0, 0, 3, 1, 50));
        object = encode(batches);
        index = await(reader(object).index());
    }

    @AfterEach
    void close() {
        storage.close();
    }

    private static byte[] encode(List<StreamRecordBatch> batches) {
        ObjectWriter writer = ObjectWriter.create(ID, CONFIG);
        batches.forEach(writer::write);
        return bytes(writer.finish().data());
    }

    /** Stores {@code bytes} as the object and opens a reader claiming {@code object.length} bytes. */
    private ObjectReader reader(byte[] bytes) throws Exception {
        await(storage.put(ObjectKeys.key(ID), ByteBuffer.wrap(bytes)));
        return ObjectReader.open(storage, ID, object == null ? bytes.length : object.length);
    }

    private byte[] flipped(long at) {
        byte[] copy = object.clone();
        copy[(int) at] ^= 0x40;
        return copy;
    }

    @Test
    void readBlock_flippedByteInBlockBody_failsNamingObjectAndBlock() throws Exception {
        DataBlockIndex second = index.get(1);
        ObjectReader reader = reader(flipped(second.position() + second.size() - 10));

        ObjectCorruptedException e = corruption(reader.readBlock(second));

        assertEquals(ID, e.objectId());
        assertEquals(second.position(), e.blockPosition());
        assertTrue(e.getMessage().contains("CRC32C") && e.getMessage().contains("object 77"), e.getMessage());
        await(reader.readBlock(index.get(0))); // the others still read
    }

    @Test
    void readBlock_flippedByteInBlockHeader_fails() throws Exception {
        DataBlockIndex first = index.get(0);
        for (int at : new int[] {ObjectFormat.BLOCK_MAGIC_OFFSET, ObjectFormat.BLOCK_VERSION_OFFSET,
                ObjectFormat.BLOCK_CRC_OFFSET, ObjectFormat.BLOCK_END_OFFSET_OFFSET + 7}) {
            ObjectReader reader = reader(flipped(first.position() + at));
            assertEquals(first.position(), corruption(reader.readBlock(first)).blockPosition(), "offset " + at);
        }
    }

    @Test
    void readBlock_entryNotMatchingTheBlock_fails() throws Exception {
        ObjectReader reader = reader(object);
        DataBlockIndex first = index.get(0);
        DataBlockIndex wrongStream = new DataBlockIndex(9, first.startOffset(), first.endOffset(), first.epoch(),
                first.position(), first.size(), first.batchCount());
        DataBlockIndex wrongSize = new DataBlockIndex(first.streamId(), first.startOffset(), first.endOffset(),
                first.epoch(), first.position(), first.size() - 1, first.batchCount());

        assertTrue(corruption(reader.readBlock(wrongStream)).getMessage().contains("does not match"));
        corruption(reader.readBlock(wrongSize));
    }

    @Test
    void index_flippedByteInIndex_failsAndStaysFailedWithoutRetrying() throws Exception {
        long indexAt = index.get(index.size() - 1).position() + index.get(index.size() - 1).size();
        ObjectReader reader = reader(flipped(indexAt + ObjectFormat.INDEX_HEADER_SIZE + 20));

        ObjectCorruptedException e = corruption(reader.index());

        assertEquals(ObjectCorruptedException.NO_BLOCK, e.blockPosition());
        assertTrue(e.getMessage().contains("index CRC32C"), e.getMessage());
        long gets = storage.stats().requests(Operation.GET);
        corruption(reader.find(1, 0, 10, 10));
        assertEquals(gets, storage.stats().requests(Operation.GET));
    }

    @Test
    void index_damagedFooter_failsWithClearMessage() throws Exception {
        int footer = object.length - ObjectFormat.FOOTER_SIZE;
        assertMessage(flipped(footer + ObjectFormat.FOOTER_MAGIC_OFFSET + 3), "footer magic");
        assertMessage(flipped(footer + ObjectFormat.FOOTER_VERSION_OFFSET + 3), "format version");
        assertMessage(flipped(footer + ObjectFormat.FOOTER_INDEX_LENGTH_OFFSET), "footer puts the index");
        assertMessage(flipped(footer + ObjectFormat.FOOTER_INDEX_POSITION_OFFSET + 7), "footer puts the index");
        byte[] huge = object.clone();
        ByteBuffer.wrap(huge).putInt(footer + ObjectFormat.FOOTER_INDEX_LENGTH_OFFSET, Integer.MAX_VALUE)
                .putLong(footer + ObjectFormat.FOOTER_INDEX_POSITION_OFFSET, Long.MIN_VALUE);
        assertMessage(huge, "footer puts the index");
    }

    private void assertMessage(byte[] bytes, String expected) throws Exception {
        String message = corruption(reader(bytes).index()).getMessage();
        assertTrue(message.contains(expected), message);
    }

    @Test
    void index_truncatedObject_failsAsShorterThanItsSize() throws Exception {
        byte[] truncated = java.util.Arrays.copyOf(object, object.length - 10);

        assertMessage(truncated, "shorter than its size");
    }

    @Test
    void readBlock_truncatedObject_failsForTheCutBlock() throws Exception {
        DataBlockIndex last = index.get(index.size() - 1);
        byte[] truncated = java.util.Arrays.copyOf(object, (int) last.position() + 5);
        ObjectReader reader = reader(truncated);

        assertTrue(corruption(reader.readBlock(last)).getMessage().contains("truncated"));
        await(reader.readBlock(index.get(0)));
    }

    @Test
    void index_sizeWrongOrTooSmall_fails() throws Exception {
        await(storage.put(ObjectKeys.key(ID), ByteBuffer.wrap(object)));

        corruption(ObjectReader.open(storage, ID, object.length + 100).index());
        corruption(ObjectReader.open(storage, ID, object.length - 1).index());
        assertTrue(corruption(ObjectReader.open(storage, ID, 10).index()).getMessage().contains("smaller"));
        corruption(ObjectReader.open(storage, ID, 0).index());
    }

    @Test
    void index_indexEntriesInconsistent_fail() throws Exception {
        // Rewrite the index with a bad entry and a correct CRC: the checks beyond the CRC catch it.
        long indexAt = index.get(index.size() - 1).position() + index.get(index.size() - 1).size();
        byte[] bad = object.clone();
        ByteBuffer b = ByteBuffer.wrap(bad);
        int entry = (int) indexAt + ObjectFormat.INDEX_HEADER_SIZE + ObjectFormat.ENTRY_SIZE;
        b.putInt(entry + ObjectFormat.ENTRY_SIZE_OFFSET, Integer.MAX_VALUE);
        int indexLength = ObjectFormat.INDEX_HEADER_SIZE + index.size() * ObjectFormat.ENTRY_SIZE;
        b.putInt((int) indexAt + ObjectFormat.INDEX_CRC_OFFSET, ObjectFormat.crc32c(b,
                (int) indexAt + ObjectFormat.INDEX_CRC_START, indexLength - ObjectFormat.INDEX_CRC_START));

        assertTrue(corruption(reader(bad).index()).getMessage().contains("index entry 2"));
    }

    @Test
    void anySingleFlippedByte_isDetectedByIndexOrBlockRead() throws Exception {
        // Every byte of the format is covered by a CRC or a consistency check: no flip goes unseen.
        List<StreamRecordBatch> batches = new ArrayList<>(run(1, 3, 10, 4, 2, 20));
        batches.addAll(run(5, 0, 0, 2, 1, 0));
        ObjectWriter writer = ObjectWriter.create(ID, ObjectWriterConfig.builder().blockSize(1024).build());
        batches.forEach(writer::write);
        byte[] small = bytes(writer.finish().data());
        try (MemoryObjectStorage memory = new MemoryObjectStorage()) {
            for (int at = 0; at < small.length; at++) {
                byte[] copy = small.clone();
                copy[at] ^= 1;
                await(memory.put(ObjectKeys.key(ID), ByteBuffer.wrap(copy)));
                assertInstanceOf(ObjectCorruptedException.class, readEverything(memory, small.length),
                        "flip at byte " + at + " of " + small.length);
            }
        }
    }

    /** The failure of reading the index and then every block, or null if everything read. */
    private static Throwable readEverything(ObjectStorage storage, long size) throws Exception {
        ObjectReader reader = ObjectReader.open(storage, ID, size);
        try {
            for (DataBlockIndex entry : await(reader.index())) {
                await(reader.readBlock(entry));
            }
            return null;
        } catch (ObjectCorruptedException e) {
            return e;
        }
    }

    @Test
    void failure_unreadableButPresentObject_isNotReportedAsCorruption() throws Exception {
        ObjectReader reader = ObjectReader.open(storage, ID + 1, object.length);

        assertInstanceOf(io.aloft.stream.storage.ObjectNotFoundException.class, failure(reader.index()));
    }
}
