package io.aloft.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/**
 * The persisted checkpoint format, byte for byte: version 3 as written now (with the cleaner
 * section), version 2 (with the leader-epoch section, read as never cleaned) and version 1 as the
 * first brokers wrote it (read without epochs). A change to the layout must change these fixtures,
 * and keep reading the old ones.
 */
class CheckpointTest {
    /** {@link #V2}'s state, cleaned up to 2 with no compaction pending, as version 3 writes it. */
    static final String V3 = "414c4350" + "03" + "01" + "0ac5c0cc" + "0000000000000003"
            + "0000000000000005" + "00000001" + "0000000000000000" + "00000000000003e8" + "00000046"
            + "00000001" + "0000000000000007" + "0002" + "00000000000003e8" + "01"
            + "00000000" + "00000004" + "0000000000000000" + "0000000000000004" + "00000000000003e8"
            + "ffffffffffffffff"
            + "00000002" + "00000001" + "0000000000000000" + "00000004" + "0000000000000005"
            + "0000000000000002" + "ffffffffffffffff";

    /**
     * A full version-2 checkpoint of: log start 3, one index entry (base 0, max timestamp 1000, 70
     * bytes) ending at 5, producer 7 epoch 2 with one batch (sequences 0-4, offsets 0-4, max timestamp
     * 1000, no log append time), and leader epochs 1 from 0 and 4 from 5.
     */
    static final String V2 = "414c4350" + "02" + "01" + "c9682679" + "0000000000000003"
            + "0000000000000005" + "00000001" + "0000000000000000" + "00000000000003e8" + "00000046"
            + "00000001" + "0000000000000007" + "0002" + "00000000000003e8" + "01"
            + "00000000" + "00000004" + "0000000000000000" + "0000000000000004" + "00000000000003e8"
            + "ffffffffffffffff"
            + "00000002" + "00000001" + "0000000000000000" + "00000004" + "0000000000000005";

    /** The same state as version 1 wrote it: no leader-epoch section. */
    static final String V1 = "414c4350" + "01" + "01" + "3225672f" + "0000000000000003"
            + "0000000000000005" + "00000001" + "0000000000000000" + "00000000000003e8" + "00000046"
            + "00000001" + "0000000000000007" + "0002" + "00000000000003e8" + "01"
            + "00000000" + "00000004" + "0000000000000000" + "0000000000000004" + "00000000000003e8"
            + "ffffffffffffffff";

    private static ByteBuffer bytes(String hex) {
        return ByteBuffer.wrap(HexFormat.of().parseHex(hex));
    }

    @Test
    void encode_isVersion3_byteForByte() {
        LogIndex index = new LogIndex(0);
        index.add(0, 5, 1000, 70, 4096);
        ProducerStateManager producers = new ProducerStateManager();
        producers.replay(idempotentBatch());
        LeaderEpochCache epochs = new LeaderEpochCache();
        epochs.assign(1, 0);
        epochs.assign(4, 5);
        CleanerState cleaner = new CleanerState();
        cleaner.cleanedUpTo = 2;
        ByteBuffer encoded = Checkpoint.encode(true, 3, index, producers, epochs, cleaner);
        assertEquals(V3, HexFormat.of().formatHex(encoded.array(), encoded.position(), encoded.limit()));
    }

    @Test
    void apply_version3_restoresEveryPart() {
        LogIndex index = new LogIndex(0);
        ProducerStateManager producers = new ProducerStateManager();
        LeaderEpochCache epochs = new LeaderEpochCache();
        CleanerState cleaner = new CleanerState();
        assertEquals(3, Checkpoint.apply(bytes(V3), index, producers, epochs, cleaner));
        assertEquals(5, index.endOffset());
        assertEquals(List.of(new ActiveProducer(7, (short) 2, 4, 1000)), producers.activeProducers());
        assertEquals(new EpochEndOffset(1, 5), epochs.endOffsetFor(1, 9));
        assertEquals(new EpochEndOffset(4, 9), epochs.endOffsetFor(4, 9));
        assertEquals(2, cleaner.cleanedUpTo);
        assertEquals(-1, cleaner.pendingEnd);
    }

    @Test
    void apply_version2_restoresEverythingButCleanerProgress() {
        LogIndex index = new LogIndex(0);
        ProducerStateManager producers = new ProducerStateManager();
        LeaderEpochCache epochs = new LeaderEpochCache();
        CleanerState cleaner = new CleanerState();
        assertEquals(3, Checkpoint.apply(bytes(V2), index, producers, epochs, cleaner));
        assertEquals(5, index.endOffset());
        assertEquals(List.of(new ActiveProducer(7, (short) 2, 4, 1000)), producers.activeProducers());
        assertEquals(new EpochEndOffset(4, 9), epochs.endOffsetFor(4, 9));
        assertEquals(0, cleaner.cleanedUpTo);
        assertEquals(-1, cleaner.pendingEnd);
    }

    @Test
    void apply_version1_restoresEverythingButEpochs() {
        LogIndex index = new LogIndex(0);
        ProducerStateManager producers = new ProducerStateManager();
        LeaderEpochCache epochs = new LeaderEpochCache();
        assertEquals(3, Checkpoint.apply(bytes(V1), index, producers, epochs, new CleanerState()));
        assertEquals(5, index.endOffset());
        assertEquals(1, producers.size());
        assertEquals(0, epochs.size());
    }

    @Test
    void apply_flippedByte_isRefused() {
        ByteBuffer b = bytes(V3);
        b.put(30, (byte) (b.get(30) ^ 1));
        assertThrows(IllegalStateException.class, () -> Checkpoint.apply(b, new LogIndex(0),
                new ProducerStateManager(), new LeaderEpochCache(), new CleanerState()));
    }

    /** Producer 7, epoch 2, sequences 0-4 at offsets 0-4, every timestamp 1000. */
    private static RecordBatch idempotentBatch() {
        SimpleRecord[] records = new SimpleRecord[5];
        for (int i = 0; i < records.length; i++) {
            records[i] = new SimpleRecord(1000, ("v" + i).getBytes());
        }
        MemoryRecords m = MemoryRecords.withIdempotentRecords(Compression.NONE, 7, (short) 2, 0, records);
        return m.batches().iterator().next();
    }
}
