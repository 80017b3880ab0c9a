package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.log.LogReadResult;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.partition.PartitionManager;
import io.aloft.controller.model.TopicInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;

/**
 * Fetch for consumers (read_uncommitted and read_committed read the same: there are no
 * transactions yet). Sessionless: the response's session id is 0, so clients send full fetch
 * requests, as KIP-227 allows a broker to choose. When less than {@code min_bytes} is available
 * the request waits up to {@code max_wait_ms}, and is woken by the first append to any of its
 * partitions rather than by polling.
 *
 * <p>Stateless; runs on the network thread, completes on the stream store's or the timer's.
 */
public final class FetchHandler implements ApiHandler<FetchRequest> {
    private final MetadataCache cache;
    private final PartitionManager partitions;
    private final ScheduledExecutorService timer;

    public FetchHandler(MetadataCache cache, PartitionManager partitions, ScheduledExecutorService timer) {
        this.cache = cache;
        this.partitions = partitions;
        this.timer = timer;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.FETCH;
    }

    @Override
    public short minVersion() {
        return 4; // the oldest Kafka 4.x brokers serve
    }

    /** One requested partition, resolved. */
    private record Wanted(String topicName, Uuid topicId, FetchPartition request, TopicPartition tp, Errors error) {
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, FetchRequest request) {
        if (request.data().replicaId() >= 0 || (request.data().replicaState() != null
                && request.data().replicaState().replicaId() >= 0)) {
            // Follower fetches: data is shared, there are no followers to replicate to. Each partition
            // is refused, as Kafka refuses a fetch from a broker that is not its follower.
            Pass refused = new Pass();
            for (Wanted w : resolve(request)) {
                refused.data.put(w, emptyData(w.request()).setErrorCode((w.error() != Errors.NONE ? w.error()
                        : Errors.NOT_LEADER_OR_FOLLOWER).code()));
            }
            return CompletableFuture.completedFuture(FetchResponse.of(refused.toData()));
        }
        List<Wanted> wanted = resolve(request);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, request.data().maxWaitMs()));
        return readAll(wanted, request).thenCompose(first -> {
            if (first.bytes >= Math.max(1, request.data().minBytes()) || request.data().maxWaitMs() <= 0
                    || first.hasError) {
                return CompletableFuture.completedFuture(first);
            }
            return waitForData(wanted, deadline).thenCompose(v -> readAll(wanted, request));
        }).thenApply(result -> (AbstractResponse) FetchResponse.of(result.toData()));
    }

    private List<Wanted> resolve(FetchRequest request) {
        List<Wanted> out = new ArrayList<>();
        MetadataCache.View view = cache.view();
        for (FetchTopic t : request.data().topics()) {
            String name = t.topic();
            Errors topicError = Errors.NONE;
            if ((name == null || name.isEmpty()) && t.topicId() != null && !Uuid.ZERO_UUID.equals(t.topicId())) {
                TopicInfo topic = view.topic(new UUID(t.topicId().getMostSignificantBits(),
                        t.topicId().getLeastSignificantBits()));
                name = topic == null ? null : topic.name();
                if (topic == null) {
                    topicError = Errors.UNKNOWN_TOPIC_ID;
                }
            }
            for (FetchPartition p : t.partitions()) {
                out.add(new Wanted(name, t.topicId(), p, name == null ? null : new TopicPartition(name, p.partition()),
                        topicError));
            }
        }
        return out;
    }

    /** What one pass over the partitions found. */
    private static final class Pass {
        final Map<Wanted, PartitionData> data = new LinkedHashMap<>();
        int bytes;
        boolean hasError;

        FetchResponseData toData() {
            Map<String, FetchableTopicResponse> topics = new LinkedHashMap<>();
            data.forEach((w, pd) -> topics.computeIfAbsent(w.topicName() + "/" + w.topicId(), k ->
                    new FetchableTopicResponse().setTopic(w.topicName() == null ? "" : w.topicName())
                            .setTopicId(w.topicId() == null ? Uuid.ZERO_UUID : w.topicId())
                            .setPartitions(new ArrayList<>())).partitions().add(pd));
            return new FetchResponseData().setThrottleTimeMs(0).setErrorCode(Errors.NONE.code()).setSessionId(0)
                    .setResponses(new ArrayList<>(topics.values()));
        }
    }

    /** Reads partitions one after the other, within the request's byte budgets. */
    private CompletableFuture<Pass> readAll(List<Wanted> wanted, FetchRequest request) {
        Pass pass = new Pass();
        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        for (Wanted w : wanted) {
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

    private CompletableFuture<PartitionData> readOne(Wanted w, int bytesLeft, boolean firstWithData) {
        FetchPartition p = w.request();
        PartitionData pd = emptyData(p);
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

    private static PartitionData emptyData(FetchPartition p) {
        return new PartitionData().setPartitionIndex(p.partition()).setHighWatermark(-1).setLastStableOffset(-1)
                .setLogStartOffset(-1).setRecords(MemoryRecords.EMPTY);
    }

    /** Kafka's leader-epoch check: -1 skips it; older is fenced, newer is not known here yet. */
    static Errors checkEpoch(int requested, int current) {
        if (requested < 0 || requested == current) {
            return Errors.NONE;
        }
        return requested < current ? Errors.FENCED_LEADER_EPOCH : Errors.UNKNOWN_LEADER_EPOCH;
    }

    /** Completes when any wanted partition gets data past its fetch offset, or at the deadline. */
    private CompletableFuture<Void> waitForData(List<Wanted> wanted, long deadlineNanos) {
        CompletableFuture<Void> woken = new CompletableFuture<>();
        for (Wanted w : wanted) {
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
