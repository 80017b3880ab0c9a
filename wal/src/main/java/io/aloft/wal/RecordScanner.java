package io.aloft.wal;

import io.aloft.wal.device.WalDevice;
import io.aloft.wal.format.RecordFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * Walks the chain of records from a record boundary, reading the device sequentially through an
 * aligned window, and stops at the first entry that fails a check:
 * <ul>
 *   <li>magic is neither record nor padding;</li>
 *   <li>the stored logical offset is not the cursor (a stale lap, or garbage);</li>
 *   <li>the length runs past the end of the ring, or the scan would cover more than one lap;</li>
 *   <li>the epoch is lower than the previous entry's (data left behind by a write that was in
 *       flight when an earlier incarnation crashed) or higher than the log's;</li>
 *   <li>the CRC32C does not match.</li>
 * </ul>
 * So it never yields a corrupt record and tolerates a torn last write. Confined to one thread.
 */
final class RecordScanner implements Iterator<RecordScanner.Entry> {
    private static final int H = RecordFormat.HEADER_SIZE;
    private static final int WINDOW = 1 << 20;

    /** One entry of the chain; {@code body} is null for padding. */
    record Entry(long offset, int length, boolean padding, ByteBuffer body) {
        long end() {
            return offset + H + length;
        }
    }

    private final WalDevice device;
    private final Ring ring;
    private final long limit;
    private final int maxEpoch;
    private final boolean copyBodies;

    private ByteBuffer window = WalDevice.allocate(WINDOW);
    private long windowStart = -1;
    private long windowEnd = -1;

    private long cursor;
    private int lastEpoch = Integer.MIN_VALUE;
    private Entry next;
    private boolean stopped;

    /**
     * @param from a record boundary to start at
     * @param limit logical offset the scan never passes (at most one lap from {@code from})
     * @param maxEpoch highest epoch a valid entry may carry
     * @param copyBodies whether record entries carry a copy of their body
     */
    RecordScanner(WalDevice device, Ring ring, long from, long limit, int maxEpoch, boolean copyBodies) {
        this.device = device;
        this.ring = ring;
        this.cursor = from;
        this.limit = Math.min(limit, from + ring.size());
        this.maxEpoch = maxEpoch;
        this.copyBodies = copyBodies;
    }

    /** Logical offset just past the last valid entry returned so far. */
    long position() {
        return cursor;
    }

    @Override
    public boolean hasNext() {
        if (next == null && !stopped) {
            next = readEntry();
            stopped = next == null;
        }
        return next != null;
    }

    @Override
    public Entry next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        Entry e = next;
        next = null;
        cursor = e.end();
        return e;
    }

    private Entry readEntry() {
        long room = ring.roomToEnd(cursor);
        if (limit - cursor < H || room < H) {
            return null;
        }
        ByteBuffer buf = view(cursor, H);
        int at = buf.position();
        int magic = buf.getInt(at + RecordFormat.MAGIC_OFFSET);
        int length = buf.getInt(at + RecordFormat.LENGTH_OFFSET);
        long offset = buf.getLong(at + RecordFormat.LOGICAL_OFFSET_OFFSET);
        int epoch = buf.getInt(at + RecordFormat.EPOCH_OFFSET);
        int crc = buf.getInt(at + RecordFormat.CRC_OFFSET);
        boolean padding = magic == RecordFormat.PADDING_MAGIC;
        if ((!padding && magic != RecordFormat.RECORD_MAGIC) || offset != cursor || length < 0
                || H + (long) length > room || cursor + H + (long) length > limit
                || epoch < lastEpoch || epoch > maxEpoch) {
            return null;
        }
        if (padding) {
            if (crc != RecordFormat.checksum(buf, at, at, 0)) {
                return null;
            }
            lastEpoch = epoch;
            return new Entry(offset, length, true, null);
        }
        buf = view(cursor, H + length);
        at = buf.position();
        if (crc != RecordFormat.checksum(buf, at, at + H, length)) {
            return null;
        }
        lastEpoch = epoch;
        ByteBuffer body = null;
        if (copyBodies) {
            body = ByteBuffer.allocate(length).put(0, buf, at + H, length).asReadOnlyBuffer();
        }
        return new Entry(offset, length, false, body);
    }

    /**
     * Returns the window positioned at logical {@code from}, holding at least {@code length} bytes
     * (which never cross the ring's end), reloading it from the device if needed.
     */
    private ByteBuffer view(long from, int length) {
        if (from < windowStart || from + length > windowEnd) {
            long start = Ring.alignDown(from);
            long span = Math.max(WINDOW, Ring.alignUp(from + length) - start);
            span = Math.min(span, ring.roomToEnd(start));
            if (span > window.capacity()) {
                window = WalDevice.allocate(Math.toIntExact(Ring.alignUp(span)));
            }
            window.clear().limit((int) span);
            try {
                device.read(window, ring.position(start));
            } catch (IOException e) {
                throw new UncheckedIOException("reading WAL " + device.path() + " at offset " + start, e);
            }
            windowStart = start;
            windowEnd = start + span;
        }
        return window.duplicate().position((int) (from - windowStart));
    }
}
