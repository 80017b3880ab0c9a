package io.aloft.wal.device;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * A real {@link FileChannel} whose writes and {@code force} start failing, as a dying disk's do
 * (EIO), once {@code failing} says so; reads keep working. Nothing is written by a failed call.
 *
 * <p>A device that fails mid-run cannot be made here without root (dm-flakey, a detached loop
 * device), so WAL and broker tests stand this in at the WAL's {@link WalDevice.ChannelOpener}
 * seam. Shared with other modules through the wal test-jar. Thread-safe as the wrapped channel is.
 */
public final class FaultyFileChannel extends FileChannel {
    private final FileChannel delegate;
    private final BooleanSupplier failing;
    private final AtomicLong failures = new AtomicLong();

    public FaultyFileChannel(FileChannel delegate, BooleanSupplier failing) {
        this.delegate = delegate;
        this.failing = failing;
    }

    /** An opener giving every channel it opens the same fault condition. */
    public static WalDevice.ChannelOpener opener(BooleanSupplier failing) {
        return (path, options) -> new FaultyFileChannel(FileChannel.open(path, options), failing);
    }

    /** Calls failed so far. */
    public long failures() {
        return failures.get();
    }

    private void check() throws IOException {
        if (failing.getAsBoolean()) {
            failures.incrementAndGet();
            throw new IOException("Input/output error (injected device fault)");
        }
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        check();
        return delegate.write(src, position);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        check();
        return delegate.write(src);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        check();
        return delegate.write(srcs, offset, length);
    }

    @Override
    public void force(boolean metaData) throws IOException {
        check();
        delegate.force(metaData);
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return delegate.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        return delegate.read(dsts, offset, length);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        return delegate.read(dst, position);
    }

    @Override
    public long position() throws IOException {
        return delegate.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        delegate.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        return delegate.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        check();
        delegate.truncate(size);
        return this;
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        return delegate.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
        check();
        return delegate.transferFrom(src, position, count);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        return delegate.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        return delegate.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        return delegate.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        delegate.close();
    }
}
