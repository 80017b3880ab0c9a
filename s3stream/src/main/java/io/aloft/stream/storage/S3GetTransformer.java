package io.aloft.stream.storage;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.async.SdkPublisher;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * Collects a GetObject body into heap buffers sized before the first byte arrives, so a read
 * costs one copy of each byte out of the SDK's chunks and no growing stream (the SDK's
 * byte-array transformer grows a stream and copies again).
 *
 * <p>Two shapes: {@link #whole()} collects the body into one buffer of its Content-Length;
 * {@link #parts} copies it straight into one array per part (the data blocks of a ranged read),
 * so no part is a view of a bigger array and no array is bigger than a part: a 16 MiB readahead
 * GET allocates 32 block-sized arrays, not one 16 MiB array that G1 must place in humongous
 * regions and that stays reachable until its last block is dropped.
 *
 * <p>Confined to one request: the SDK calls {@link #prepare()} again for each retry attempt,
 * which resets the state; the reactive-streams rules serialize the signals within an attempt.
 */
final class S3GetTransformer implements AsyncResponseTransformer<GetObjectResponse, S3GetTransformer.Fetched> {

    /**
     * A response and its body: one buffer in whole mode, one per part in parts mode. The buffers
     * belong to the caller.
     */
    record Fetched(GetObjectResponse response, List<ByteBuffer> body) {
        /** The body of a whole-mode read. */
        ByteBuffer whole() {
            return body.get(0);
        }
    }

    private static final int MAX_BODY = Integer.MAX_VALUE - 16;

    /** Null in whole mode. */
    private final int[] partSizes;
    /** Where the parts start in the object: skipped when a server ignores the Range header. */
    private final long partsStart;

    private volatile CompletableFuture<Fetched> future;
    private volatile GetObjectResponse response;
    private volatile Sink sink;

    private S3GetTransformer(int[] partSizes, long partsStart) {
        this.partSizes = partSizes;
        this.partsStart = partsStart;
    }

    /** Collects the body into one buffer of its Content-Length. */
    static S3GetTransformer whole() {
        return new S3GetTransformer(null, 0);
    }

    /**
     * Collects a ranged read of the object's bytes from {@code start} into one array per part (see
     * {@link ObjectStorage#getParts}); also right when the server ignores the Range header and
     * sends the whole object.
     */
    static S3GetTransformer parts(long start, int[] partSizes) {
        return new S3GetTransformer(partSizes.clone(), start);
    }

    @Override
    public CompletableFuture<Fetched> prepare() {
        CompletableFuture<Fetched> f = new CompletableFuture<>();
        future = f;
        response = null;
        sink = null;
        return f;
    }

    @Override
    public void onResponse(GetObjectResponse r) {
        response = r;
        Long length = r.contentLength();
        if (length == null) {
            future.completeExceptionally(new IllegalStateException("GetObject response has no Content-Length"));
        } else if (length > MAX_BODY && partSizes == null) {
            future.completeExceptionally(new IllegalStateException(
                    "object body of " + length + " bytes does not fit one buffer; read it by range"));
        } else if (partSizes == null) {
            sink = new Sink(0, new int[] {(int) (long) length}, length);
        } else {
            // 206 with Content-Range: the body starts at the range's start. A server that ignores
            // Range answers 200 with the whole object: skip to the range's start.
            long skip = r.contentRange() != null ? 0 : partsStart;
            sink = new Sink(skip, partSizes, length);
        }
    }

    @Override
    public void onStream(SdkPublisher<ByteBuffer> publisher) {
        publisher.subscribe(new BodySubscriber(future, response, sink));
    }

    @Override
    public void exceptionOccurred(Throwable error) {
        CompletableFuture<Fetched> f = future;
        if (f != null) {
            f.completeExceptionally(error);
        }
    }

    /**
     * Where the body's bytes go: {@code skip} bytes dropped, then the parts in order (each cut
     * where the body ends), then anything after the parts dropped. Confined to one attempt.
     */
    private static final class Sink {
        private final byte[][] parts;
        private final long bodyLength;
        private long toSkip;
        private int part;
        private int inPart;
        private long received;

        Sink(long skip, int[] sizes, long bodyLength) {
            this.bodyLength = bodyLength;
            this.toSkip = skip;
            long left = Math.max(0, bodyLength - skip);
            parts = new byte[sizes.length][];
            for (int i = 0; i < sizes.length; i++) {
                int n = (int) Math.min(sizes[i], left);
                parts[i] = new byte[n];
                left -= n;
            }
        }

        /** Takes a chunk; false if the body is longer than its Content-Length. */
        boolean accept(ByteBuffer chunk) {
            received += chunk.remaining();
            if (received > bodyLength) {
                return false;
            }
            if (toSkip > 0) {
                int n = (int) Math.min(toSkip, chunk.remaining());
                chunk.position(chunk.position() + n);
                toSkip -= n;
            }
            while (chunk.hasRemaining() && part < parts.length) {
                byte[] target = parts[part];
                int n = Math.min(chunk.remaining(), target.length - inPart);
                chunk.get(target, inPart, n);
                inPart += n;
                if (inPart == target.length) {
                    part++;
                    inPart = 0;
                }
            }
            return true; // bytes past the last part are dropped
        }

        boolean complete() {
            return received == bodyLength;
        }

        List<ByteBuffer> buffers() {
            List<ByteBuffer> out = new ArrayList<>(parts.length);
            for (byte[] p : parts) {
                out.add(ByteBuffer.wrap(p));
            }
            return out;
        }
    }

    private static final class BodySubscriber implements Subscriber<ByteBuffer> {
        private final CompletableFuture<Fetched> future;
        private final GetObjectResponse response;
        private final Sink sink;
        private Subscription subscription;

        BodySubscriber(CompletableFuture<Fetched> future, GetObjectResponse response, Sink sink) {
            this.future = future;
            this.response = response;
            this.sink = sink;
        }

        @Override
        public void onSubscribe(Subscription s) {
            subscription = s;
            if (sink == null || future.isDone()) {
                s.cancel();
                return;
            }
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(ByteBuffer chunk) {
            if (!sink.accept(chunk)) {
                subscription.cancel();
                future.completeExceptionally(new IllegalStateException(
                        "GetObject body is longer than its Content-Length " + sink.bodyLength));
            }
        }

        @Override
        public void onError(Throwable error) {
            future.completeExceptionally(error);
        }

        @Override
        public void onComplete() {
            if (!sink.complete()) {
                future.completeExceptionally(new IllegalStateException("GetObject body ended after " + sink.received
                        + " of " + sink.bodyLength + " bytes"));
            } else {
                future.complete(new Fetched(response, sink.buffers()));
            }
        }
    }
}
