package io.aloft.stream.object;

import static io.aloft.stream.object.ObjectTestSupport.batch;
import static io.aloft.stream.object.ObjectTestSupport.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.metadata.StreamRange;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Order checks, block cutting and the exact byte layout; reading back is in ObjectReaderTest. */
class ObjectWriterTest {

    private final ObjectWriterConfig config = ObjectWriterConfig.builder().blockSize(4096).build();

    @Test
    void write_gapInStream_throwsIllegalArgument() {
        ObjectWriter writer = ObjectWriter.create(1, config);
        writer.write(batch(7, 0, 0, 10, 5));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> writer.write(batch(7, 0, 11, 1, 5)));
        assertTrue(e.getMessage().contains("gap"), e.getMessage());
    }

    @Test
    void write_overlapInStream_throwsIllegalArgument() {
        ObjectWriter writer = ObjectWriter.create(1, config);
        writer.write(batch(7, 0, 0, 10, 5));
        assertThrows(IllegalArgumentException.class, () -> writer.write(batch(7, 0, 9, 1, 5)));
        assertThrows(IllegalArgumentException.class, () -> writer.write(batch(7, 0, 0, 10, 5)));
    }

    @Test
    void write_lowerStreamAfterHigher_throwsIllegalArgument() {
        ObjectWriter writer = ObjectWriter.create(1, config);
        writer.write(batch(7, 0, 0, 1, 5));
        writer.write(batch(8, 0, 0, 1, 5));
        assertThrows(IllegalArgumentException.class, () -> writer.write(batch(7, 0, 1, 1, 5)));
    }

    @Test
    void write_lowerEpochInStream_throwsIllegalArgument() {
        ObjectWriter writer = ObjectWriter.create(1, config);
        writer.write(batch(7, 3, 0, 1, 5));
        assertThrows(IllegalArgumentException.class, () -> writer.write(batch(7, 2, 1, 1, 5)));
    }

    @Test
    void write_afterRejectedBatch_objectStaysValid() {
        ObjectWriter writer = ObjectWriter.create(1, config);
        writer.write(batch(7, 0, 0, 1, 5));
        assertThrows(IllegalArgumentException.class, () -> writer.write(batch(7, 0, 5, 1, 5)));
        writer.write(batch(7, 0, 1, 1, 5));

        assertEquals(List.of(new StreamRange(7, 0, 0, 2)), writer.finish().summary().ranges());
    }

    @Test
    void write_afterFinish_throwsIllegalState() {
        ObjectWriter writer = ObjectWriter.create(1, config);
        writer.finish();
        assertThrows(IllegalStateException.class, () -> writer.write(batch(7, 0, 0, 1, 5)));
        assertThrows(IllegalStateException.class, writer::finish);
    }

    @Test
    void create_negativeObjectId_throwsIllegalArgument() {
        assertThrows(IllegalArgumentException.class, () -> ObjectWriter.create(-1, config));
    }

    @Test
    void finish_manyStreams_oneRangePerStreamWithLastEpoch() {
        ObjectWriter writer = ObjectWriter.create(9, config);
        run(3, 1, 100, 5, 2, 10).forEach(writer::write);
        writer.write(batch(3, 2, 110, 4, 10)); // epoch moves up mid-stream
        run(4, 5, 0, 1, 1, 0).forEach(writer::write);
        run(10, 0, 7, 3, 1, 100).forEach(writer::write);

        ObjectSummary summary = writer.finish().summary();

        assertEquals(9, summary.objectId());
        assertEquals(List.of(new StreamRange(3, 2, 100, 114), new StreamRange(4, 5, 0, 1),
                new StreamRange(10, 0, 7, 10)), summary.ranges());
    }

    @Test
    void finish_sizeMatchesBytesAndSizeGrowsWithWrites() {
        ObjectWriter writer = ObjectWriter.create(1, config);
        assertEquals(0, writer.size());
        writer.write(batch(1, 0, 0, 1, 100));
        long afterOne = writer.size();
        assertEquals(ObjectFormat.BLOCK_HEADER_SIZE + ObjectFormat.BATCH_HEADER_SIZE + 100, afterOne);

        EncodedObject object = writer.finish();

        assertEquals(object.data().remaining(), object.summary().size());
        assertEquals(afterOne + ObjectFormat.INDEX_HEADER_SIZE + ObjectFormat.ENTRY_SIZE + ObjectFormat.FOOTER_SIZE,
                object.summary().size());
    }

    @Test
    void finish_oneBatch_bytesFollowTheDocumentedLayout() {
        ObjectWriter writer = ObjectWriter.create(1, config);
        writer.write(new StreamRecordBatch(0x1122L, 9, 40, 3, ByteBuffer.wrap(new byte[] {1, 2, 3})));
        ByteBuffer b = writer.finish().data();

        int blockSize = ObjectFormat.BLOCK_HEADER_SIZE + ObjectFormat.BATCH_HEADER_SIZE + 3;
        assertEquals(0x414C4442, b.getInt(ObjectFormat.BLOCK_MAGIC_OFFSET));
        assertEquals(1, b.get(ObjectFormat.BLOCK_VERSION_OFFSET));
        assertEquals(ObjectFormat.crc32c(b, 9, blockSize - 9), b.getInt(ObjectFormat.BLOCK_CRC_OFFSET));
        assertEquals(0x1122L, b.getLong(ObjectFormat.BLOCK_STREAM_ID_OFFSET));
        assertEquals(40, b.getLong(ObjectFormat.BLOCK_START_OFFSET_OFFSET));
        assertEquals(43, b.getLong(ObjectFormat.BLOCK_END_OFFSET_OFFSET));
        assertEquals(1, b.getInt(ObjectFormat.BLOCK_BATCH_COUNT_OFFSET));
        assertEquals(ObjectFormat.BATCH_HEADER_SIZE + 3, b.getInt(ObjectFormat.BLOCK_BODY_LENGTH_OFFSET));
        int batchAt = ObjectFormat.BLOCK_HEADER_SIZE;
        assertEquals(40, b.getLong(batchAt + ObjectFormat.BATCH_BASE_OFFSET_OFFSET));
        assertEquals(3, b.getInt(batchAt + ObjectFormat.BATCH_COUNT_OFFSET));
        assertEquals(9, b.getLong(batchAt + ObjectFormat.BATCH_EPOCH_OFFSET));
        assertEquals(3, b.getInt(batchAt + ObjectFormat.BATCH_PAYLOAD_LENGTH_OFFSET));
        assertEquals(3, b.get(batchAt + ObjectFormat.BATCH_HEADER_SIZE + 2));

        int indexAt = blockSize;
        assertEquals(0x414C4958, b.getInt(indexAt + ObjectFormat.INDEX_MAGIC_OFFSET));
        assertEquals(1, b.getInt(indexAt + ObjectFormat.INDEX_ENTRY_COUNT_OFFSET));
        int entryAt = indexAt + ObjectFormat.INDEX_HEADER_SIZE;
        assertEquals(new DataBlockIndex(0x1122L, 40, 43, 9, 0, blockSize, 1), ObjectFormat.getEntry(b, entryAt));

        int footerAt = b.limit() - ObjectFormat.FOOTER_SIZE;
        assertEquals(indexAt, b.getLong(footerAt + ObjectFormat.FOOTER_INDEX_POSITION_OFFSET));
        assertEquals(ObjectFormat.INDEX_HEADER_SIZE + ObjectFormat.ENTRY_SIZE,
                b.getInt(footerAt + ObjectFormat.FOOTER_INDEX_LENGTH_OFFSET));
        assertEquals(1, b.getInt(footerAt + ObjectFormat.FOOTER_VERSION_OFFSET));
        byte[] magic = new byte[8];
        b.get(footerAt + ObjectFormat.FOOTER_MAGIC_OFFSET, magic);
        assertEquals("ALOFTOBJ", new String(magic, java.nio.charset.StandardCharsets.US_ASCII));
    }

    @Test
    void write_doesNotMoveTheCallersPayloadPosition() {
        ByteBuffer payload = ByteBuffer.wrap(new byte[] {1, 2, 3, 4});
        StreamRecordBatch b = new StreamRecordBatch(1, 0, 0, 1, payload);
        ObjectWriter writer = ObjectWriter.create(1, config);
        writer.write(b);
        assertEquals(0, b.payload().position());
        assertEquals(0, payload.position());
    }

    @Test
    void configBuilder_badValues_throwIllegalArgumentNamingTheValue() {
        IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
                () -> ObjectWriterConfig.builder().blockSize(10));
        assertTrue(small.getMessage().contains("10"), small.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ObjectWriterConfig.builder().partSize(1024 * 1024));
        assertThrows(IllegalArgumentException.class,
                () -> ObjectWriterConfig.builder().multipartThreshold(1024));
        IllegalArgumentException clash = assertThrows(IllegalArgumentException.class,
                () -> ObjectWriterConfig.builder().partSize(10 << 20).multipartThreshold(6 << 20).build());
        assertTrue(clash.getMessage().contains("partSize"), clash.getMessage());
    }

    @Test
    void configDefaults_matchTheDesign() {
        ObjectWriterConfig defaults = ObjectWriterConfig.defaults();
        assertEquals(512 * 1024, defaults.blockSize());
        assertEquals(16L << 20, defaults.multipartThreshold());
        assertEquals(8 << 20, defaults.partSize());
    }
}
