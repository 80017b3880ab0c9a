package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.fetch.FetchPlan;
import io.aloft.broker.fetch.FetchSessionManager;
import io.aloft.broker.fetch.FetchTarget;
import io.aloft.broker.log.LogReadResult;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.partition.PartitionManager;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;

/**
 * Fetch for consumers (read_uncommitted and read_committed read the same: there are no
 * transactions yet). Which partitions a fetch reads and which it answers follow its incremental
 * fetch session (KIP-227, see {@link FetchSessionManager}): all of a full fetch's, or all of the
 * session's for an incremental one, which answers only partitions with news. When less than
 * {@code min_bytes} is available the request waits up to {@code max_wait_ms}, and is woken by the
 * first append to any of the partitions it reads rather than by polling.
 *
 * <p>Thread-safe: runs on any network thread; the sessions guard their own state.
 */
public final class FetchHandler implements ApiHandler<FetchRequest> {
    private final MetadataCache cache;
    private final PartitionManager partitions;
    private final ScheduledExecutorService timer;
    private final FetchSessionManager sessions;

    public FetchHandler(MetadataCache cache, PartitionManager partitions, ScheduledExecutorService timer,
            FetchSessionManager sessions) {
        this.cache = cache;
        this.partitions = partitions;
        this.timer = timer;
        this.sessions = sessions;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.FETCH;
    }

    @Override
    public short minVersion() {
        return 4; // the oldest Kafka 4.x brokers serve
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, FetchRequest request) {
        if (request.data().replicaId() >= 0 || (request.data().replicaState() != null
                && request.data().replicaState().replicaId() >= 0)) {
            // Follower fetches: data is shared, there are no followers to replicate to.
            return CompletableFuture.completedFuture(request.getErrorResponse(0,
                    Errors.NOT_LEADER_OR_FOLLOWER.exception("replica fetches are not served")));
        }
        FetchPlan plan = sessions.plan(request, cache.view());
        List<FetchTarget> wanted = plan.targets();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, request.data().maxWaitMs()));
        return readAll(wanted, request).thenCompose(first -> {
            // Nothing to read (a session error, say) cannot get better by waiting: answer at once, as Kafka does.
            if (first.bytes >= Math.max(1, request.data().minBytes()) || request.data().maxWaitMs() <= 0
                    || first.hasError || wanted.isEmpty()) {
                return CompletableFuture.completedFuture(first);
            }
            return waitForData(wanted, deadline).thenCompose(v -> readAll(wanted, request));
        }).thenApply(result -> (AbstractResponse) FetchResponse.of(plan.respond(result.data)));
    }

    /** What one pass over the partitions found. */
    private static final class Pass {
        final Map<FetchTarget, PartitionData> data = new LinkedHashMap<>();
        int bytes;
        boolean hasError;
    }

    /** Reads partitions one after the other, within the request's byte budgets. */
    private CompletableFuture<Pass> readAll(List<FetchTarget> wanted, FetchRequest request) {
        Pass pass = new Pass();
        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        for (FetchTarget w : wanted) {
            chain = chain.thenCompose(v -> readOne(w, request.data().maxBytes() - pass.bytes, pass.bytes == 0)
                    .thenAccept(pd -> {
                        pass.data.put(w, pd);
                        if (pd.records() instanceof MemoryRecords r) {
                            pass.bytes += r.sizeInBytes();
                        }
                        if (pd.errorCode() != Errors.NONE.code()) {
                            pass.hasError = true;
                        }
                    }));
        }
        return chain.thenApply(v -> pass);
    }

    private CompletableFuture<PartitionData> readOne(FetchTarget w, int bytesLeft, boolean firstWithData) {
        FetchPartition p = w.request();
        PartitionData pd = new PartitionData().setPartitionIndex(p.partition()).setHighWatermark(-1)
                .setLastStableOffset(-1).setLogStartOffset(-1).setRecords(MemoryRecords.EMPTY);
        if (w.error() != Errors.NONE || w.tp() == null) {
            return CompletableFuture.completedFuture(pd.setErrorCode(
                    (w.error() != Errors.NONE ? w.error() : Errors.UNKNOWN_TOPIC_OR_PARTITION).code()));
        }
        return partitions.leaderLog(w.tp()).thenCompose(log -> {
            Errors epochError = checkEpoch(p.currentLeaderEpoch(), log.leaderEpoch());
            if (epochError != Errors.NONE) {
                return CompletableFuture.completedFuture(pd.setErrorCode(epochError.code()));
            }
            int budget = Math.max(0, Math.min(p.partitionMaxBytes(), bytesLeft));
            return log.read(p.fetchOffset(), budget, firstWithData).thenApply((LogReadResult r) -> pd
                    .setErrorCode(Errors.NONE.code()).setHighWatermark(r.highWatermark())
                    .setLastStableOffset(r.highWatermark()).setLogStartOffset(r.logStartOffset())
                    .setRecords(r.records()));
        }).exceptionally(e -> pd.setErrorCode(PartitionErrors.toKafka(e).code()));
    }

    /** Kafka's leader-epoch check: -1 skips it; older is fenced, newer is not known here yet. */
    static Errors checkEpoch(int requested, int current) {
        if (requested < 0 || requested == current) {
            return Errors.NONE;
        }
        return requested < current ? Errors.FENCED_LEADER_EPOCH : Errors.UNKNOWN_LEADER_EPOCH;
    }

    /** Completes when any wanted partition gets data past its fetch offset, or at the deadline. */
    private CompletableFuture<Void> waitForData(List<FetchTarget> wanted, long deadlineNanos) {
        CompletableFuture<Void> woken = new CompletableFuture<>();
        for (FetchTarget w : wanted) {
            if (w.tp() == null) {
                continue;
            }
            partitions.leaderLog(w.tp()).thenCompose((PartitionLog log) -> log.awaitData(w.request().fetchOffset()))
                    .whenComplete((v, e) -> woken.complete(null));
        }
        long delay = Math.max(0, deadlineNanos - System.nanoTime());
        timer.schedule(() -> woken.complete(null), delay, TimeUnit.NANOSECONDS);
        return woken;
    }
}
