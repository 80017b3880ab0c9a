package io.aloft.broker.log;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The record format of a partition's state stream: each record is one checkpoint of the log's
 * state up to an offset of the records stream, so a reopened log reads the checkpoints and replays
 * only the records appended after the last one.
 *
 * <pre>
 * offset  length  field
 * 0       4       magic 0x414C4350 ("ALCP")
 * 4       1       version (3 or 5, see below; 1, 2 and 4 are still read)
 * 5       1       kind: 1 full (replaces all state), 2 partial (index entries changed since the
 *                 previous checkpoint; producers, leader epochs and log start are always complete)
 * 6       4       CRC32C of every byte from offset 10 to the end
 * 10      8       log start offset
 * 18      ...     index section ({@link LogIndex#writeCheckpoint}); its end offset is the
 *                 records-stream offset the checkpoint covers
 * ...     ...     producer section ({@link ProducerStateManager#writeSnapshot}); each producer's
 *                 coordinator epoch and open transaction from version 4
 * ...     ...     leader-epoch section ({@link LeaderEpochCache#writeCheckpoint}); from version 2
 * ...     16      cleaner section ({@link CleanerState}); from version 3
 * ...     ...     aborted-transaction section ({@link TransactionIndex#writeCheckpoint}); from
 *                 version 4: complete in version 4 and in full version-5 checkpoints, only the
 *                 aborted transactions added since the previous checkpoint in partial version-5
 *                 ones
 * </pre>
 *
 * <p>Version 5 is written only while the log has transaction state (a producer with an open
 * transaction or a marker, or an aborted transaction), version 3 otherwise: so a log that never
 * saw a transaction stays readable by brokers that predate version 4 (a rolling upgrade, or a
 * partition moved back to an older broker). A log loaded from a version-3 checkpoint has no
 * transaction state. Version 4 differs from 5 only in its partial checkpoints' complete
 * aborted-transaction section (which made each of them as large as the list: 240 KB for 10,000
 * aborted transactions).
 *
 * <p>A version-1 checkpoint has no leader epochs: a log loaded from one knows the epochs of the
 * batches replayed after it and of its own opening, and answers for older epochs with the start of
 * the oldest one it knows (see {@link LeaderEpochCache#endOffsetFor}).
 *
 * <p>Stateless.
 */
final class Checkpoint {
    static final int MAGIC = 0x414C4350;
    static final byte VERSION = 5;
    /** The first version, without the leader-epoch section. */
    static final byte VERSION_1 = 1;
    /** With leader epochs, without the cleaner section (a log loaded from it starts uncleaned). */
    static final byte VERSION_2 = 2;
    /** With the cleaner section, without transactions. */
    static final byte VERSION_3 = 3;
    /** With transactions; its aborted-transaction section is complete in partial checkpoints too. */
    static final byte VERSION_4 = 4;
    static final byte FULL = 1;
    static final byte PARTIAL = 2;
    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 4;
    static final int KIND_OFFSET = 5;
    static final int CRC_OFFSET = 6;
    static final int BODY_OFFSET = 10;

    private Checkpoint() {
    }

    /** Encodes the current state; the buffer returned belongs to the caller. */
    static ByteBuffer encode(boolean full, long logStartOffset, LogIndex index, ProducerStateManager producers,
            LeaderEpochCache epochs, CleanerState cleaner, TransactionIndex txns) {
        boolean withTxns = producers.hasTransactions() || txns.abortedCount() > 0;
        int size = BODY_OFFSET + 8 + index.checkpointSize(full) + producers.snapshotSize(withTxns)
                + epochs.checkpointSize() + CleanerState.SIZE + (withTxns ? txns.checkpointSize(full) : 0);
        ByteBuffer out = ByteBuffer.allocate(size);
        out.putInt(MAGIC).put(withTxns ? VERSION : VERSION_3).put(full ? FULL : PARTIAL).putInt(0)
                .putLong(logStartOffset);
        index.writeCheckpoint(out, full);
        producers.writeSnapshot(out, withTxns);
        epochs.writeCheckpoint(out);
        cleaner.write(out);
        if (withTxns) {
            txns.writeCheckpoint(out, full);
        }
        out.flip();
        out.putInt(CRC_OFFSET, crc(out));
        return out;
    }

    /**
     * Applies one checkpoint to the given state and returns its log start offset.
     *
     * @throws IllegalStateException if the record is not a checkpoint or fails its CRC
     */
    static long apply(ByteBuffer record, LogIndex index, ProducerStateManager producers, LeaderEpochCache epochs,
            CleanerState cleaner, TransactionIndex txns) {
        ByteBuffer in = record.slice();
        if (in.remaining() < BODY_OFFSET + 8 || in.getInt(MAGIC_OFFSET) != MAGIC) {
            throw new IllegalStateException("not a partition checkpoint");
        }
        byte version = in.get(VERSION_OFFSET);
        if (version < VERSION_1 || version > VERSION) {
            throw new IllegalStateException("unknown checkpoint version " + version);
        }
        if (in.getInt(CRC_OFFSET) != crc(in)) {
            throw new IllegalStateException("checkpoint fails its CRC");
        }
        byte kind = in.get(KIND_OFFSET);
        in.position(BODY_OFFSET);
        long logStart = in.getLong();
        index.readCheckpoint(in, kind == FULL);
        producers.readSnapshot(in, version >= VERSION_4);
        if (version >= VERSION_2) {
            epochs.readCheckpoint(in);
        }
        if (version >= VERSION_3) {
            cleaner.read(in);
        }
        if (version >= VERSION_4) {
            txns.readCheckpoint(in, version == VERSION_4 || kind == FULL);
        } else {
            txns.clearAborted(); // written while there was none
        }
        return logStart;
    }

    private static int crc(ByteBuffer b) {
        CRC32C crc = new CRC32C();
        ByteBuffer body = b.duplicate();
        body.position(BODY_OFFSET);
        crc.update(body);
        return (int) crc.getValue();
    }
}
