package io.aloft.stream.storage;

import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.async.AsyncRequestBody;

/**
 * A {@link PutBody} as the AWS SDK's request body: the SDK (its HTTP client) subscribes once per
 * attempt, and each subscription reads a new pass, one chunk per unit of demand, so a retried
 * PUT sends the body again from its first byte. The SDK may keep the buffers it is given (it
 * buffers as it likes), so each lent chunk is copied into a fresh heap buffer that moves to it.
 *
 * <p>Thread-safe: signals to the subscriber are serialized by a work-in-progress counter (the
 * usual Reactive Streams drain loop); chunks arrive on whatever thread completes the pass's future.
 */
final class PutBodyRequestBody implements AsyncRequestBody {
    private final PutBody body;

    PutBodyRequestBody(PutBody body) {
        this.body = body;
    }

    @Override
    public Optional<Long> contentLength() {
        return Optional.of(body.length());
    }

    @Override
    public void subscribe(Subscriber<? super ByteBuffer> subscriber) {
        PassSubscription subscription = new PassSubscription(subscriber, body.open(), body.length());
        subscriber.onSubscribe(subscription);
    }

    private static final class PassSubscription implements Subscription {
        private final Subscriber<? super ByteBuffer> subscriber;
        private final PutBody.Pass pass;
        private final long length;
        private final AtomicLong demand = new AtomicLong();
        private final AtomicInteger wip = new AtomicInteger();
        // Written by the completing thread before it enters drain, read inside drain: wip orders them.
        private volatile ByteBuffer pendingChunk;
        private volatile Throwable pendingError;
        private volatile boolean pendingEnd;
        private volatile boolean fetching;
        private volatile boolean cancelled;
        private boolean terminated;
        private long sent;

        PassSubscription(Subscriber<? super ByteBuffer> subscriber, PutBody.Pass pass, long length) {
            this.subscriber = subscriber;
            this.pass = pass;
            this.length = length;
        }

        @Override
        public void request(long n) {
            if (n <= 0) {
                pendingError = new IllegalArgumentException("§3.9: request " + n + " is not positive");
            } else {
                demand.accumulateAndGet(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
            }
            drain();
        }

        @Override
        public void cancel() {
            cancelled = true;
            drain();
        }

        private void drain() {
            if (wip.getAndIncrement() != 0) {
                return;
            }
            int missed = 1;
            do {
                while (step()) {
                    // keep going while there is progress
                }
                missed = wip.addAndGet(-missed);
            } while (missed != 0);
        }

        /** One signal or one fetch; false when nothing can happen until a chunk or demand arrives. */
        private boolean step() {
            if (terminated) {
                return false;
            }
            if (cancelled) {
                terminated = true;
                pass.close();
                return false;
            }
            Throwable error = pendingError;
            if (error != null) {
                terminated = true;
                pass.close();
                subscriber.onError(error);
                return false;
            }
            ByteBuffer chunk = pendingChunk;
            if (chunk != null) {
                if (demand.get() == 0) {
                    return false;
                }
                pendingChunk = null;
                demand.decrementAndGet();
                subscriber.onNext(chunk);
                return true;
            }
            if (pendingEnd) {
                terminated = true;
                pass.close();
                subscriber.onComplete();
                return false;
            }
            if (!fetching && demand.get() > 0) {
                fetching = true;
                fetch();
                return true;
            }
            return false;
        }

        private void fetch() {
            try {
                pass.next().whenComplete(this::arrived);
            } catch (RuntimeException e) {
                arrived(null, e);
            }
        }

        private void arrived(ByteBuffer chunk, Throwable error) {
            if (error != null) {
                pendingError = error instanceof CompletionException && error.getCause() != null
                        ? error.getCause() : error;
            } else if (chunk == null) {
                if (sent != length) {
                    pendingError = new IllegalStateException("a body of " + length + " bytes ended after " + sent);
                } else {
                    pendingEnd = true;
                }
            } else if (sent + chunk.remaining() > length) {
                pendingError = new IllegalStateException("a body of " + length + " bytes produced more");
            } else {
                sent += chunk.remaining();
                // The pass takes its chunk back at the next call: the SDK gets a copy of its own.
                ByteBuffer copy = ByteBuffer.allocate(chunk.remaining());
                copy.put(chunk.duplicate()).flip();
                pendingChunk = copy;
            }
            fetching = false;
            drain();
        }
    }
}
