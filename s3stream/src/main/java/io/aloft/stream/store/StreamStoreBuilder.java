package io.aloft.stream.store;

import io.aloft.stream.metadata.StreamMetadata;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.wal.WriteAheadLog;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a {@link StreamStore} with hooks that are not settings: the clock, who is told when the
 * store gives up, and the uncaught-exception handler of its threads. Each option may be set once;
 * setting one twice, or to null, fails at once with a message naming it. Obtained from
 * {@link StreamStore#builder}. Not thread-safe; use it on one thread.
 */
public final class StreamStoreBuilder {
    private static final Logger log = LoggerFactory.getLogger(StreamStore.class);

    final StreamStoreConfig config;
    final WriteAheadLog wal;
    final ObjectStorage storage;
    final StreamMetadata metadata;
    LongSupplier clock;
    StreamStoreFailureListener failureListener;
    Thread.UncaughtExceptionHandler uncaughtExceptionHandler;

    StreamStoreBuilder(StreamStoreConfig config, WriteAheadLog wal, ObjectStorage storage, StreamMetadata metadata) {
        this.config = Objects.requireNonNull(config, "config");
        this.wal = Objects.requireNonNull(wal, "wal");
        this.storage = Objects.requireNonNull(storage, "storage");
        this.metadata = Objects.requireNonNull(metadata, "metadata");
    }

    /** Wall-clock milliseconds (default {@code System::currentTimeMillis}); tests control time with it. */
    public StreamStoreBuilder clock(LongSupplier clock) {
        requireUnset(this.clock, "clock");
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /** Told once if the store gives up (default: an ERROR log line). */
    public StreamStoreBuilder failureListener(StreamStoreFailureListener listener) {
        requireUnset(this.failureListener, "failureListener");
        this.failureListener = Objects.requireNonNull(listener, "failureListener");
        return this;
    }

    /**
     * Set on the store's threads ({@code aloft-stream-upload}, {@code aloft-compaction}), and told
     * of an {@link Error} in a compaction round (default: an ERROR log line naming the thread).
     */
    public StreamStoreBuilder uncaughtExceptionHandler(Thread.UncaughtExceptionHandler handler) {
        requireUnset(this.uncaughtExceptionHandler, "uncaughtExceptionHandler");
        this.uncaughtExceptionHandler = Objects.requireNonNull(handler, "uncaughtExceptionHandler");
        return this;
    }

    private static void requireUnset(Object current, String name) {
        if (current != null) {
            throw new IllegalStateException(name + " is already set to " + current);
        }
    }

    /**
     * Recovers the WAL's uncommitted records into objects, then starts the store.
     *
     * @throws IllegalArgumentException if the log cache is not smaller than the WAL
     */
    public StreamStore open() {
        if (clock == null) {
            clock = System::currentTimeMillis;
        }
        if (failureListener == null) {
            failureListener = cause -> log.error("Stream store of node {} failed; every stream stops",
                    config.nodeId(), cause);
        }
        if (uncaughtExceptionHandler == null) {
            uncaughtExceptionHandler = (thread, error) -> log.error("Uncaught exception on stream store thread {}",
                    thread.getName(), error);
        }
        return StreamStore.open(this);
    }
}
