package io.aloft.stream.storage;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/** Reading a {@link PutBody} whole, for backends without a streamed put. Stateless. */
final class PutBodies {

    private PutBodies() {
    }

    /**
     * Reads one pass of {@code body} into a new heap buffer (position 0, limit the length), which
     * belongs to the caller. Fails with {@link IllegalStateException} if the pass produces other
     * than {@link PutBody#length()} bytes.
     */
    static CompletableFuture<ByteBuffer> readAll(PutBody body) {
        long length = body.length();
        if (length < 0 || length > Integer.MAX_VALUE - 16) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("a body of " + length
                    + " bytes does not fit one buffer; use a backend with a streamed put"));
        }
        ByteBuffer all = ByteBuffer.allocate((int) length);
        PutBody.Pass pass = body.open();
        CompletableFuture<ByteBuffer> result = new CompletableFuture<>();
        copy(pass, all, length, result);
        return result.whenComplete((v, e) -> pass.close());
    }

    /** Copies chunks while they come at once; continues on the completing thread when one is late. */
    private static void copy(PutBody.Pass pass, ByteBuffer all, long length, CompletableFuture<ByteBuffer> result) {
        try {
            while (true) {
                CompletableFuture<ByteBuffer> next = pass.next();
                if (!next.isDone()) {
                    next.whenComplete((chunk, error) -> {
                        if (error != null) {
                            result.completeExceptionally(error);
                        } else if (take(chunk, all, length, result)) {
                            copy(pass, all, length, result);
                        }
                    });
                    return;
                }
                if (!take(next.join(), all, length, result)) {
                    return;
                }
            }
        } catch (RuntimeException e) {
            result.completeExceptionally(e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                    ? e.getCause() : e);
        }
    }

    /** Takes one chunk (null: the end); returns whether to read on. */
    private static boolean take(ByteBuffer chunk, ByteBuffer all, long length, CompletableFuture<ByteBuffer> result) {
        if (chunk == null) {
            if (all.position() != length) {
                result.completeExceptionally(new IllegalStateException("a body of " + length + " bytes ended after "
                        + all.position()));
            } else {
                result.complete(all.flip());
            }
            return false;
        }
        if (chunk.remaining() > all.remaining()) {
            result.completeExceptionally(new IllegalStateException("a body of " + length + " bytes produced more"));
            return false;
        }
        all.put(chunk.duplicate());
        return true;
    }
}
