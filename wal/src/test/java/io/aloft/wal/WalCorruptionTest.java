package io.aloft.wal;

import static io.aloft.wal.WalTestSupport.recoverAll;
import static io.aloft.wal.WalTestSupport.record;
import static io.aloft.wal.WalTestSupport.smallConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.config.ConfigException;
import io.aloft.wal.format.RecordFormat;
import io.aloft.wal.format.WalHeader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damages the WAL file on disk the way crashes and bad media do, then checks recovery returns
 * exactly the intact prefix and that the log keeps working after it.
 */
class WalCorruptionTest {
    private static final int RECORDS = 10;
    private static final int SIZE = 1500;

    @TempDir
    Path dir;

    private WalConfig config;
    private Ring ring;
    private final List<Long> offsets = new ArrayList<>();

    /** Writes records 0..9, each awaited so each sits in a write of its own. */
    @BeforeEach
    void writeRecords() throws Exception {
        config = smallConfig(dir).build();
        ring = Ring.forCapacity(config.capacityBytes());
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            for (int i = 0; i < RECORDS; i++) {
                offsets.add(wal.append(record(i, SIZE)).get(5, TimeUnit.SECONDS));
            }
        }
    }

    private void flipByte(long position) throws IOException {
        try (FileChannel ch = FileChannel.open(config.path(), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, position);
            b.put(0, (byte) (b.get(0) ^ 0x5A)).rewind();
            ch.write(b, position);
        }
    }

    private void overwrite(long position, int length, byte value) throws IOException {
        try (FileChannel ch = FileChannel.open(config.path(), StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(length);
            for (int i = 0; i < length; i++) {
                b.put(i, value);
            }
            ch.write(b, position);
        }
    }

    private List<Long> recoveredIds() throws IOException {
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            return ids(wal);
        }
    }

    private static List<Long> ids(WriteAheadLog wal) {
        List<Long> ids = new ArrayList<>();
        for (WalRecord r : recoverAll(wal)) {
            assertEquals(record(WalTestSupport.idOf(r.body()), SIZE), r.body(), "a recovered record is intact");
            ids.add(WalTestSupport.idOf(r.body()));
        }
        return ids;
    }

    private static List<Long> range(int fromInclusive, int toExclusive) {
        List<Long> ids = new ArrayList<>();
        for (long i = fromInclusive; i < toExclusive; i++) {
            ids.add(i);
        }
        return ids;
    }

    @Test
    void recover_flippedBodyByte_returnsPrefixBeforeIt() throws Exception {
        flipByte(ring.position(offsets.get(6)) + RecordFormat.HEADER_SIZE + 700);
        assertEquals(range(0, 6), recoveredIds());
    }

    @Test
    void recover_flippedLengthField_returnsPrefixBeforeIt() throws Exception {
        flipByte(ring.position(offsets.get(4)) + RecordFormat.LENGTH_OFFSET + 3);
        assertEquals(range(0, 4), recoveredIds());
    }

    @Test
    void recover_flippedMagic_returnsPrefixBeforeIt() throws Exception {
        flipByte(ring.position(offsets.get(0)) + RecordFormat.MAGIC_OFFSET);
        assertEquals(List.of(), recoveredIds());
    }

    @Test
    void recover_flippedChecksum_returnsPrefixBeforeIt() throws Exception {
        flipByte(ring.position(offsets.get(9)) + RecordFormat.CRC_OFFSET);
        assertEquals(range(0, 9), recoveredIds());
    }

    @Test
    void recover_corruptPaddingRecord_returnsPrefixBeforeIt() throws Exception {
        // Record 2's write is padded to 4 KiB; the padding header follows its body.
        long padding = ring.position(offsets.get(2)) + RecordFormat.HEADER_SIZE + SIZE + RecordFormat.EPOCH_OFFSET;
        flipByte(padding);
        assertEquals(range(0, 3), recoveredIds(), "record 2 itself is intact; the chain breaks after it");
    }

    @Test
    void recover_tornWriteMidRecord_returnsPrefixAndKeepsAppending() throws Exception {
        // A torn write: record 7's write reached the disk only up to the middle of its body.
        overwrite(ring.position(offsets.get(7)) + 600, 4096 - 600, (byte) 0);
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            assertEquals(range(0, 7), ids(wal));
            wal.append(record(100, SIZE)).get(5, TimeUnit.SECONDS);
            wal.append(record(101, SIZE)).get(5, TimeUnit.SECONDS);
        }
        List<Long> expected = range(0, 7);
        expected.addAll(List.of(100L, 101L));
        assertEquals(expected, recoveredIds(), "new records continue the chain after the torn write");
    }

    @Test
    void recover_tornWriteInsideBatch_sealsTailAndKeepsAppending() throws Exception {
        // Several records in one write, the last of them torn: the chain ends mid-block, and the
        // next incarnation must pad the block before writing.
        config = smallConfig(dir).path(dir.resolve("batched.wal")).maxInflightWrites(1).build();
        WalConfig big = config;
        List<Long> batchOffsets = new ArrayList<>();
        try (BlockDeviceWal wal = BlockDeviceWal.open(big)) {
            var futures = new ArrayList<java.util.concurrent.CompletableFuture<Long>>();
            for (int i = 0; i < 20; i++) {
                futures.add(wal.append(record(i, 300)));
            }
            for (var f : futures) {
                batchOffsets.add(f.get(5, TimeUnit.SECONDS));
            }
        }
        // Tear, in the middle, the last record that shares a write with the records before it (how
        // the 20 appends were grouped into writes depends on timing; on a loaded machine record 15,
        // the fixed choice before, once had a write of its own): the chain must stop before it.
        int tornIndex = -1;
        for (int i = batchOffsets.size() - 1; i >= 1 && tornIndex < 0; i--) {
            if (batchOffsets.get(i) % 4096 != 0) {
                tornIndex = i;
            }
        }
        assertTrue(tornIndex > 0, "some record shares a write with the records before it: " + batchOffsets);
        long torn = batchOffsets.get(tornIndex);
        overwrite(ring.position(torn) + 100, 50, (byte) 0x33);
        List<Long> expected = new ArrayList<>();
        for (long i = 0; i < tornIndex; i++) {
            expected.add(i);
        }
        try (BlockDeviceWal wal = BlockDeviceWal.open(big)) {
            List<Long> got = new ArrayList<>();
            recoverAll(wal).forEach(r -> got.add(WalTestSupport.idOf(r.body())));
            assertEquals(expected, got);
            wal.append(record(200, 300)).get(5, TimeUnit.SECONDS);
        }
        expected.add(200L);
        try (BlockDeviceWal wal = BlockDeviceWal.open(big)) {
            List<Long> got = new ArrayList<>();
            recoverAll(wal).forEach(r -> got.add(WalTestSupport.idOf(r.body())));
            assertEquals(expected, got);
        }
    }

    @Test
    void recover_staleRecordsBeyondChainFromEarlierIncarnation_areNotReturned() throws Exception {
        // Record 5 lost (as if its write never landed while record 6..9's writes did): after
        // recovery, a new record fills 5's place; 6..9 are valid on disk but from an older epoch.
        flipByte(ring.position(offsets.get(5)) + RecordFormat.HEADER_SIZE + 10);
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            assertEquals(range(0, 5), ids(wal));
            long offset = wal.append(record(50, SIZE)).get(5, TimeUnit.SECONDS);
            assertEquals(offsets.get(5), offset, "the new record takes the first free aligned slot");
        }
        List<Long> expected = range(0, 5);
        expected.add(50L);
        assertEquals(expected, recoveredIds());
    }

    @Test
    void recover_corruptNewestHeaderCopy_usesOlderCopy() throws Exception {
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            wal.trim(offsets.get(3)).get(5, TimeUnit.SECONDS);
            wal.trim(offsets.get(5)).get(5, TimeUnit.SECONDS);
        }
        long newest = newestHeaderSlot();
        flipByte(newest + 20);
        // The older copy holds trim point 3: records 3.. come back, never fewer than the newest allowed.
        assertEquals(range(3, RECORDS), recoveredIds());
    }

    @Test
    void recover_tornHeaderCopyZeroed_usesOlderCopy() throws Exception {
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            wal.trim(offsets.get(2)).get(5, TimeUnit.SECONDS);
        }
        overwrite(newestHeaderSlot(), WalHeader.SLOT_SIZE, (byte) 0);
        List<Long> ids = recoveredIds();
        assertTrue(ids.equals(range(0, RECORDS)), "older copy (trim 0) used: " + ids);
    }

    @Test
    void open_bothHeaderCopiesCorrupt_refusesWithClearError() throws Exception {
        flipByte(8);
        flipByte(WalHeader.SLOT_SIZE + 8);
        ConfigException e = assertThrows(ConfigException.class, () -> BlockDeviceWal.open(config));
        assertEquals(WalConfig.PATH_CONFIG, e.key());
        assertTrue(e.getMessage().contains("no valid WAL header"), e.getMessage());
    }

    private long newestHeaderSlot() throws IOException {
        try (FileChannel ch = FileChannel.open(config.path(), StandardOpenOption.READ)) {
            WalHeader best = null;
            for (int slot = 0; slot < WalHeader.SLOT_COUNT; slot++) {
                ByteBuffer b = ByteBuffer.allocate(WalHeader.SLOT_SIZE);
                ch.read(b, (long) slot * WalHeader.SLOT_SIZE);
                WalHeader h = WalHeader.decode(b);
                if (h != null && (best == null || h.sequence() > best.sequence())) {
                    best = h;
                }
            }
            return best.slotPosition();
        }
    }
}
