package io.aloft.wal;

import io.aloft.wal.device.WalDevice;
import io.aloft.wal.format.WalHeader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Another broker's {@link BlockDeviceWal}, taken over to recover what it held: its owner failed
 * (or stopped answering) and the records it acknowledged but had not uploaded must reach object
 * storage through a live broker. In a cloud the volume is attached to the recovering broker; here
 * it is a path this process can open.
 *
 * <p>{@link #tryTakeOver} takes the header lock (the owner's open and its trims take it too, so
 * none of their header writes interleave with these), reads the newest header, writes it again
 * with the epoch raised by one (the fence: the owner, if it is only paused, finds a foreign epoch
 * at its next header check and fails, see {@link WalTakenOverException}), and reads the records
 * above the trim point up to the end of the chain. The caller uploads and commits them, then
 * {@link #release}s them (the trim point moves to the end it read, so the owner's next run does not
 * replay them again) and closes. A take-over that dies midway leaves the log fenced and not
 * released: the next one, or the owner's next open, reads the same records again.
 *
 * <p>Not thread-safe; one recovering thread uses it from {@link #tryTakeOver} to {@link #close}.
 */
public final class BlockWalTakeOver implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BlockWalTakeOver.class);

    private final WalDevice device;
    private final FileLock lock;
    private final WalHeader fence;
    private final List<WalRecord> records;
    private final long end;

    private BlockWalTakeOver(WalDevice device, FileLock lock, WalHeader fence, List<WalRecord> records, long end) {
        this.device = device;
        this.lock = lock;
        this.fence = fence;
        this.records = records;
        this.end = end;
    }

    /**
     * Takes over the log at {@code path}, or returns null if its header lock is held (its owner is
     * opening it, or another broker is taking it over): try again later.
     *
     * @throws IOException if it cannot be read, or holds no valid header
     */
    public static BlockWalTakeOver tryTakeOver(Path path, boolean directIo) throws IOException {
        if (!Files.exists(path)) {
            throw new IOException("WAL " + path + " does not exist here");
        }
        WalDevice device = WalDevice.open(path, directIo);
        try {
            FileLock lock = device.tryLockHeaders();
            if (lock == null) {
                device.close();
                return null;
            }
            try {
                return readAndFence(device, lock);
            } catch (IOException | RuntimeException e) {
                lock.release();
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            device.close();
            throw e;
        }
    }

    private static BlockWalTakeOver readAndFence(WalDevice device, FileLock lock) throws IOException {
        ByteBuffer slots = WalDevice.allocate(WalHeader.SLOT_SIZE * WalHeader.SLOT_COUNT);
        WalHeader header = BlockDeviceWal.readNewestHeader(device, slots);
        if (header == null) {
            throw new IOException("WAL " + device.path() + " holds no valid header");
        }
        // The fence first: from here on the owner's header check fails, before anything is read.
        WalHeader fence = new WalHeader(header.sequence() + 1, header.capacity(), header.trimOffset(),
                header.scanStart(), Math.addExact(header.epoch(), 1));
        BlockDeviceWal.writeHeader(device, fence, WalDevice.allocate(WalHeader.SLOT_SIZE));
        Ring ring = Ring.forCapacity(header.capacity());
        // Records the owner wrote (epochs up to its own), never ones a later writer might add.
        RecordScanner scanner = new RecordScanner(device, ring, header.scanStart(), header.scanStart() + ring.size(),
                header.epoch(), true);
        List<WalRecord> records = new ArrayList<>();
        while (scanner.hasNext()) {
            RecordScanner.Entry e = scanner.next();
            if (!e.padding() && e.offset() >= header.trimOffset()) {
                records.add(new WalRecord(e.offset(), e.body()));
            }
        }
        long end = scanner.position();
        log.info("Took over WAL {} (epoch {} fenced by {}): {} records between offsets {} and {}", device.path(),
                header.epoch(), fence.epoch(), records.size(), header.trimOffset(), end);
        return new BlockWalTakeOver(device, lock, fence, records, end);
    }

    /** The records the owner had not trimmed, in log order. */
    public List<WalRecord> records() {
        return records;
    }

    /**
     * Marks every record read as no longer needed (they are committed elsewhere now): the owner's
     * next open starts after them. The log stays fenced.
     */
    public void release() {
        long trim = Math.max(fence.trimOffset(), end);
        WalHeader released = new WalHeader(fence.sequence() + 1, fence.capacity(), trim, Math.max(fence.scanStart(),
                end), fence.epoch());
        try {
            BlockDeviceWal.writeHeader(device, released, WalDevice.allocate(WalHeader.SLOT_SIZE));
        } catch (IOException e) {
            throw new UncheckedIOException("releasing WAL " + device.path(), e);
        }
    }

    /** Releases the header lock and closes the device. */
    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException e) {
            log.warn("Could not release the header lock of WAL {}", device.path(), e);
        } finally {
            try {
                device.close();
            } catch (IOException e) {
                log.warn("Could not close WAL {}", device.path(), e);
            }
        }
    }
}
