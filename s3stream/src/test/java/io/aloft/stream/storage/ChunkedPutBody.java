package io.aloft.stream.storage;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link PutBody} over a byte array for storage tests: chunks of a fixed size, every other one
 * handed out later on another thread (as a paced body does), each in a buffer that is scribbled
 * over once taken back, so a reader that keeps a lent chunk too long stores garbage. It may
 * declare a length other than its bytes'. Counts its passes. Thread-safe.
 */
final class ChunkedPutBody implements PutBody {
    private final byte[] data;
    private final int chunk;
    private final long declared;
    final AtomicInteger passes = new AtomicInteger();

    ChunkedPutBody(byte[] data, int chunk) {
        this(data, chunk, data.length);
    }

    ChunkedPutBody(byte[] data, int chunk, long declaredLength) {
        this.data = data;
        this.chunk = chunk;
        this.declared = declaredLength;
    }

    @Override
    public long length() {
        return declared;
    }

    @Override
    public Pass open() {
        passes.incrementAndGet();
        return new Pass() {
            private int at;
            private int calls;
            private ByteBuffer lent;

            @Override
            public CompletableFuture<ByteBuffer> next() {
                if (lent != null) {
                    while (lent.hasRemaining()) {
                        lent.put((byte) 0x5A); // taken back: whoever still reads it reads garbage
                    }
                }
                if (at >= data.length) {
                    return CompletableFuture.completedFuture(null);
                }
                int n = Math.min(chunk, data.length - at);
                ByteBuffer out = ByteBuffer.allocate(n).put(data, at, n).flip();
                at += n;
                lent = out.duplicate();
                if (calls++ % 2 == 0) {
                    return CompletableFuture.completedFuture(out.asReadOnlyBuffer());
                }
                return CompletableFuture.supplyAsync(out::asReadOnlyBuffer);
            }

            @Override
            public void close() {
            }
        };
    }
}
