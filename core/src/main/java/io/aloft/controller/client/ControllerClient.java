package io.aloft.controller.client;

import io.aloft.controller.ControllerConfig;
import io.aloft.controller.ControllerException;
import io.aloft.controller.RaftSetup;
import io.aloft.controller.codec.Codecs;
import io.aloft.controller.codec.MalformedDataException;
import io.aloft.controller.command.Failure;
import io.aloft.controller.command.Reply;
import io.aloft.controller.command.Request;
import io.aloft.stream.metadata.StreamMetadataException;
import java.io.IOException;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker's connection to the controller quorum: submits commands and queries, follows leader
 * changes, and retries until {@code controller.request.timeout.ms}.
 *
 * <p>Idempotence: every command gets this client's id and a sequence number once, and every retry
 * resends the same bytes, so a command that reached the log before its leader died is applied
 * once and the retry receives its original reply.
 *
 * <p>Failures arrive in the returned futures: a rejected stream command as a
 * {@link StreamMetadataException}, a rejected cluster command as a {@link ControllerException},
 * and no answer within the timeout as {@link ControllerException.Code#UNAVAILABLE}.
 *
 * <p>Returned futures complete on the client's own callback threads, never on Ratis's: Ratis
 * delivers a reply while holding its connection's lock, and a caller's continuation that submits
 * the next request (through another connection, whose reply thread may be doing the same the
 * other way round) would deadlock on it.
 *
 * <p>Thread-safe.
 */
public final class ControllerClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ControllerClient.class);
    private static final long RETRY_SLEEP_MS = 100;

    private final ControllerConfig config;
    private final RaftClient[] clients;
    private final AtomicInteger nextClient = new AtomicInteger();
    private final UUID clientId = UUID.randomUUID();
    private final AtomicLong sequence = new AtomicLong();
    private final ScheduledExecutorService retryTimer;
    private final ExecutorService callbackPool;
    private volatile boolean closed;

    private ControllerClient(ControllerConfig config) {
        this.config = config;
        this.clients = new RaftClient[config.clientConnections()];
        for (int i = 0; i < clients.length; i++) {
            clients[i] = newRaftClient(config);
        }
        this.retryTimer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "controller-client-retry");
            t.setDaemon(true);
            return t;
        });
        // Unbounded but idle threads expire: a caller that blocks in a callback must not stall others.
        this.callbackPool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "controller-client-callback");
            t.setDaemon(true);
            return t;
        });
    }

    /** A client of the quorum in {@code config.voters()} (the node itself need not be a voter). */
    public static ControllerClient create(ControllerConfig config) {
        return new ControllerClient(config);
    }

    static RaftClient newRaftClient(ControllerConfig config) {
        // Bounded: Ratis's default retries forever without sleeping. Leader changes are retried here,
        // and again by submit() until the request timeout.
        int attempts = (int) Math.max(1, config.requestTimeoutMs() / RETRY_SLEEP_MS);
        return RaftClient.newBuilder()
                .setProperties(RaftSetup.baseProperties())
                .setRaftGroup(RaftSetup.group(config.voters()))
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(attempts,
                        TimeDuration.valueOf(RETRY_SLEEP_MS, TimeUnit.MILLISECONDS)))
                .build();
    }

    ControllerConfig config() {
        return config;
    }

    /** Replicates {@code command} (a command record of {@code io.aloft.controller.command} or s3stream's metadata requests). */
    public CompletableFuture<Object> submit(Object command) {
        return submitRequest(new Request(clientId, sequence.incrementAndGet(), System.currentTimeMillis(), command));
    }

    /** Sends a request with the id it already has (tests send one request twice, as a retry would). */
    CompletableFuture<Object> submitRequest(Request request) {
        Message message = Message.valueOf(ByteString.copyFrom(Codecs.CODEC.encode(request)));
        return send(c -> c.async().send(message), deadline(), request.command());
    }

    /** Answers {@code query} (a record of {@link io.aloft.controller.query.Queries}) from the leader's applied state. */
    public CompletableFuture<Object> query(Object query) {
        Message message = Message.valueOf(ByteString.copyFrom(Codecs.CODEC.encode(query)));
        return send(c -> c.async().sendReadOnly(message), deadline(), query);
    }

    /** {@link #submit}, with the result cast. */
    public <T> CompletableFuture<T> submit(Object command, Class<T> type) {
        return submit(command).thenApply(type::cast);
    }

    /** {@link #query}, with the result cast. */
    public <T> CompletableFuture<T> query(Object query, Class<T> type) {
        return query(query).thenApply(v -> v == null ? null : type.cast(v));
    }

    private long deadline() {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.requestTimeoutMs());
    }

    private CompletableFuture<Object> send(Function<RaftClient, CompletableFuture<RaftClientReply>> call,
            long deadlineNanos, Object what) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        attempt(call, deadlineNanos, what, result, nextRaftClient());
        return result;
    }

    private RaftClient nextRaftClient() {
        return clients[Math.floorMod(nextClient.getAndIncrement(), clients.length)];
    }

    private void attempt(Function<RaftClient, CompletableFuture<RaftClientReply>> call, long deadlineNanos,
            Object what, CompletableFuture<Object> result, RaftClient client) {
        if (closed) {
            result.completeExceptionally(new ControllerException(ControllerException.Code.UNAVAILABLE,
                    "controller client closed"));
            return;
        }
        CompletableFuture<RaftClientReply> sent;
        try {
            sent = call.apply(client);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        sent.whenCompleteAsync((reply, error) -> {
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause == null && reply.isSuccess()) {
                complete(reply, result);
                return;
            }
            Throwable why = cause != null ? cause : reply.getException();
            if (System.nanoTime() - deadlineNanos >= 0 || closed) {
                result.completeExceptionally(new ControllerException(ControllerException.Code.UNAVAILABLE,
                        "no controller answered " + what.getClass().getSimpleName() + " within "
                                + config.requestTimeoutMs() + " ms", why));
                return;
            }
            log.debug("Retrying {} after {}", what.getClass().getSimpleName(), String.valueOf(why));
            // The same bytes again (same request id), possibly through another Raft client.
            retryTimer.schedule(() -> attempt(call, deadlineNanos, what, result, nextRaftClient()),
                    RETRY_SLEEP_MS, TimeUnit.MILLISECONDS);
        }, this::runCallback);
    }

    /** Runs on a callback thread; inline once closed (the pool is gone, and pending futures must still complete). */
    private void runCallback(Runnable task) {
        try {
            callbackPool.execute(task);
        } catch (RejectedExecutionException e) {
            task.run();
        }
    }

    private static void complete(RaftClientReply raftReply, CompletableFuture<Object> result) {
        Reply reply;
        try {
            reply = Codecs.CODEC.decode(raftReply.getMessage().getContent().toByteArray(), Reply.class);
        } catch (MalformedDataException e) {
            result.completeExceptionally(new ControllerException(ControllerException.Code.INVALID_REQUEST,
                    "undecodable controller reply: " + e.getMessage()));
            return;
        }
        if (reply.failure() == null) {
            result.complete(reply.value());
        } else {
            result.completeExceptionally(toException(reply.failure()));
        }
    }

    /** The exception a failure reply stands for. */
    static RuntimeException toException(Failure f) {
        try {
            if (Failure.STREAM.equals(f.domain())) {
                return new StreamMetadataException(StreamMetadataException.Code.valueOf(f.code()), f.message());
            }
            return new ControllerException(ControllerException.Code.valueOf(f.code()), f.message());
        } catch (IllegalArgumentException unknownCode) {
            // From a newer controller: keep the text, with the nearest meaning.
            return new ControllerException(ControllerException.Code.INVALID_REQUEST, f.code() + ": " + f.message());
        }
    }

    /** A dedicated Raft client for the watcher's polls, which would otherwise queue in the ordered pipelines. */
    RaftClient newWatchClient() {
        return newRaftClient(config);
    }

    @Override
    public void close() throws IOException {
        closed = true;
        retryTimer.shutdownNow();
        IOException first = null;
        for (RaftClient c : clients) {
            try {
                c.close();
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        callbackPool.shutdown();
        if (first != null) {
            throw first;
        }
    }
}
