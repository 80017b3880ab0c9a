package io.aloft.stream.storage;

import io.aloft.stream.storage.ObjectStorageStats.Operation;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The state machine both backends share, so they reject the same misuse the same way:
 *
 * <pre>
 * OPEN --complete()--> COMPLETING --ok--> COMPLETED
 *   ^                      |fail
 *   +----------------------+          (a failed complete can be retried or aborted)
 * OPEN --abort()--> ABORTING --ok--> ABORTED    (fail: back to OPEN)
 * </pre>
 *
 * Thread-safe: the state is one atomic reference, parts are in a concurrent map, and an
 * in-flight counter is raised before the state is checked, so complete() either sees a part in
 * flight or the part sees a non-OPEN state and refuses to start.
 */
abstract class BaseMultipartUpload implements MultipartUpload {

    enum State { OPEN, COMPLETING, COMPLETED, ABORTING, ABORTED }

    /** What an uploaded part left behind: its size and the backend's tag for it (S3 ETag). */
    record Part(long size, String tag) {
    }

    private final String key;
    private final AtomicReference<State> state = new AtomicReference<>(State.OPEN);
    private final AtomicInteger inFlight = new AtomicInteger();
    private final ConcurrentSkipListMap<Integer, Part> parts = new ConcurrentSkipListMap<>();

    BaseMultipartUpload(String key) {
        this.key = key;
    }

    /** Uploads a part; completes with its tag. {@code data} is a duplicate the caller cannot move. */
    abstract CompletableFuture<String> sendPart(int partNumber, ByteBuffer data);

    /** Assembles the parts, in order, into the object. */
    abstract CompletableFuture<Void> sendComplete(NavigableMap<Integer, Part> parts);

    abstract CompletableFuture<Void> sendAbort();

    @Override
    public final String key() {
        return key;
    }

    @Override
    public final CompletableFuture<Void> uploadPart(int partNumber, ByteBuffer data) {
        Objects.requireNonNull(data, "data");
        if (partNumber < 1 || partNumber > MAX_PARTS) {
            throw new IllegalArgumentException("part number of '" + key + "' must be in [1, " + MAX_PARTS + "], got "
                    + partNumber);
        }
        ByteBuffer body = data.duplicate();
        long size = body.remaining();
        inFlight.incrementAndGet();
        State now = state.get();
        if (now != State.OPEN) {
            inFlight.decrementAndGet();
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "cannot upload part " + partNumber + " of '" + key + "': upload is " + now));
        }
        CompletableFuture<String> sent;
        try {
            sent = sendPart(partNumber, body);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.handle((tag, error) -> {
            inFlight.decrementAndGet();
            if (error != null) {
                throw new CompletionException(S3ObjectStorage.unwrap(error));
            }
            parts.put(partNumber, new Part(size, tag));
            return null;
        });
    }

    @Override
    public final CompletableFuture<Void> complete() {
        if (!state.compareAndSet(State.OPEN, State.COMPLETING)) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "cannot complete '" + key + "': upload is " + state.get()));
        }
        RuntimeException problem = checkParts();
        if (problem != null) {
            // Nothing was sent, so nothing is counted; the upload stays open to fix or abort.
            state.set(State.OPEN);
            return CompletableFuture.failedFuture(problem);
        }
        CompletableFuture<Void> sent;
        try {
            sent = sendComplete(parts.clone());
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.whenComplete((v, error) -> state.set(error == null ? State.COMPLETED : State.OPEN));
    }

    /**
     * Null when the parts can be completed. Otherwise misuse (parts in flight, no parts) is an
     * {@link IllegalStateException}, and a too-small part is the {@link ObjectStorageException}
     * S3 would answer (EntityTooSmall), raised here so every backend behaves alike.
     */
    private RuntimeException checkParts() {
        int running = inFlight.get();
        if (running > 0) {
            return new IllegalStateException("cannot complete '" + key + "': " + running
                    + " part upload(s) still in flight");
        }
        if (parts.isEmpty()) {
            return new IllegalStateException("cannot complete '" + key + "': no part was uploaded");
        }
        int last = parts.lastKey();
        for (Map.Entry<Integer, Part> e : parts.entrySet()) {
            if (e.getKey() != last && e.getValue().size() < MIN_PART_SIZE) {
                return new ObjectStorageException(Operation.MULTIPART_COMPLETE, key, "part " + e.getKey() + " is "
                        + e.getValue().size() + " bytes; every part but the last must be at least " + MIN_PART_SIZE
                        + " bytes (S3 EntityTooSmall)", null);
            }
        }
        return null;
    }

    @Override
    public final CompletableFuture<Void> abort() {
        while (true) {
            State now = state.get();
            if (now == State.ABORTED) {
                return CompletableFuture.completedFuture(null);
            }
            if (now != State.OPEN) {
                return CompletableFuture.failedFuture(new IllegalStateException(
                        "cannot abort '" + key + "': upload is " + now));
            }
            if (state.compareAndSet(State.OPEN, State.ABORTING)) {
                break;
            }
        }
        CompletableFuture<Void> sent;
        try {
            sent = sendAbort();
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.whenComplete((v, error) -> {
            if (error == null) {
                parts.clear();
            }
            state.set(error == null ? State.ABORTED : State.OPEN);
        });
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{key='" + key + "', state=" + state.get() + ", parts=" + parts.size() + '}';
    }
}
