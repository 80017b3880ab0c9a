package io.aloft.stream.storage;

import io.aloft.stream.storage.ObjectStorageStats.Operation;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;

/**
 * One {@link FileObjectStorage#put(String, PutBody)}: writes each chunk of a pass to a temp file
 * as it comes, fsyncing every {@link FileObjectStorage#SYNC_CHUNK_BYTES} bytes (so the disk
 * sees the object in small flushes beside the WAL's writes, not one big one), then fsyncs and
 * publishes the file. Every chunk is written by a task of its own on the storage's IO pool, so
 * a body that makes the put wait (a paced upload) holds no thread meanwhile.
 *
 * <p>Confined to one task at a time: each task starts the next only after its own work, so the
 * fields need no lock (the pool's hand-off orders them).
 */
final class FileStreamedPut {
    private final FileObjectStorage storage;
    private final String key;
    private final Path target;
    private final PutBody body;
    private final CompletableFuture<Void> result = new CompletableFuture<>();
    private PutBody.Pass pass;
    private Path temp;
    private FileChannel channel;
    private long written;
    private long unsynced;

    FileStreamedPut(FileObjectStorage storage, String key, Path target, PutBody body) {
        this.storage = storage;
        this.key = key;
        this.target = target;
        this.body = body;
    }

    CompletableFuture<Void> start() {
        submit(() -> {
            temp = storage.newTempPath(".put");
            channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            pass = body.open();
            requestNext();
        });
        return result;
    }

    /** Asks the pass for the next chunk; writes it on the pool when it comes. */
    private void requestNext() {
        CompletableFuture<ByteBuffer> next;
        try {
            next = pass.next();
        } catch (RuntimeException e) {
            fail(e);
            return;
        }
        next.whenComplete((chunk, error) -> {
            if (error != null) {
                fail(error instanceof CompletionException && error.getCause() != null ? error.getCause() : error);
            } else {
                submit(() -> take(chunk));
            }
        });
    }

    private void take(ByteBuffer chunk) throws IOException {
        long length = body.length();
        if (chunk == null) {
            if (written != length) {
                throw new IllegalStateException("a body of " + length + " bytes ended after " + written);
            }
            channel.force(true);
            channel.close();
            storage.publish(temp, target);
            pass.close();
            storage.stats().recordBytes(Operation.PUT, length);
            result.complete(null);
            return;
        }
        if (written + chunk.remaining() > length) {
            throw new IllegalStateException("a body of " + length + " bytes produced more");
        }
        ByteBuffer bytes = chunk.duplicate();
        while (bytes.hasRemaining()) {
            int n = channel.write(bytes);
            written += n;
            unsynced += n;
        }
        if (unsynced >= FileObjectStorage.SYNC_CHUNK_BYTES) {
            channel.force(false);
            unsynced = 0;
        }
        requestNext();
    }

    @FunctionalInterface
    private interface Step {
        void run() throws IOException;
    }

    private void submit(Step step) {
        try {
            storage.execute(() -> {
                try {
                    step.run();
                } catch (Throwable t) {
                    fail(t);
                }
            });
        } catch (RejectedExecutionException e) {
            fail(new IllegalStateException(storage + " is closed", e));
        }
    }

    /** Drops the temp file and fails the put; the first failure counts. */
    private void fail(Throwable error) {
        if (result.isDone()) {
            return;
        }
        if (pass != null) {
            pass.close();
        }
        try {
            if (channel != null) {
                channel.close();
            }
            if (temp != null) {
                Files.deleteIfExists(temp);
            }
        } catch (IOException e) {
            error.addSuppressed(e);
        }
        // A body that broke its length, or a closed storage, is not a storage failure: report it as it is.
        result.completeExceptionally(error instanceof IllegalStateException ? error
                : storage.failed(Operation.PUT, key, error));
    }
}
