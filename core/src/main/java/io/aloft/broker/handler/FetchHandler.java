package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.fetch.FetchPlan;
import io.aloft.broker.fetch.FetchSessionManager;
import io.aloft.broker.fetch.FetchTarget;
import io.aloft.broker.log.AbortedTxn;
import io.aloft.broker.log.LogReadResult;
import io.aloft.broker.log.PartitionErrors;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.metrics.BrokerTopicMetrics;
import io.aloft.broker.partition.PartitionManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.LeaderIdAndEpoch;
import org.apache.kafka.common.message.FetchResponseData.NodeEndpoint;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Fetch for consumers. read_uncommitted reads up to the high watermark; read_committed up to the
 * last stable offset, and each partition's answer lists the aborted transactions overlapping its
 * batches, so the consumer can drop their records (every answer carries the last stable offset,
 * as in Kafka). Which partitions a fetch reads and which it answers follow its incremental fetch
 * session (KIP-227, see {@link FetchSessionManager}): all of a full fetch's, or all of the
 * session's for an incremental one, which answers only partitions with news. When less than
 * {@code min_bytes} is available the request waits up to {@code max_wait_ms}, and is woken by the
 * first append to any of the partitions it reads (read_committed: the first move of a last stable
 * offset) rather than by polling.
 *
 * <p>A partition this broker does not lead is answered NOT_LEADER_OR_FOLLOWER, from v16 with its
 * current leader and that leader's endpoint (KIP-951, {@link LeaderHints}).
 *
 * <p>Thread-safe: runs on any network thread; the sessions guard their own state.
 */
public final class FetchHandler implements ApiHandler<FetchRequest> {
    private final MetadataCache cache;
    private final PartitionManager partitions;
    private final ScheduledExecutorService timer;
    private final FetchSessionManager sessions;
    private final BrokerTopicMetrics topicMetrics;

    public FetchHandler(MetadataCache cache, PartitionManager partitions, ScheduledExecutorService timer,
            FetchSessionManager sessions) {
        this(cache, partitions, timer, sessions, BrokerTopicMetrics.none());
    }

    /** As above, counting reads, failures and bytes out per topic in {@code topicMetrics}. */
    public FetchHandler(MetadataCache cache, PartitionManager partitions, ScheduledExecutorService timer,
            FetchSessionManager sessions, BrokerTopicMetrics topicMetrics) {
        this.topicMetrics = topicMetrics;
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
            // Follower fetches: data is shared, there are no followers to replicate to. Each partition
            // is refused, as Kafka refuses a fetch from a broker that is not its follower.
            // A replica fetch needs CLUSTER_ACTION, else Kafka answers TOPIC_AUTHORIZATION_FAILED throughout.
            FetchPlan refused = FetchSessionManager.refuseAll(request, cache.view(),
                    context.authorizedOnCluster(AclOperation.CLUSTER_ACTION) ? Errors.NOT_LEADER_OR_FOLLOWER
                            : Errors.TOPIC_AUTHORIZATION_FAILED);
            return readAll(refused.targets(), request, IsolationLevel.READ_UNCOMMITTED)
                    .thenApply(pass -> (AbstractResponse) FetchResponse.of(refused.respond(pass.answers)));
        }
        FetchPlan plan = sessions.plan(request, cache.view());
        List<FetchTarget> wanted = authorized(context, plan.targets());
        IsolationLevel isolation = request.isolationLevel();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, request.data().maxWaitMs()));
        return readAll(wanted, request, isolation).thenCompose(first -> {
            // Nothing to read (a session error, say) cannot get better by waiting: answer at once, as Kafka does.
            if (first.bytes >= Math.max(1, request.data().minBytes()) || request.data().maxWaitMs() <= 0
                    || first.hasError || wanted.isEmpty()) {
                return CompletableFuture.completedFuture(first);
            }
            // Woken by its deadline alone, no partition changed since the first pass: it is the answer.
            return waitForData(wanted, isolation, deadline).thenCompose(changed -> changed
                    ? readAll(wanted, request, isolation) : CompletableFuture.completedFuture(first));
        }).thenApply(result -> {
            countBytesOut(wanted, result.answers);
            FetchResponseData data = plan.respond(result.answers);
            if (request.version() >= LeaderHints.FIRST_FETCH_VERSION) {
                addLeaderHints(data, context.listenerName());
            }
            return (AbstractResponse) FetchResponse.of(data);
        });
    }

    /**
     * The targets, each topic the principal may not READ (checked on every fetch, the session's
     * partitions included, as Kafka) refused with TOPIC_AUTHORIZATION_FAILED.
     */
    private static List<FetchTarget> authorized(RequestContext context, List<FetchTarget> targets) {
        List<FetchTarget> out = null;
        for (int i = 0; i < targets.size(); i++) {
            FetchTarget w = targets.get(i);
            if (w.tp() != null && w.error() == Errors.NONE
                    && !context.authorized(AclOperation.READ, ResourceType.TOPIC, w.tp().topic())) {
                if (out == null) {
                    out = new ArrayList<>(targets);
                }
                out.set(i, new FetchTarget(w.topicName(), w.topicId(), w.request(), w.tp(),
                        Errors.TOPIC_AUTHORIZATION_FAILED));
            }
        }
        return out == null ? targets : out;
    }

    /** BytesOut: the answers are in the order of the partitions read. */
    private void countBytesOut(List<FetchTarget> wanted, List<PartitionData> answers) {
        for (int i = 0; i < answers.size() && i < wanted.size(); i++) {
            PartitionData pd = answers.get(i);
            if (pd.records() != null && pd.records().sizeInBytes() > 0 && wanted.get(i).tp() != null) {
                topicMetrics.bytesOut(wanted.get(i).tp().topic(), pd.records().sizeInBytes());
            }
        }
    }

    /** KIP-951: partitions refused for not being led here name their leader (see {@link LeaderHints}). */
    private void addLeaderHints(FetchResponseData data, String listener) {
        LeaderHints hints = new LeaderHints(cache.view(), listener);
        for (FetchableTopicResponse t : data.responses()) {
            String topic = hints.topicName(t.topic(), t.topicId());
            for (PartitionData p : t.partitions()) {
                if (LeaderHints.wantedInFetch(p.errorCode())) {
                    LeaderHints.Leader leader = hints.leader(topic, p.partitionIndex());
                    p.setCurrentLeader(new LeaderIdAndEpoch().setLeaderId(leader.id()).setLeaderEpoch(leader.epoch()));
                }
            }
        }
        for (LeaderHints.Node n : hints.nodes()) {
            data.nodeEndpoints().add(new NodeEndpoint().setNodeId(n.id()).setHost(n.host()).setPort(n.port())
                    .setRack(n.rack()));
        }
    }

    /** What one pass over the partitions found: an answer per partition, in the order read. */
    private static final class Pass {
        final List<PartitionData> answers;
        int bytes;
        boolean hasError;

        Pass(int partitions) {
            answers = new ArrayList<>(partitions);
        }

        void add(PartitionData pd) {
            answers.add(pd);
            if (pd.records() != null) {
                bytes += pd.records().sizeInBytes();
            }
            if (pd.errorCode() != Errors.NONE.code()) {
                hasError = true;
            }
        }
    }

    /**
     * Reads partitions one after the other, within the request's byte budgets. A plain loop runs
     * through the partitions whose answer is ready at once (an open log, most often with nothing
     * new: the bulk of a fetch of many partitions) and stops only at a read still in progress, to
     * go on when it completes; so a partition costs no future of its own here.
     */
    private CompletableFuture<Pass> readAll(List<FetchTarget> wanted, FetchRequest request, IsolationLevel isolation) {
        CompletableFuture<Pass> done = new CompletableFuture<>();
        readFrom(0, wanted, request, isolation, new Pass(wanted.size()), done);
        return done;
    }

    private void readFrom(int from, List<FetchTarget> wanted, FetchRequest request, IsolationLevel isolation,
            Pass pass, CompletableFuture<Pass> done) {
        for (int i = from; i < wanted.size(); i++) {
            CompletableFuture<PartitionData> answer = readOne(wanted.get(i), request.data().maxBytes() - pass.bytes,
                    pass.bytes == 0, isolation);
            if (!answer.isDone()) {
                int next = i + 1;
                answer.whenComplete((pd, e) -> {
                    try {
                        pass.add(pd); // readOne answers errors in the partition data, never by failing
                        readFrom(next, wanted, request, isolation, pass, done);
                    } catch (RuntimeException t) {
                        done.completeExceptionally(t); // the dispatcher answers with the request's error response
                    }
                });
                return;
            }
            pass.add(answer.join());
        }
        done.complete(pass);
    }

    private CompletableFuture<PartitionData> readOne(FetchTarget w, int bytesLeft, boolean firstWithData,
            IsolationLevel isolation) {
        FetchPartition p = w.request();
        PartitionData pd = emptyData(p);
        if (w.error() != Errors.NONE || w.tp() == null) {
            return CompletableFuture.completedFuture(pd.setErrorCode(
                    (w.error() != Errors.NONE ? w.error() : Errors.UNKNOWN_TOPIC_OR_PARTITION).code()));
        }
        CompletableFuture<PartitionData> answer = read(w, p, pd, bytesLeft, firstWithData, isolation);
        if (answer.isDone()) {
            counted(w, answer.join());
            return answer;
        }
        return answer.thenApply(done -> counted(w, done));
    }

    /** TotalFetchRequests and FailedFetchRequests, per partition read (Kafka counts in its log read). */
    private PartitionData counted(FetchTarget w, PartitionData pd) {
        topicMetrics.fetchRequest(w.tp().topic(), Errors.forCode(pd.errorCode()));
        return pd;
    }

    private CompletableFuture<PartitionData> read(FetchTarget w, FetchPartition p, PartitionData pd, int bytesLeft,
            boolean firstWithData, IsolationLevel isolation) {
        CompletableFuture<PartitionLog> opened = partitions.leaderLog(w.tp());
        if (opened.isDone() && !opened.isCompletedExceptionally()) {
            // An open log with nothing past the fetch offset (most partitions of a fetch of many):
            // answered here, without a read and its futures.
            PartitionLog log = opened.join();
            LogReadResult nothingNew = checkEpoch(p.currentLeaderEpoch(), log.leaderEpoch()) == Errors.NONE
                    ? log.nothingNewAt(p.fetchOffset(), isolation) : null;
            if (nothingNew != null) {
                return CompletableFuture.completedFuture(answer(pd, nothingNew));
            }
        }
        return opened.thenCompose(log -> {
            Errors epochError = checkEpoch(p.currentLeaderEpoch(), log.leaderEpoch());
            if (epochError != Errors.NONE) {
                return CompletableFuture.completedFuture(pd.setErrorCode(epochError.code()));
            }
            int budget = Math.max(0, Math.min(p.partitionMaxBytes(), bytesLeft));
            return log.read(p.fetchOffset(), budget, firstWithData, isolation)
                    .thenApply((LogReadResult r) -> answer(pd, r));
        }).exceptionally(e -> pd.setErrorCode(PartitionErrors.toKafka(e).code()));
    }

    /**
     * An answer with nothing yet: aborted transactions null, as Kafka answers errors and
     * read_uncommitted fetches (a read_committed read sets its list, empty or not).
     */
    private static PartitionData emptyData(FetchPartition p) {
        return new PartitionData().setPartitionIndex(p.partition()).setHighWatermark(-1).setLastStableOffset(-1)
                .setLogStartOffset(-1).setRecords(MemoryRecords.EMPTY).setAbortedTransactions(null);
    }

    private static PartitionData answer(PartitionData pd, LogReadResult r) {
        pd.setErrorCode(Errors.NONE.code()).setHighWatermark(r.highWatermark()).setLastStableOffset(r.lastStableOffset())
                .setLogStartOffset(r.logStartOffset()).setRecords(r.batches());
        if (r.abortedTransactions() != null) {
            List<FetchResponseData.AbortedTransaction> aborted = new ArrayList<>(r.abortedTransactions().size());
            for (AbortedTxn a : r.abortedTransactions()) {
                aborted.add(new FetchResponseData.AbortedTransaction().setProducerId(a.producerId())
                        .setFirstOffset(a.firstOffset()));
            }
            pd.setAbortedTransactions(aborted);
        }
        return pd;
    }

    /** Kafka's leader-epoch check: -1 skips it; older is fenced, newer is not known here yet. */
    static Errors checkEpoch(int requested, int current) {
        if (requested < 0 || requested == current) {
            return Errors.NONE;
        }
        return requested < current ? Errors.FENCED_LEADER_EPOCH : Errors.UNKNOWN_LEADER_EPOCH;
    }

    /**
     * Completes with true when any wanted partition gets data past its fetch offset that the
     * isolation level may read (or its log closes, fails or cannot be found), with false at the
     * deadline. One wake-up is registered with
     * every partition's log and, once the fetch is woken, cancelled with all of them, so idle
     * partitions do not collect the waits of every fetch that watched them.
     */
    private CompletableFuture<Boolean> waitForData(List<FetchTarget> wanted, IsolationLevel isolation,
            long deadlineNanos) {
        CompletableFuture<Boolean> woken = new CompletableFuture<>();
        Runnable wake = () -> woken.complete(true);
        Queue<PartitionLog> watched = new ConcurrentLinkedQueue<>();
        for (FetchTarget w : wanted) {
            if (w.tp() == null) {
                continue;
            }
            partitions.leaderLog(w.tp()).whenComplete((log, error) -> {
                if (error != null || !log.wakeOnData(w.request().fetchOffset(), isolation, wake)) {
                    wake.run(); // read again: new data, or the partition's error, is the answer
                    return;
                }
                watched.add(log);
                if (woken.isDone()) {
                    log.cancelWake(wake); // this log opened after the fetch stopped waiting
                }
            });
        }
        long delay = Math.max(0, deadlineNanos - System.nanoTime());
        ScheduledFuture<?> deadline = timer.schedule(() -> woken.complete(false), delay, TimeUnit.NANOSECONDS);
        woken.whenComplete((changed, e) -> {
            deadline.cancel(false);
            for (PartitionLog log; (log = watched.poll()) != null; ) {
                log.cancelWake(wake);
            }
        });
        return woken;
    }
}
