package io.aloft.wal.device;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Positional, aligned I/O on the file or block device behind a write-ahead log.
 *
 * <p>With Direct IO the channel is opened with {@code O_DIRECT | O_DSYNC}: a write that returns
 * is durable and bypassed the page cache. Without it (disabled, or refused by the file system),
 * writes go through the page cache and {@link #sync()} must follow them.
 *
 * <p>Every buffer passed in must come from {@link #allocate(int)} (aligned) and every position and
 * length must be a multiple of {@link #ALIGNMENT}, in both modes, so the two modes behave alike.
 * The device borrows buffers for the duration of a call and moves their position.
 *
 * <p>Thread-safe: positional reads and writes may run concurrently.
 */
public final class WalDevice implements Closeable {
    public static final int ALIGNMENT = 4096;
    /** The locked region: the two header slots. */
    private static final long HEADER_LOCK_BYTES = 2L * ALIGNMENT;
    private static final long LOCK_POLL_MS = 10;

    private static final Logger log = LoggerFactory.getLogger(WalDevice.class);

    private final Path path;
    private final FileChannel channel;
    private final boolean direct;
    private final boolean blockDevice;

    private WalDevice(Path path, FileChannel channel, boolean direct, boolean blockDevice) {
        this.path = path;
        this.channel = channel;
        this.direct = direct;
        this.blockDevice = blockDevice;
    }

    /** Opens the channel; how it is opened is a seam so tests can stand in for a refusing file system. */
    @FunctionalInterface
    public interface ChannelOpener {
        FileChannel open(Path path, OpenOption... options) throws IOException;
    }

    /**
     * Opens an existing file or block device for reading and writing.
     *
     * @param wantDirect try Direct IO; on refusal fall back to buffered I/O and log it once
     */
    public static WalDevice open(Path path, boolean wantDirect, ChannelOpener opener) throws IOException {
        boolean blockDevice = !Files.isRegularFile(path);
        if (wantDirect) {
            String refusal = directIoRefusal(path);
            if (refusal == null) {
                try {
                    FileChannel ch = opener.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
                            StandardOpenOption.DSYNC, ExtendedOpenOption.DIRECT);
                    return new WalDevice(path, ch, true, blockDevice);
                } catch (IOException | UnsupportedOperationException e) {
                    refusal = e.toString();
                }
            }
            log.warn("Direct IO is not available for WAL {} ({}); falling back to buffered writes followed by "
                    + "fdatasync. Durability is unchanged; the page cache is used.", path, refusal);
        }
        FileChannel ch = opener.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        return new WalDevice(path, ch, false, blockDevice);
    }

    /** Opens with the real file system. */
    public static WalDevice open(Path path, boolean wantDirect) throws IOException {
        return open(path, wantDirect, FileChannel::open);
    }

    /** Returns why Direct IO with 4 KiB alignment cannot work here, or null if it may. */
    private static String directIoRefusal(Path path) {
        try {
            long blockSize = Files.getFileStore(path).getBlockSize();
            if (blockSize > ALIGNMENT || ALIGNMENT % blockSize != 0) {
                return "file system block size " + blockSize + " does not divide " + ALIGNMENT;
            }
            return null;
        } catch (IOException | UnsupportedOperationException e) {
            return null; // unknown: let the open itself decide
        }
    }

    /**
     * Creates a regular file of {@code size} bytes filled with zeros, written (not sparse) so later
     * overwrites need no block allocation, and forced to disk with its directory entry.
     */
    public static void preallocate(Path path, long size) throws IOException {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
            long pos = 0;
            while (pos < size) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), size - pos));
                while (zeros.hasRemaining()) {
                    pos += ch.write(zeros, pos);
                }
            }
            ch.force(true);
        }
    }

    /** Forces a directory's entries (a rename into it) to disk. */
    public static void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /**
     * Allocates a zeroed direct buffer aligned to 4096 whose capacity is exactly {@code size} bytes
     * (a multiple of 4096), so {@code clear()} can never expose bytes beyond it.
     */
    public static ByteBuffer allocate(int size) {
        if (size % ALIGNMENT != 0) {
            throw new IllegalArgumentException(size + " is not a multiple of " + ALIGNMENT);
        }
        // alignedSlice keeps all size + 4096 bytes when the raw allocation happens to be aligned:
        // cut it to size, or a clear() followed by a write would write 4 KiB too many.
        return ByteBuffer.allocateDirect(size + ALIGNMENT).alignedSlice(ALIGNMENT).slice(0, size);
    }

    /** Writes {@code buf}'s remaining bytes at {@code position}; durable on return only if {@link #direct()}. */
    public void write(ByteBuffer buf, long position) throws IOException {
        checkAligned(buf, position);
        while (buf.hasRemaining()) {
            position += channel.write(buf, position);
        }
    }

    /** Fills {@code buf}'s remaining bytes from {@code position}. */
    public void read(ByteBuffer buf, long position) throws IOException {
        checkAligned(buf, position);
        while (buf.hasRemaining()) {
            int n = channel.read(buf, position);
            if (n < 0) {
                throw new EOFException("WAL " + path + " ends at " + position);
            }
            position += n;
        }
    }

    /** Makes completed writes durable; a no-op with Direct IO, whose writes are already synchronous. */
    public void sync() throws IOException {
        if (!direct) {
            channel.force(false);
        }
    }

    /** Size of the file, or of the block device. */
    public long size() throws IOException {
        long size = channel.size();
        if (size == 0 && blockDevice) {
            // fstat reports 0 for block devices on some JDKs: find the end by probing reads.
            size = probeBlockDeviceSize();
        }
        return size;
    }

    private long probeBlockDeviceSize() throws IOException {
        // Binary search for the last readable aligned block.
        ByteBuffer probe = allocate(ALIGNMENT);
        long lo = 0;
        long hi = 1L << 50;
        while (hi - lo > ALIGNMENT) {
            long mid = ((lo + hi) / 2) / ALIGNMENT * ALIGNMENT;
            probe.clear();
            if (channel.read(probe, mid) > 0) { // 0 or -1 past the end
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return lo + ALIGNMENT;
    }

    private static void checkAligned(ByteBuffer buf, long position) {
        if (position % ALIGNMENT != 0 || buf.remaining() % ALIGNMENT != 0) {
            throw new IllegalArgumentException("unaligned I/O: position " + position + ", length " + buf.remaining());
        }
    }

    /**
     * Takes the exclusive advisory lock on the header slots, or returns null at once if another
     * process (or another channel of this JVM) holds it. The lock serializes header changes between
     * a log's owner and a broker taking the log over (see {@code BlockWalTakeOver}); it is released
     * by {@link FileLock#release()}, by closing this device, or by the kernel when the process dies.
     */
    public FileLock tryLockHeaders() throws IOException {
        try {
            return channel.tryLock(0, HEADER_LOCK_BYTES, false);
        } catch (OverlappingFileLockException e) {
            return null; // held through another channel of this JVM: the same answer as another process's lock
        }
    }

    /**
     * As {@link #tryLockHeaders()}, trying every {@value #LOCK_POLL_MS} ms for up to {@code timeoutMs};
     * an {@link IOException} naming the path once that passes.
     */
    public FileLock lockHeaders(long timeoutMs) throws IOException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            FileLock lock = tryLockHeaders();
            if (lock != null) {
                return lock;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("WAL " + path + " stayed locked for " + timeoutMs + " ms (another broker is "
                        + "recovering it, or another process has it open)");
            }
            try {
                Thread.sleep(LOCK_POLL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted waiting for the lock of WAL " + path);
            }
        }
    }

    public boolean direct() {
        return direct;
    }

    public boolean blockDevice() {
        return blockDevice;
    }

    public Path path() {
        return path;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
