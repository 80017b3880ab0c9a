package io.aloft.stream.storage;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.async.SdkPublisher;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * Collects a GetObject body into one heap buffer sized from Content-Length, so a read costs one
 * allocation and one copy (the SDK's byte-array transformer grows a stream and copies again).
 *
 * <p>Confined to one request: the SDK calls {@link #prepare()} again for each retry attempt,
 * which resets the state; the reactive-streams rules serialize the signals within an attempt.
 */
final class S3GetTransformer implements AsyncResponseTransformer<GetObjectResponse, S3GetTransformer.Fetched> {

    /** A response and its body; the body buffer belongs to the caller. */
    record Fetched(GetObjectResponse response, ByteBuffer body) {
    }

    private static final int MAX_BODY = Integer.MAX_VALUE - 16;

    private volatile CompletableFuture<Fetched> future;
    private volatile GetObjectResponse response;
    private volatile byte[] body;

    @Override
    public CompletableFuture<Fetched> prepare() {
        CompletableFuture<Fetched> f = new CompletableFuture<>();
        future = f;
        response = null;
        body = null;
        return f;
    }

    @Override
    public void onResponse(GetObjectResponse r) {
        response = r;
        Long length = r.contentLength();
        if (length == null) {
            future.completeExceptionally(new IllegalStateException("GetObject response has no Content-Length"));
        } else if (length > MAX_BODY) {
            future.completeExceptionally(new IllegalStateException(
                    "object body of " + length + " bytes does not fit one buffer; read it by range"));
        } else {
            body = new byte[(int) (long) length];
        }
    }

    @Override
    public void onStream(SdkPublisher<ByteBuffer> publisher) {
        publisher.subscribe(new BodySubscriber(future, response, body));
    }

    @Override
    public void exceptionOccurred(Throwable error) {
        CompletableFuture<Fetched> f = future;
        if (f != null) {
            f.completeExceptionally(error);
        }
    }

    private static final class BodySubscriber implements Subscriber<ByteBuffer> {
        private final CompletableFuture<Fetched> future;
        private final GetObjectResponse response;
        private final byte[] body;
        private int written;
        private Subscription subscription;

        BodySubscriber(CompletableFuture<Fetched> future, GetObjectResponse response, byte[] body) {
            this.future = future;
            this.response = response;
            this.body = body;
        }

        @Override
        public void onSubscribe(Subscription s) {
            subscription = s;
            if (body == null || future.isDone()) {
                s.cancel();
                return;
            }
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(ByteBuffer chunk) {
            int n = chunk.remaining();
            if (n > body.length - written) {
                subscription.cancel();
                future.completeExceptionally(new IllegalStateException(
                        "GetObject body is longer than its Content-Length " + body.length));
                return;
            }
            chunk.get(body, written, n);
            written += n;
        }

        @Override
        public void onError(Throwable error) {
            future.completeExceptionally(error);
        }

        @Override
        public void onComplete() {
            if (written != body.length) {
                future.completeExceptionally(new IllegalStateException("GetObject body ended after " + written
                        + " of " + body.length + " bytes"));
            } else {
                future.complete(new Fetched(response, ByteBuffer.wrap(body)));
            }
        }
    }
}
