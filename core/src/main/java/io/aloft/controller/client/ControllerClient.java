package io.aloft.controller.client;

import io.aloft.controller.ControllerConfig;
import io.aloft.controller.ControllerException;
import io.aloft.controller.RaftSetup;
import io.aloft.controller.codec.ControllerCodec;
import io.aloft.controller.codec.ControllerSchemas;
import io.aloft.controller.codec.MalformedDataException;
import io.aloft.controller.codec.SchemaRegistry;
import io.aloft.controller.command.Failure;
import io.aloft.controller.command.Reply;
import io.aloft.controller.command.Request;
import io.aloft.controller.command.RequestBatch;
import io.aloft.controller.command.UpdateFeatureLevel;
import io.aloft.controller.model.FeatureRange;
import io.aloft.stream.metadata.StreamMetadataException;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
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
 * <p>Feature levels: requests are encoded at the cluster's finalized feature level as this client
 * last learned it (every reply carries the level its voter knows), capped by what this build
 * supports; until the first reply, at the lowest level this build supports.
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
    /** Most commands in one log entry (a commit is ~200 bytes, so a batch stays far below Raft's message limit). */
    private static final int MAX_BATCH = 256;

    private final ControllerConfig config;
    private final ControllerCodec codec;
    /** The highest finalized feature level any reply reported. */
    private final AtomicInteger knownLevel;
    private final RaftClient[] clients;
    /**
     * For reads, which go to one chosen voter: no Ratis-level retries (they would keep asking a
     * stopped voter for up to the request timeout); {@link #attempt} retries on another voter.
     */
    private final RaftClient[] readClients;
    /**
     * For {@link #submitNow} (heartbeats): its own connection, so nothing queued ahead of it, and a
     * short RPC timeout, so a leader that went silent (paused, cut off) costs one short wait before
     * Ratis tries another voter, instead of the 10 s the other clients allow a reply.
     */
    private volatile RaftClient livenessClient;
    private final AtomicInteger nextClient = new AtomicInteger();
    private final UUID clientId = UUID.randomUUID();
    private final AtomicLong sequence = new AtomicLong();
    /**
     * The highest log index this node is known to depend on: its own acknowledged writes and what
     * its change-feed watcher delivered. Reads wait until the voter asked has applied it, so a
     * broker acting on a change it was told about (another broker's CreateTopics, a move) never
     * reads state from before that change on a lagging follower.
     */
    private final AtomicLong lastSeenIndex = new AtomicLong(0);
    private final AtomicInteger nextReadPeer = new AtomicInteger();
    private final List<RaftPeerId> peers;
    private final ScheduledExecutorService retryTimer;
    private final Thread.UncaughtExceptionHandler uncaughtHandler;
    /** Completes replies and sends follow-up batches; callers' future callbacks run here too. */
    private final ExecutorService callbacks;
    private final Object batchLock = new Object();
    // Guarded by batchLock.
    private final ArrayDeque<Pending> queued = new ArrayDeque<>();
    private int batchesInFlight;
    private volatile boolean closed;

    private ControllerClient(ControllerConfig config, SchemaRegistry registry,
            Thread.UncaughtExceptionHandler uncaughtHandler) {
        this.config = config;
        this.codec = new ControllerCodec(registry);
        this.knownLevel = new AtomicInteger(registry.supported().minLevel());
        this.uncaughtHandler = uncaughtHandler;
        this.peers = config.voters().stream().map(v -> RaftSetup.peerId(v.id())).toList();
        this.clients = new RaftClient[config.clientConnections()];
        this.readClients = new RaftClient[config.clientConnections()];
        for (int i = 0; i < clients.length; i++) {
            clients[i] = RaftClients.operation(config);
            readClients[i] = RaftClients.operation(config, RetryPolicies.noRetry());
        }
        this.livenessClient = RaftClients.liveness(config);
        this.retryTimer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "controller-client-retry");
            t.setDaemon(true);
            t.setUncaughtExceptionHandler(uncaughtHandler);
            return t;
        });
        // A pool, not one thread: a caller's callback may block on another controller future.
        this.callbacks = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "controller-client-callback");
            t.setDaemon(true);
            t.setUncaughtExceptionHandler(uncaughtHandler);
            return t;
        });
    }

    /** A client of the quorum in {@code config.voters()} (the node itself need not be a voter). */
    public static ControllerClient create(ControllerConfig config) {
        return create(config, ControllerSchemas.REGISTRY);
    }

    /** A client that writes and reads with {@code registry}'s schemas (tests inject record versions this way). */
    public static ControllerClient create(ControllerConfig config, SchemaRegistry registry) {
        return create(config, registry, (thread, error) -> log.error("Uncaught exception on controller client "
                + "thread {}", thread.getName(), error));
    }

    /**
     * As {@link #create(ControllerConfig)}, with {@code uncaughtHandler} set on the client's threads
     * and told of a retry that throws (its request then fails with that error): a client whose
     * retries stop would leave requests unanswered for good.
     */
    public static ControllerClient create(ControllerConfig config, Thread.UncaughtExceptionHandler uncaughtHandler) {
        return create(config, ControllerSchemas.REGISTRY, uncaughtHandler);
    }

    /** As {@link #create(ControllerConfig, SchemaRegistry)}, with {@code uncaughtHandler} on the client's threads. */
    public static ControllerClient create(ControllerConfig config, SchemaRegistry registry,
            Thread.UncaughtExceptionHandler uncaughtHandler) {
        return new ControllerClient(config, registry,
                java.util.Objects.requireNonNull(uncaughtHandler, "uncaughtHandler"));
    }

    /** The feature levels this client's build supports (brokers report them when they register). */
    public FeatureRange supportedFeatures() {
        return codec.registry().supported();
    }

    /** The cluster's finalized feature level as this client last learned it from a reply. */
    public int featureLevel() {
        return knownLevel.get();
    }

    ControllerCodec codec() {
        return codec;
    }

    /** {@code value} as a frame at the level requests are encoded at (see the class comment). */
    byte[] encode(Object value) {
        FeatureRange supported = codec.registry().supported();
        int level = Math.max(supported.minLevel(), Math.min(knownLevel.get(), supported.maxLevel()));
        return codec.encode(value, level, knownLevel.get());
    }

    /** Decodes a reply frame and learns the finalized level its voter reported. */
    Reply decodeReply(byte[] frame) {
        ControllerCodec.Decoded decoded = codec.decode(frame);
        knownLevel.accumulateAndGet(decoded.header().knownLevel(), Math::max);
        if (!(decoded.value() instanceof Reply reply)) {
            throw new MalformedDataException("expected a Reply, got " + (decoded.value() == null ? "null"
                    : decoded.value().getClass().getSimpleName()));
        }
        return reply;
    }

    ControllerConfig config() {
        return config;
    }

    /**
     * Replicates {@code command} at once, on a connection of its own with a short reply timeout,
     * retrying until {@code broker.session.timeout.ms} (an older heartbeat is worthless): for
     * heartbeats, which must reach the leader within the session even while another voter's
     * process is paused or the quorum elects a new leader. The batched {@link #submit} path would
     * queue it behind entries in flight to a leader that went silent, for that client's 10 s
     * timeout, and the controller would fence every broker.
     */
    public CompletableFuture<Object> submitNow(Object command) {
        Request request = new Request(clientId, sequence.incrementAndGet(), System.currentTimeMillis(), command);
        Message message;
        try {
            message = Message.valueOf(ByteString.copyFrom(encode(request)));
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new ControllerException(ControllerException.Code.INVALID_REQUEST,
                    "cannot encode the command: " + e.getMessage()));
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.sessionTimeoutMs());
        return send(c -> c.async().send(message), deadline, command, () -> livenessClient);
    }

    /** As {@link #submitNow(Object)}, the reply cast to {@code type}. */
    public <T> CompletableFuture<T> submitNow(Object command, Class<T> type) {
        return submitNow(command).thenApply(v -> v == null ? null : type.cast(v));
    }

    /**
     * Replicates {@code command} (a command record of {@code io.aloft.controller.command} or
     * s3stream's metadata requests). Commands submitted while others are in flight may be applied
     * in any order relative to those: a caller that needs an order waits for the earlier future.
     */
    public CompletableFuture<Object> submit(Object command) {
        return submitRequest(new Request(clientId, sequence.incrementAndGet(), System.currentTimeMillis(), command));
    }

    /** Sends a request with the id it already has (tests send one request twice, as a retry would). */
    CompletableFuture<Object> submitRequest(Request request) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        List<Pending> batch = null;
        synchronized (batchLock) {
            queued.add(new Pending(request, result));
            if (batchesInFlight < clients.length) {
                batch = drainLocked();
            }
        }
        if (batch != null) {
            sendBatch(batch);
        }
        return result;
    }

    /** A submitted command waiting for its batch. */
    private record Pending(Request request, CompletableFuture<Object> result) {
    }

    // Guarded by batchLock.
    private List<Pending> drainLocked() {
        List<Pending> batch = new ArrayList<>(Math.min(queued.size(), MAX_BATCH));
        while (!queued.isEmpty() && batch.size() < MAX_BATCH) {
            batch.add(queued.poll());
        }
        batchesInFlight++;
        return batch;
    }

    /**
     * Sends queued commands as one log entry. At most one batch per Raft client is in flight;
     * commands arriving meanwhile wait and go together in the next one, so batches grow with load
     * and a lone command is sent at once.
     */
    private void sendBatch(List<Pending> batch) {
        Object payload = batch.size() == 1 ? batch.get(0).request()
                : new RequestBatch(batch.stream().map(Pending::request).toList());
        CompletableFuture<Object> sent;
        try {
            Message message = Message.valueOf(ByteString.copyFrom(encode(payload)));
            sent = send(c -> c.async().send(message), deadline(), batch.get(0).request().command());
        } catch (IllegalArgumentException e) {
            // A command without a schema, or one the known feature level cannot represent: fail that
            // command, and send the others of the batch (in the same in-flight slot).
            List<Pending> encodable = new ArrayList<>(batch.size());
            for (Pending p : batch) {
                try {
                    encode(p.request());
                    encodable.add(p);
                } catch (IllegalArgumentException bad) {
                    p.result().completeExceptionally(new ControllerException(ControllerException.Code.INVALID_REQUEST,
                            "cannot encode the command: " + bad.getMessage()));
                }
            }
            if (!encodable.isEmpty() && encodable.size() < batch.size()) {
                sendBatch(encodable);
                return;
            }
            sent = CompletableFuture.failedFuture(new ControllerException(ControllerException.Code.INVALID_REQUEST,
                    "cannot encode the commands: " + e.getMessage()));
        }
        sent.whenComplete((value, error) -> {
            if (error != null) {
                batch.forEach(p -> p.result().completeExceptionally(error));
            } else if (batch.size() == 1) {
                batch.get(0).result().complete(value);
            } else {
                List<?> replies = (List<?>) value;
                for (int i = 0; i < batch.size(); i++) {
                    Reply r = (Reply) replies.get(i);
                    if (r.failure() == null) {
                        batch.get(i).result().complete(r.value());
                    } else {
                        batch.get(i).result().completeExceptionally(toException(r.failure()));
                    }
                }
            }
            List<Pending> next = null;
            synchronized (batchLock) {
                batchesInFlight--;
                if (!queued.isEmpty()) {
                    next = drainLocked();
                }
            }
            if (next != null) {
                sendBatch(next);
            }
        });
    }

    /** Answers {@code query} (a record of {@link io.aloft.controller.query.Queries}) from the leader's applied state. */
    public CompletableFuture<Object> query(Object query) {
        Message message;
        try {
            message = Message.valueOf(ByteString.copyFrom(encode(query)));
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new ControllerException(ControllerException.Code.INVALID_REQUEST,
                    "cannot encode the query: " + e.getMessage()));
        }
        // Read-your-writes without Ratis's read-index path (which netty followers cannot forward):
        // the chosen voter answers once it has applied everything this node saw (its writes, its
        // change feed). The leader is
        // asked when known, else the voters in turn.
        long minIndex = lastSeenIndex.get();
        if (minIndex == 0) {
            // No write yet, so no index to wait for: a voter still replaying its log after a restart
            // would answer a stale read from an old state (a restarted broker then read old stream
            // epochs and dropped acknowledged data; RestartReadTest). The leader answers read-only
            // requests only once it has applied every entry of earlier terms.
            return send(c -> c.async().sendReadOnly(message), deadline(), query);
        }
        AtomicInteger attempt = new AtomicInteger();
        return send(c -> c.async().sendStaleRead(message, minIndex, readTarget(c, attempt.getAndIncrement())),
                deadline(), query, this::nextReadClient);
    }

    /** Later reads wait for log {@code index} to be applied where they are answered (see {@link #lastSeenIndex}). */
    void observed(long index) {
        lastSeenIndex.accumulateAndGet(index, Math::max);
    }

    long lastSeenIndex() {
        return lastSeenIndex.get();
    }

    /**
     * The voter asked by a read's {@code attempt}-th try: the leader, which has applied everything
     * this node saw (writes are acknowledged once applied there, and the watcher reads from it).
     * A follower usually trails the newest entries by a heartbeat, and its StaleReadException
     * would close the read client's ordered pipeline to it, failing every read queued there
     * (seen as a storm of retries while a broker opened hundreds of partitions). Retries
     * alternate between the leader and the other voters in turn, so a stale leader id (a stopped
     * voter) does not pin reads.
     */
    private RaftPeerId readTarget(RaftClient client, int attempt) {
        // The heartbeats' client knows the leader best: it talks to it every heartbeat interval and
        // follows a change within a short timeout, while an idle write client may still name a leader
        // that went silent long ago.
        RaftPeerId leader = livenessClient.getLeaderId();
        if (leader == null) {
            leader = clients[0].getLeaderId();
        }
        if (leader == null) {
            leader = client.getLeaderId();
        }
        if (leader != null && attempt % 2 == 0) {
            return leader;
        }
        return peers.get(Math.floorMod(nextReadPeer.getAndIncrement(), peers.size()));
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
        return send(call, deadlineNanos, what, this::nextRaftClient);
    }

    private CompletableFuture<Object> send(Function<RaftClient, CompletableFuture<RaftClientReply>> call,
            long deadlineNanos, Object what, Supplier<RaftClient> pick) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        long timeoutNanos = deadlineNanos - System.nanoTime();
        attempt(call, deadlineNanos, what, result, pick);
        // An attempt ends only when its Raft client gives up, which retries on its own for far
        // longer (a heartbeat waited 52 s with the quorum gone): the caller hears at the deadline.
        // The attempt may still be applied later; commands are idempotent by their request id.
        if (!result.isDone()) {
            try {
                ScheduledFuture<?> timeout = retryTimer.schedule(() -> runCallback(() -> result.completeExceptionally(
                        new ControllerException(ControllerException.Code.UNAVAILABLE, "no controller answered "
                                + what.getClass().getSimpleName() + " within "
                                + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms"))),
                        Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
                result.whenComplete((v, e) -> timeout.cancel(false));
            } catch (RejectedExecutionException closing) {
                // closed: the attempt fails on its own
            }
        }
        return result;
    }

    /**
     * A Raft client closes its ordered pipeline for good once its retry policy gives up (a read
     * client without retries after one failure; the others after their attempts, which a dead
     * leader refusing connections uses up in seconds): swap in a fresh one so requests recover.
     */
    private void replaceBrokenClient(RaftClient broken) {
        RaftClient replaced = null;
        synchronized (readClients) {
            if (closed) {
                return;
            }
            for (int i = 0; i < readClients.length; i++) {
                if (readClients[i] == broken) {
                    readClients[i] = RaftClients.operation(config, RetryPolicies.noRetry());
                    replaced = broken;
                }
            }
            for (int i = 0; i < clients.length; i++) {
                if (clients[i] == broken) {
                    clients[i] = RaftClients.operation(config);
                    replaced = broken;
                }
            }
            if (livenessClient == broken) {
                livenessClient = RaftClients.liveness(config);
                replaced = broken;
            }
        }
        if (replaced != null) {
            log.info("Replaced a controller client whose Raft pipeline closed after its retries ran out");
            try {
                replaced.close();
            } catch (IOException | RuntimeException e) {
                log.debug("Closing a broken Raft client failed", e);
            }
        }
    }

    private RaftClient nextReadClient() {
        synchronized (readClients) {
            return readClients[Math.floorMod(nextClient.getAndIncrement(), readClients.length)];
        }
    }

    private RaftClient nextRaftClient() {
        return clients[Math.floorMod(nextClient.getAndIncrement(), clients.length)];
    }

    private void attempt(Function<RaftClient, CompletableFuture<RaftClientReply>> call, long deadlineNanos,
            Object what, CompletableFuture<Object> result, Supplier<RaftClient> pick) {
        RaftClient client = pick.get();
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
        // Never continue on a Ratis thread: the next batch is sent from here, and Ratis's ordered
        // sender is not safe to re-enter from its own reply handling (requests were lost that way).
        sent.whenCompleteAsync((reply, error) -> {
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause == null && reply.isSuccess()) {
                if (reply.getLogIndex() > 0) {
                    observed(reply.getLogIndex());
                }
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
            if (why instanceof AlreadyClosedException) {
                replaceBrokenClient(client);
            }
            log.debug("Retrying {} after {}", what.getClass().getSimpleName(), String.valueOf(why));
            // The same bytes again (same request id), possibly through another Raft client.
            retryTimer.schedule(() -> retry(call, deadlineNanos, what, result, pick),
                    RaftClients.RETRY_SLEEP_MS, TimeUnit.MILLISECONDS);
        }, this::runCallback);
    }

    /**
     * A retry on the timer thread. What it throws would stay in the timer's future, unseen, and
     * the request would never be answered: fail the request and report the error instead.
     */
    private void retry(Function<RaftClient, CompletableFuture<RaftClientReply>> call, long deadlineNanos,
            Object what, CompletableFuture<Object> result, Supplier<RaftClient> pick) {
        try {
            attempt(call, deadlineNanos, what, result, pick);
        } catch (Throwable t) {
            result.completeExceptionally(t);
            uncaughtHandler.uncaughtException(Thread.currentThread(), t);
        }
    }

    /** Runs on a callback thread; inline once closed (the pool is gone, and pending futures must still complete). */
    private void runCallback(Runnable task) {
        try {
            callbacks.execute(task);
        } catch (RejectedExecutionException e) {
            task.run();
        }
    }

    private void complete(RaftClientReply raftReply, CompletableFuture<Object> result) {
        Reply reply;
        try {
            reply = decodeReply(raftReply.getMessage().getContent().toByteArray());
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

    /**
     * Raises the cluster's finalized feature level to {@code level}: reads the voters of the current
     * Raft configuration from Ratis and submits an {@link UpdateFeatureLevel} naming them, which the
     * state accepts only if all of them (and every unfenced broker) support the level. Completes
     * with the finalized level.
     */
    public CompletableFuture<Integer> updateFeatureLevel(int level) {
        return currentVoterIds().thenCompose(ids -> submit(new UpdateFeatureLevel(level, ids), Integer.class));
    }

    /** The voter ids of the current Raft configuration, as the first voter that answers describes it. */
    public CompletableFuture<List<Integer>> currentVoterIds() {
        return CompletableFuture.supplyAsync(() -> RaftClients.voterIds(config, peers), this::runCallback);
    }

    /** A dedicated Raft client for the watcher's polls, which would otherwise queue in the ordered pipelines. */
    RaftClient newWatchClient() {
        return RaftClients.watch(config);
    }

    @Override
    public void close() throws IOException {
        closed = true;
        retryTimer.shutdownNow();
        IOException first = null;
        List<RaftClient> all = new ArrayList<>(List.of(clients));
        all.add(livenessClient);
        synchronized (readClients) {
            all.addAll(List.of(readClients));
        }
        for (RaftClient c : all) {
            try {
                c.close();
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        callbacks.shutdown();
        if (first != null) {
            throw first;
        }
    }
}
