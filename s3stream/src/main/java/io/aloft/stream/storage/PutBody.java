package io.aloft.stream.storage;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * The bytes of one object, produced in order as the storage asks for them, with their exact
 * length known before the first byte: what {@link ObjectStorage#put(String, PutBody)} sends as
 * one request whose Content-Length is {@link #length()}. A body may produce its bytes lazily (an
 * object encoded block by block) and may make the storage wait for them (an upload paced to a
 * byte rate), so memory held by a put is a few chunks rather than the whole object.
 *
 * <p>A body can be read any number of times: every {@link #open()} starts a new {@link Pass} from
 * the first byte, as each attempt of a retried request needs.
 *
 * <p><b>Thread-safety:</b> {@link #open()} and {@link #length()} are thread-safe. A pass is used
 * by one reader at a time: it calls {@link Pass#next()} again only once the previous call's
 * future has completed (which orders the calls, whatever threads they run on).
 */
public interface PutBody {

    /** The number of bytes every pass produces. */
    long length();

    /** Starts reading the bytes from the first one. */
    Pass open();

    /** One reading of the body, first byte to last. */
    interface Pass extends AutoCloseable {
        /**
         * Completes with the next bytes (position to limit, never empty), or with {@code null}
         * once all {@link #length()} bytes were produced; may complete later than the call (a
         * paced body) and on another thread. A pass that cannot produce its bytes completes
         * exceptionally.
         *
         * <p><b>Buffers:</b> the returned buffer is lent until the next call of {@code next} or
         * {@link #close()}: the reader must write or copy it before then and must not modify it.
         */
        CompletableFuture<ByteBuffer> next();

        /** Ends the pass, read to the end or not, and drops its buffers. Idempotent. */
        @Override
        void close();
    }
}
