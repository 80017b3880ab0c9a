package io.aloft.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/**
 * The persisted checkpoint format, byte for byte: version 5 as written now for a log with
 * transaction state (producers' transaction fields and the aborted-transaction section, only its
 * additions in partial checkpoints), version 4 as the first transactional brokers wrote it, version 3
 * as written now for one without (and by the previous brokers), version 2 (with the leader-epoch section, read as never cleaned) and version 1 as the
 * first brokers wrote it (read without epochs). A change to the layout must change these fixtures,
 * and keep reading the old ones.
 */
class CheckpointTest {
    // The sections the fixtures below share (each fixture's javadoc says what state it holds).

    /** Log start 3; one index entry (base 0, max timestamp 1000, 70 bytes) ending at 5. */
    private static final String INDEX_TO_5 = "0000000000000003"
            + "0000000000000005" + "00000001" + "0000000000000000" + "00000000000003e8" + "00000046";

    /** Producer 7's one batch: sequences 0-4, offsets 0-4, max timestamp 1000, no log append time. */
    private static final String BATCH_7 = "00000000" + "00000004" + "0000000000000000" + "0000000000000004"
            + "00000000000003e8" + "ffffffffffffffff";

    /** Versions 1-3: one producer, 7 epoch 2 (last timestamp 1000) with {@link #BATCH_7}. */
    private static final String PRODUCER_7 = "00000001" + "0000000000000007" + "0002" + "00000000000003e8" + "01"
            + BATCH_7;

    /**
     * Versions 4-5: producer 7 epoch 2 (no coordinator epoch, transaction open since 0) with
     * {@link #BATCH_7}; producer 8 epoch 1 with coordinator epoch 6 from a marker and no batch.
     */
    private static final String TXN_PRODUCERS = "00000002"
            + "0000000000000007" + "0002" + "00000000000003e8" + "ffffffff" + "0000000000000000" + "01"
            + BATCH_7
            + "0000000000000008" + "0001" + "00000000000003e8" + "00000006" + "ffffffffffffffff" + "00";

    /** Leader epochs 1 from 0 and 4 from 5. */
    private static final String EPOCHS = "00000002" + "00000001" + "0000000000000000" + "00000004"
            + "0000000000000005";

    /** Cleaned up to 2, no compaction pending. */
    private static final String CLEANED_TO_2 = "0000000000000002" + "ffffffffffffffff";

    /**
     * Version 4: {@link #V3}'s index, epochs and cleaner state; producer 7 epoch 2 with its batch
     * (sequences 0-4, offsets 0-4) in a transaction open since offset 0, producer 8 epoch 1 with no
     * batch and coordinator epoch 6 from a marker; one aborted transaction (producer 9, 1 to 4).
     */
    static final String V4 = "414c4350" + "04" + "01" + "dc0863ad" + INDEX_TO_5 + TXN_PRODUCERS + EPOCHS
            + CLEANED_TO_2
            + "00000001" + "0000000000000009" + "0000000000000001" + "0000000000000004";

    /**
     * {@link #V4}'s state as version 5 writes it in a full checkpoint: only the version differs
     * (the CRC covers the body, which is the same).
     */
    static final String V5 = "414c4350" + "05" + "01" + "dc0863ad" + V4.substring(20);

    /**
     * A partial version-5 checkpoint following {@link #V5}: its index entry grown by a batch (now
     * ending at 7, 140 bytes), the same producers, epochs and cleaner state, and of the aborted
     * transactions only the one added since (producer 10, 5 to 6).
     */
    static final String V5_PARTIAL = "414c4350" + "05" + "02" + "234f2f73" + "0000000000000003"
            + "0000000000000007" + "00000001" + "0000000000000000" + "00000000000003e8" + "0000008c"
            + TXN_PRODUCERS + EPOCHS + CLEANED_TO_2
            + "00000001" + "000000000000000a" + "0000000000000005" + "0000000000000006";

    /** {@link #V2}'s state, cleaned up to 2 with no compaction pending, as version 3 writes it. */
    static final String V3 = "414c4350" + "03" + "01" + "0ac5c0cc" + INDEX_TO_5 + PRODUCER_7 + EPOCHS + CLEANED_TO_2;

    /**
     * A full version-2 checkpoint of: log start 3, one index entry (base 0, max timestamp 1000, 70
     * bytes) ending at 5, producer 7 epoch 2 with one batch (sequences 0-4, offsets 0-4, max timestamp
     * 1000, no log append time), and leader epochs 1 from 0 and 4 from 5.
     */
    static final String V2 = "414c4350" + "02" + "01" + "c9682679" + INDEX_TO_5 + PRODUCER_7 + EPOCHS;

    /** The same state as version 1 wrote it: no leader-epoch section. */
    static final String V1 = "414c4350" + "01" + "01" + "3225672f" + INDEX_TO_5 + PRODUCER_7;

    private static ByteBuffer bytes(String hex) {
        return ByteBuffer.wrap(HexFormat.of().parseHex(hex));
    }

    /** Prints an encoded checkpoint (to write a fixture). */
    private static String hex(ByteBuffer encoded) {
        return HexFormat.of().formatHex(encoded.array(), encoded.position(), encoded.limit());
    }

    /** The state a checkpoint holds, each part empty until a test fills it or applies a checkpoint to it. */
    private static final class State {
        final LogIndex index = new LogIndex(0);
        final ProducerStateManager producers = new ProducerStateManager();
        final LeaderEpochCache epochs = new LeaderEpochCache();
        final CleanerState cleaner = new CleanerState();
        final TransactionIndex txns = new TransactionIndex();

        /** The fixtures' index entry, leader epochs and cleaner progress; no producer yet. */
        static State withoutProducers() {
            State state = new State();
            state.index.add(0, 5, 1000, 70, 4096);
            state.epochs.assign(1, 0);
            state.epochs.assign(4, 5);
            state.cleaner.cleanedUpTo = 2;
            return state;
        }

        ByteBuffer encode(boolean full, long logStartOffset) {
            return Checkpoint.encode(full, logStartOffset, index, producers, epochs, cleaner, txns);
        }

        /** Applies the checkpoint {@code hex}; the log start offset it holds. */
        long apply(String hex) {
            return Checkpoint.apply(bytes(hex), index, producers, epochs, cleaner, txns);
        }
    }

    @Test
    void encode_withoutTransactions_isVersion3_byteForByte() {
        State state = State.withoutProducers();
        state.producers.replay(batch(false), new TransactionIndex());
        assertEquals(V3, hex(state.encode(true, 3)));
    }

    @Test
    void encode_withTransactions_isVersion5_byteForByte() {
        State state = State.withoutProducers();
        state.producers.replay(batch(true), state.txns);
        state.producers.endTransaction(8, (short) 1, 6, 1000);
        state.txns.end(9, 1, 4, true);
        assertEquals(V5, hex(state.encode(true, 3)));

        // A partial one after another aborted transaction: that one alone.
        state.index.add(5, 2, 1000, 70, 4096);
        state.txns.end(10, 5, 6, true);
        assertEquals(V5_PARTIAL, hex(state.encode(false, 3)));
    }

    @Test
    void apply_version5FullThenPartial_restoresEveryAbortedTransaction() {
        State state = new State();
        state.apply(V5);
        assertEquals(List.of(new AbortedTxn(9, 1, 4)), state.txns.aborted());
        assertEquals(3, state.apply(V5_PARTIAL));
        assertEquals(List.of(new AbortedTxn(9, 1, 4), new AbortedTxn(10, 5, 6)), state.txns.aborted());
        assertEquals(7, state.index.endOffset());
        assertEquals(List.of(0L), state.producers.openTransactions());
    }

    /** A version-4 partial checkpoint's section is complete: it replaces the list. */
    @Test
    void apply_version4_replacesTheAbortedTransactions() {
        State state = new State();
        state.txns.end(1, 0, 0, true);
        state.apply(V4);
        assertEquals(List.of(new AbortedTxn(9, 1, 4)), state.txns.aborted());
    }

    /**
     * The measure behind version 5: with 10,000 aborted transactions, the next partial checkpoint
     * after one more abort holds that one alone (version 4 wrote all 10,001 in each: 240,114 bytes
     * for this state; the full one is 246,750 bytes in both versions).
     */
    @Test
    void encode_partialWith10000Aborted_holdsOnlyTheNewOne() {
        State state = new State();
        for (int i = 0; i < 10_000; i++) {
            state.index.add(2L * i, 2, 1000, 140, 4096);
            state.txns.end(i, 2L * i, 2L * i + 1, true);
        }
        state.epochs.assign(1, 0);
        int full = state.encode(true, 0).remaining();
        state.index.markClean();
        state.index.add(20_000, 2, 1000, 140, 4096);
        state.txns.end(10_000, 20_000, 20_001, true);
        int partial = state.encode(false, 0).remaining();
        System.out.println("checkpoint bytes with 10,000 aborted transactions: full " + full + ", next partial "
                + partial);

        assertEquals(246_750, full);
        assertTrue(partial < 200, "partial checkpoint of " + partial + " bytes");
    }

    @Test
    void apply_version4_restoresEveryPart() {
        State state = new State();
        assertEquals(3, state.apply(V4));
        assertEquals(5, state.index.endOffset());
        assertEquals(java.util.Set.of(new ActiveProducer(7, (short) 2, 4, 1000, -1, 0),
                new ActiveProducer(8, (short) 1, -1, 1000, 6, -1)),
                java.util.Set.copyOf(state.producers.activeProducers()));
        assertEquals(List.of(0L), state.producers.openTransactions());
        assertEquals(List.of(new AbortedTxn(9, 1, 4)), state.txns.aborted());
        assertEquals(new EpochEndOffset(4, 9), state.epochs.endOffsetFor(4, 9));
        assertEquals(2, state.cleaner.cleanedUpTo);
    }

    /** A checkpoint the previous version wrote still loads: no transaction, nothing aborted. */
    @Test
    void apply_version3_restoresEverythingWithoutTransactions() {
        State state = new State();
        assertEquals(3, state.apply(V3));
        assertEquals(5, state.index.endOffset());
        assertEquals(List.of(new ActiveProducer(7, (short) 2, 4, 1000, -1, -1)), state.producers.activeProducers());
        assertEquals(new EpochEndOffset(1, 5), state.epochs.endOffsetFor(1, 9));
        assertEquals(new EpochEndOffset(4, 9), state.epochs.endOffsetFor(4, 9));
        assertEquals(2, state.cleaner.cleanedUpTo);
        assertEquals(-1, state.cleaner.pendingEnd);
        assertEquals(0, state.txns.abortedCount());
        assertEquals(List.of(), state.producers.openTransactions());
    }

    /** Aborted transactions are always complete: a later version-3 checkpoint was written when there were none. */
    @Test
    void apply_version4ThenVersion3_leavesNoAbortedTransaction() {
        TransactionIndex txns = new TransactionIndex();
        ProducerStateManager producers = new ProducerStateManager();
        Checkpoint.apply(bytes(V4), new LogIndex(0), producers, new LeaderEpochCache(), new CleanerState(), txns);
        assertEquals(1, txns.abortedCount());
        Checkpoint.apply(bytes(V3), new LogIndex(0), producers, new LeaderEpochCache(), new CleanerState(), txns);
        assertEquals(0, txns.abortedCount());
        assertEquals(List.of(), producers.openTransactions());
    }

    @Test
    void apply_version2_restoresEverythingButCleanerProgress() {
        State state = new State();
        assertEquals(3, state.apply(V2));
        assertEquals(5, state.index.endOffset());
        assertEquals(List.of(new ActiveProducer(7, (short) 2, 4, 1000, -1, -1)), state.producers.activeProducers());
        assertEquals(new EpochEndOffset(4, 9), state.epochs.endOffsetFor(4, 9));
        assertEquals(0, state.cleaner.cleanedUpTo);
        assertEquals(-1, state.cleaner.pendingEnd);
    }

    @Test
    void apply_version1_restoresEverythingButEpochs() {
        State state = new State();
        assertEquals(3, state.apply(V1));
        assertEquals(5, state.index.endOffset());
        assertEquals(1, state.producers.size());
        assertEquals(0, state.epochs.size());
    }

    @Test
    void apply_flippedByte_isRefused() {
        ByteBuffer b = bytes(V4);
        b.put(30, (byte) (b.get(30) ^ 1));
        assertThrows(IllegalStateException.class, () -> Checkpoint.apply(b, new LogIndex(0),
                new ProducerStateManager(), new LeaderEpochCache(), new CleanerState(), new TransactionIndex()));
    }

    /** Producer 7, epoch 2, sequences 0-4 at offsets 0-4, every timestamp 1000; transactional or only idempotent. */
    private static RecordBatch batch(boolean transactional) {
        SimpleRecord[] records = new SimpleRecord[5];
        for (int i = 0; i < records.length; i++) {
            records[i] = new SimpleRecord(1000, ("v" + i).getBytes());
        }
        MemoryRecords m = transactional
                ? MemoryRecords.withTransactionalRecords(Compression.NONE, 7, (short) 2, 0, records)
                : MemoryRecords.withIdempotentRecords(Compression.NONE, 7, (short) 2, 0, records);
        return m.batches().iterator().next();
    }
}
