package io.aloft.wal;

import io.aloft.config.ConfigException;
import io.aloft.config.PathChecks;
import io.aloft.wal.device.WalDevice;
import io.aloft.wal.format.RecordFormat;
import io.aloft.wal.format.WalHeader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link WriteAheadLog} on a raw block device or a preallocated file.
 *
 * <p>Device layout: two 4 KiB header slots ({@link WalHeader}, written alternately), then the ring
 * of records ({@link RecordFormat}) addressed by logical offset modulo the ring size. Writes are
 * 4 KiB-aligned and, where the file system allows it, use Direct IO with O_DSYNC.
 *
 * <p>Opening a log recovers it: the newest valid header gives the trim point and scan start; a
 * scan finds the end of the intact chain (see {@link RecordScanner}); the epoch is bumped and
 * persisted so data a crashed incarnation left beyond that end can never be mistaken for new
 * records; and a torn last write is sealed with padding so the chain continues from an aligned
 * position. New writes never overwrite recovered records that are not trimmed.
 *
 * <p>A device error (a failed record write, fsync or header write) fails the log for good: every
 * pending and later append fails with {@link WalClosedException}, and the
 * {@link WalFailureListener} given to {@link Builder#failureListener} hears of it once (by default
 * it is logged). The log's threads carry the {@link Builder#uncaughtExceptionHandler} given (by
 * default one that logs), so a thread that dies of an unexpected error is reported, not lost.
 *
 * <p>Thread-safe. Appends are handled by a {@link GroupCommitWriter}: writes on threads named
 * {@code aloft-wal-io-*}, completions on {@code aloft-wal-callback-1}; trim points are persisted by
 * the {@code aloft-wal-header-1} thread.
 */
public final class BlockDeviceWal implements WriteAheadLog {
    private static final Logger log = LoggerFactory.getLogger(BlockDeviceWal.class);
    private static final long CLOSE_TIMEOUT_MS = 30_000;
    /**
     * How long an open waits for the header lock: a broker taking this log over holds it while it
     * replays what the log held (seconds), then the open finds those records released.
     */
    static final long OPEN_LOCK_TIMEOUT_MS = 120_000;
    /** How long a trim's header write waits for the header lock before the log fails. */
    static final long HEADER_LOCK_TIMEOUT_MS = 60_000;
    /** How often the header is read to learn whether another broker took this log over. */
    static final long OWNERSHIP_CHECK_MS = 1_000;

    private final WalConfig config;
    private final WalDevice device;
    private final Ring ring;
    private final int epoch;
    private final long recoveredScanStart;
    private final long recoveredTrim;
    private final long recoveredEnd;
    private final WalStats stats;
    private final ExecutorService io;
    private final ExecutorService callbacks;
    private final ExecutorService headerThread;
    private final ScheduledThreadPoolExecutor timer;
    private final GroupCommitWriter writer;
    private final ByteBuffer headerSlot = WalDevice.allocate(WalHeader.SLOT_SIZE);
    /** Read buffer of the ownership check (timer thread) and of the trims' check (header thread): guarded by itself. */
    private final ByteBuffer ownershipSlots = WalDevice.allocate(WalHeader.SLOT_SIZE * WalHeader.SLOT_COUNT);

    // Guarded by this:
    private long headerSequence;
    private long durableTrim;
    private long requestedTrim;
    private long requestedScanStart;
    private boolean headerWriteRunning;
    private final List<TrimWaiter> trimWaiters = new ArrayList<>();
    private boolean closed;

    private record TrimWaiter(long offset, CompletableFuture<Void> future) {
    }

    private BlockDeviceWal(WalConfig config, WalDevice device, WalHeader header, long recoveredEnd, long start,
            Boundaries boundaries, WalStats stats, WalFailureListener failureListener,
            Thread.UncaughtExceptionHandler uncaughtHandler) {
        this.config = config;
        this.device = device;
        this.ring = Ring.forCapacity(config.capacityBytes());
        this.epoch = header.epoch();
        this.recoveredScanStart = header.scanStart();
        this.recoveredTrim = header.trimOffset();
        this.recoveredEnd = recoveredEnd;
        this.stats = stats;
        this.headerSequence = header.sequence();
        this.durableTrim = header.trimOffset();
        this.requestedTrim = header.trimOffset();
        this.requestedScanStart = header.scanStart();
        this.io = Executors.newFixedThreadPool(config.maxInflightWrites(), threads("aloft-wal-io-", uncaughtHandler));
        this.callbacks = Executors.newSingleThreadExecutor(threads("aloft-wal-callback-", uncaughtHandler));
        this.headerThread = Executors.newSingleThreadExecutor(threads("aloft-wal-header-", uncaughtHandler));
        this.timer = new ScheduledThreadPoolExecutor(1, threads("aloft-wal-timer-", uncaughtHandler));
        this.timer.setRemoveOnCancelPolicy(true);
        this.writer = new GroupCommitWriter(device, ring, epoch, config, start, header.scanStart(), boundaries, io,
                callbacks, timer, stats, failureListener);
        this.timer.scheduleWithFixedDelay(this::checkOwnership, OWNERSHIP_CHECK_MS, OWNERSHIP_CHECK_MS,
                TimeUnit.MILLISECONDS);
    }

    /**
     * Opens (creating and formatting if needed) and recovers the log described by {@code config},
     * with the default failure listener and thread handler (both log).
     */
    public static BlockDeviceWal open(WalConfig config) throws IOException {
        return builder(config).open();
    }

    /** As {@link #open(WalConfig)}, opening the device through {@code opener}. */
    public static BlockDeviceWal open(WalConfig config, WalDevice.ChannelOpener opener) throws IOException {
        return builder(config).channelOpener(opener).open();
    }

    /** A builder for a log on {@code config} with hooks beyond the settings: failure reporting, threads, the device. */
    public static Builder builder(WalConfig config) {
        return new Builder(config);
    }

    /**
     * Opens a {@link BlockDeviceWal} with hooks that are not settings. Each option may be set once;
     * setting one twice, or to null, fails at once. Not thread-safe; use it on one thread.
     */
    public static final class Builder {
        private final WalConfig config;
        private WalDevice.ChannelOpener channelOpener;
        private WalFailureListener failureListener;
        private Thread.UncaughtExceptionHandler uncaughtExceptionHandler;

        private Builder(WalConfig config) {
            this.config = Objects.requireNonNull(config, "config");
        }

        /** How the device's channel is opened (default {@code FileChannel::open}); a seam for tests. */
        public Builder channelOpener(WalDevice.ChannelOpener opener) {
            requireUnset(channelOpener, "channelOpener");
            this.channelOpener = Objects.requireNonNull(opener, "channelOpener");
            return this;
        }

        /** Told once if the device fails (default: an ERROR log line). */
        public Builder failureListener(WalFailureListener listener) {
            requireUnset(failureListener, "failureListener");
            this.failureListener = Objects.requireNonNull(listener, "failureListener");
            return this;
        }

        /** Set on every thread of the log (default: an ERROR log line naming the thread). */
        public Builder uncaughtExceptionHandler(Thread.UncaughtExceptionHandler handler) {
            requireUnset(uncaughtExceptionHandler, "uncaughtExceptionHandler");
            this.uncaughtExceptionHandler = Objects.requireNonNull(handler, "uncaughtExceptionHandler");
            return this;
        }

        private static void requireUnset(Object current, String name) {
            if (current != null) {
                throw new IllegalStateException(name + " is already set to " + current);
            }
        }

        /** Opens (creating and formatting if needed) and recovers the log. */
        public BlockDeviceWal open() throws IOException {
            WalDevice.ChannelOpener opener = channelOpener != null ? channelOpener
                    : java.nio.channels.FileChannel::open;
            WalFailureListener listener = failureListener != null ? failureListener : BlockDeviceWal::logFailure;
            Thread.UncaughtExceptionHandler handler = uncaughtExceptionHandler != null ? uncaughtExceptionHandler
                    : BlockDeviceWal::logUncaught;
            createIfMissing(config);
            WalDevice device = WalDevice.open(config.path(), config.directIo(), opener);
            try {
                // Not while another broker takes this log over: its records are released once it is done.
                FileLock lock = device.lockHeaders(OPEN_LOCK_TIMEOUT_MS);
                try {
                    return recover(config, device, listener, handler);
                } finally {
                    lock.release();
                }
            } catch (IOException | RuntimeException e) {
                device.close();
                throw e;
            }
        }
    }

    private static void logFailure(Path path, Throwable cause) {
        log.error("WAL {} failed; it accepts no more writes (every later append fails)", path, cause);
    }

    private static void logUncaught(Thread thread, Throwable error) {
        log.error("Uncaught exception on WAL thread {}", thread.getName(), error);
    }

    private static void createIfMissing(WalConfig config) throws IOException {
        // The same checks a server runs on its settings before it writes anything.
        PathChecks.requireWritableFile(WalConfig.PATH_CONFIG, config.path(), false);
        Path path = config.path().toAbsolutePath().normalize();
        if (Files.exists(path)) {
            return;
        }
        Path dir = path.getParent();
        // Preallocate under a temporary name so a crash never leaves a half-made file at the path.
        Path tmp = dir.resolve(path.getFileName() + ".init");
        Files.deleteIfExists(tmp);
        WalDevice.preallocate(tmp, config.capacityBytes());
        Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE);
        WalDevice.syncDirectory(dir);
        log.info("Created WAL file {} of {} bytes", path, config.capacityBytes());
    }

    private static BlockDeviceWal recover(WalConfig config, WalDevice device, WalFailureListener failureListener,
            Thread.UncaughtExceptionHandler uncaughtHandler) throws IOException {
        long size = device.size();
        if (size < config.capacityBytes()) {
            throw new ConfigException(WalConfig.CAPACITY_CONFIG, config.capacityBytes() + " exceeds the "
                    + size + " bytes of " + (device.blockDevice() ? "device " : "file ") + device.path());
        }
        ByteBuffer slots = WalDevice.allocate(WalHeader.SLOT_SIZE * WalHeader.SLOT_COUNT);
        WalHeader header = readNewestHeader(device, slots);
        if (header == null) {
            if (!isZero(slots.flip())) {
                throw new ConfigException(WalConfig.PATH_CONFIG, device.path() + " holds no valid WAL header "
                        + "(both copies fail their checks); refusing to overwrite it. Delete it if its data is "
                        + "not needed.");
            }
            log.info("Formatting WAL {} ({} bytes)", device.path(), config.capacityBytes());
            header = new WalHeader(0, config.capacityBytes(), 0, 0, 0);
            writeHeader(device, header, WalDevice.allocate(WalHeader.SLOT_SIZE));
        }
        if (header.capacity() != config.capacityBytes()) {
            throw new ConfigException(WalConfig.CAPACITY_CONFIG, config.capacityBytes() + " differs from the "
                    + header.capacity() + " bytes the WAL at " + device.path() + " was formatted with; set it back, "
                    + "or empty the WAL and delete the file to change it");
        }
        Ring ring = Ring.forCapacity(config.capacityBytes());

        Boundaries boundaries = new Boundaries();
        boundaries.add(header.scanStart());
        long records = 0;
        long bytes = 0;
        RecordScanner scanner = new RecordScanner(device, ring, header.scanStart(),
                header.scanStart() + ring.size(), header.epoch(), false);
        while (scanner.hasNext()) {
            RecordScanner.Entry e = scanner.next();
            if (e.offset() % Ring.ALIGNMENT == 0) {
                boundaries.add(e.offset());
            }
            if (!e.padding()) {
                boundaries.noteRecord(e.offset());
            }
            if (!e.padding() && e.offset() >= header.trimOffset()) {
                records++;
                bytes += e.length();
            }
        }
        long end = scanner.position();

        // A new epoch, durable before any new write, fences whatever the previous incarnation left
        // beyond the end of the chain (writes that were in flight when it died).
        WalHeader current = new WalHeader(header.sequence() + 1, header.capacity(), header.trimOffset(),
                header.scanStart(), Math.addExact(header.epoch(), 1));
        writeHeader(device, current, WalDevice.allocate(WalHeader.SLOT_SIZE));

        long start = sealTornTail(device, ring, end, current.epoch());
        boundaries.add(start);
        log.info("Opened WAL {} (direct IO {}, epoch {}): {} records, {} bytes recovered between offsets {} and {}",
                device.path(), device.direct(), current.epoch(), records, bytes, header.trimOffset(), end);
        return new BlockDeviceWal(config, device, current, end, start, boundaries, new WalStats(), failureListener,
                uncaughtHandler);
    }

    /**
     * If the chain ends inside a 4 KiB block (a torn write), rewrites that block with its intact
     * prefix unchanged and a padding record after it, so the chain reaches an aligned position
     * where new writes begin. Returns that position.
     */
    private static long sealTornTail(WalDevice device, Ring ring, long end, int epoch) throws IOException {
        long blockStart = Ring.alignDown(end);
        int prefix = (int) (end - blockStart);
        if (prefix == 0) {
            return end;
        }
        int size = (int) Ring.padded(prefix);
        ByteBuffer buf = WalDevice.allocate(size);
        buf.limit(Ring.ALIGNMENT);
        device.read(buf, ring.position(blockStart));
        buf.clear();
        RecordFormat.writePadding(buf, prefix, size - prefix, end, epoch);
        device.write(buf, ring.position(blockStart));
        device.sync();
        return blockStart + size;
    }

    /** Reads both header slots into {@code slots} and returns the valid copy with the highest sequence, or null. */
    static WalHeader readNewestHeader(WalDevice device, ByteBuffer slots) throws IOException {
        slots.clear();
        device.read(slots, 0);
        return newestHeader(slots);
    }

    private static WalHeader newestHeader(ByteBuffer slots) {
        WalHeader best = null;
        for (int i = 0; i < WalHeader.SLOT_COUNT; i++) {
            WalHeader h = WalHeader.decode(slots.slice(i * WalHeader.SLOT_SIZE, WalHeader.SLOT_SIZE));
            if (h != null && (best == null || h.sequence() > best.sequence())) {
                best = h;
            }
        }
        return best;
    }

    private static boolean isZero(ByteBuffer buf) {
        for (int i = buf.position(); i < buf.limit(); i++) {
            if (buf.get(i) != 0) {
                return false;
            }
        }
        return true;
    }

    static void writeHeader(WalDevice device, WalHeader header, ByteBuffer slot) throws IOException {
        slot.clear().limit(WalHeader.SLOT_SIZE);
        for (int i = 0; i < WalHeader.ENCODED_SIZE; i++) {
            slot.put(i, (byte) 0);
        }
        header.encodeTo(slot);
        device.write(slot, header.slotPosition());
        device.sync();
    }

    @Override
    public CompletableFuture<Long> append(ByteBuffer record) {
        return writer.append(record);
    }

    @Override
    public Iterator<WalRecord> recover() {
        RecordScanner scanner = new RecordScanner(device, ring, recoveredScanStart, recoveredEnd, epoch - 1, true);
        return new Iterator<>() {
            private WalRecord next;

            @Override
            public boolean hasNext() {
                while (next == null && scanner.hasNext()) {
                    RecordScanner.Entry e = scanner.next();
                    if (!e.padding() && e.offset() >= recoveredTrim) {
                        next = new WalRecord(e.offset(), e.body());
                    }
                }
                return next != null;
            }

            @Override
            public WalRecord next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                WalRecord r = next;
                next = null;
                return r;
            }
        };
    }

    @Override
    public CompletableFuture<Void> trim(long offset) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        boolean startWriter = false;
        Throwable failure = writer.failure();
        if (failure != null) {
            // A failed device is not written again, headers included.
            return CompletableFuture.failedFuture(new WalClosedException("WAL " + device.path() + " failed", failure));
        }
        synchronized (this) {
            if (closed) {
                return CompletableFuture.failedFuture(new WalClosedException("WAL " + device.path() + " is closed"));
            }
            if (offset <= durableTrim) {
                return CompletableFuture.completedFuture(null);
            }
            if (offset > requestedTrim) {
                long boundary;
                try {
                    boundary = writer.boundaryFor(offset);
                } catch (IllegalArgumentException e) {
                    return CompletableFuture.failedFuture(e);
                }
                requestedTrim = offset;
                requestedScanStart = Math.max(requestedScanStart, boundary);
            }
            trimWaiters.add(new TrimWaiter(offset, future));
            if (!headerWriteRunning) {
                headerWriteRunning = true;
                startWriter = true;
            }
        }
        if (startWriter) {
            headerThread.execute(this::persistTrims);
        }
        return future;
    }

    /** Header thread: writes the newest requested trim point until none is left unwritten. */
    private void persistTrims() {
        while (true) {
            WalHeader header;
            synchronized (this) {
                if (requestedTrim == durableTrim) {
                    headerWriteRunning = false;
                    return;
                }
                header = new WalHeader(++headerSequence, config.capacityBytes(), requestedTrim, requestedScanStart,
                        epoch);
            }
            try {
                writeOwnHeader(header);
                stats.headerWrites.increment();
            } catch (Throwable e) {
                List<TrimWaiter> failed;
                synchronized (this) {
                    headerWriteRunning = false;
                    failed = new ArrayList<>(trimWaiters);
                    trimWaiters.clear();
                }
                try {
                    // Tells the listener (by default an ERROR line), then fails pending appends. A torn
                    // header write leaves the other copy intact: recovery starts from the previous trim.
                    writer.failExternally(e instanceof WalTakenOverException ? e
                            : new WalException("writing the header of WAL " + device.path() + " failed", e));
                } finally {
                    failed.forEach(w -> w.future.completeExceptionally(
                            new WalClosedException("WAL " + device.path() + " failed", e)));
                }
                return;
            }
            writer.onTrimDurable(header.scanStart());
            List<CompletableFuture<Void>> done = new ArrayList<>();
            synchronized (this) {
                durableTrim = header.trimOffset();
                trimWaiters.removeIf(w -> {
                    if (w.offset <= durableTrim) {
                        done.add(w.future);
                        return true;
                    }
                    return false;
                });
            }
            done.forEach(f -> f.complete(null));
        }
    }

    /**
     * Header thread: writes {@code header} unless another broker took this log over (then it throws
     * {@link WalTakenOverException}); under the header lock, so a take-over's fence is never
     * overwritten by this log's older view.
     */
    private void writeOwnHeader(WalHeader header) throws IOException {
        FileLock lock = device.lockHeaders(HEADER_LOCK_TIMEOUT_MS);
        try {
            requireOwned();
            writeHeader(device, header, headerSlot);
        } finally {
            lock.release();
        }
    }

    /** Throws {@link WalTakenOverException} if the newest header on the device is not this incarnation's. */
    private void requireOwned() throws IOException {
        WalHeader newest;
        synchronized (ownershipSlots) {
            newest = readNewestHeader(device, ownershipSlots);
        }
        if (newest == null || newest.epoch() != epoch) {
            throw new WalTakenOverException("WAL " + device.path() + " was taken over: its header is at epoch "
                    + (newest == null ? "(none valid)" : newest.epoch()) + ", this log wrote epoch " + epoch
                    + "; nothing more is appended or acknowledged");
        }
    }

    /**
     * Timer thread: a log whose header another broker rewrote (it took the log over while this
     * process was paused or cut off) fails at once: every pending and later append fails and the
     * failure listener hears of it. Nothing it appends after the take-over would be recovered.
     */
    private void checkOwnership() {
        synchronized (this) {
            if (closed) {
                return;
            }
        }
        if (writer.failure() != null) {
            return;
        }
        try {
            requireOwned();
        } catch (WalTakenOverException e) {
            writer.failExternally(e);
        } catch (IOException e) {
            synchronized (this) {
                if (closed) {
                    return; // the device closed under the check
                }
            }
            writer.failExternally(new WalException("reading the header of WAL " + device.path() + " failed", e));
        }
    }

    @Override
    public CompletableFuture<Void> reset() {
        return writer.sealAndAwaitDurable().thenCompose(this::trim);
    }

    @Override
    public long nextOffset() {
        return writer.nextOffset();
    }

    @Override
    public synchronized long trimOffset() {
        return durableTrim;
    }

    @Override
    public long capacity() {
        return ring.size();
    }

    @Override
    public long usedBytes() {
        return writer.usedBytes();
    }

    @Override
    public WalStats stats() {
        return stats;
    }

    /** Whether writes bypass the page cache (false after a fallback). */
    public boolean directIo() {
        return device.direct();
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            writer.close(CLOSE_TIMEOUT_MS);
            headerThread.shutdown();
            headerThread.awaitTermination(CLOSE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            io.shutdown();
            callbacks.shutdown();
            timer.shutdownNow();
            try {
                device.close();
            } catch (IOException e) {
                throw new UncheckedIOException("closing WAL " + device.path(), e);
            }
        }
    }

    private static ThreadFactory threads(String prefix, Thread.UncaughtExceptionHandler handler) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            t.setUncaughtExceptionHandler(handler);
            return t;
        };
    }
}
