package io.aloft.broker.txn;

import io.aloft.broker.coordinator.CoordinatorLog;
import io.aloft.broker.coordinator.CoordinatorResult;
import io.aloft.broker.coordinator.CoordinatorRuntime;
import io.aloft.broker.coordinator.CoordinatorThreads;
import io.aloft.broker.coordinator.CoordinatorTimer;
import io.aloft.broker.coordinator.CoordinatorTopic;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction coordinator (KIP-98, KIP-360, KIP-890), for the request handlers of
 * InitProducerId (with a transactional id), AddPartitionsToTxn, AddOffsetsToTxn, EndTxn,
 * DescribeTransactions and ListTransactions. Methods take the request's fields and return the
 * outcome; building the response messages is the handlers' part.
 *
 * <p>A service in front of a {@link CoordinatorRuntime}: a transactional id lives in the shard of
 * its {@code __transaction_state} partition ({@link #partitionFor}), every request for it runs there
 * ({@link TransactionCoordinatorShard}), and every change is a record appended to that partition and
 * replayed when it loads. Only ids of loaded partitions are served; others get NOT_COORDINATOR
 * (COORDINATOR_LOAD_IN_PROGRESS while loading). Kafka errors are mapped here, at one place
 * ({@link #errorFor}), from the runtime's and the log's exceptions.
 *
 * <p>Thread-safe: requests from any number of connections may call in at once; futures complete on
 * the shards' threads.
 */
public final class TransactionCoordinator implements CoordinatorTopic.Partitions, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TransactionCoordinator.class);

    /** The group coordinator's topic, whose partitions AddOffsetsToTxn adds. */
    static final String OFFSETS_TOPIC = Topic.GROUP_METADATA_TOPIC_NAME;

    private final TransactionCoordinatorConfig config;
    private final CoordinatorRuntime<TransactionCoordinatorShard, TransactionRecord> runtime;
    private final AddPartitionsCoalescer adds = new AddPartitionsCoalescer(this::writeAdd);

    /**
     * The coordinator epoch of a {@code __transaction_state} partition being loaded: Kafka's is the
     * partition's leader epoch when this broker became its leader. Called on the loading thread (may
     * block); a failure fails the load, which is tried again.
     */
    @FunctionalInterface
    public interface CoordinatorEpochs {
        int epochAtLoad(int partition);
    }

    /** As below, every partition loaded at coordinator epoch 0 (tests without leader epochs). */
    public TransactionCoordinator(TransactionCoordinatorConfig config, CoordinatorLog<TransactionRecord> log,
            CoordinatorTimer timer, CoordinatorThreads threads, ProducerIdSource ids, TransactionMarkers markers) {
        this(config, log, timer, threads, ids, markers, partition -> 0);
    }

    /**
     * @param log the partitions of {@code __transaction_state}
     * @param timer time and delayed tasks (transaction timeouts, id expiration, marker retries)
     * @param threads the shards' threads; the caller closes them after this coordinator
     * @param ids fresh producer ids, without waiting
     * @param markers writes the markers that end transactions in their partitions
     * @param epochs each partition's coordinator epoch, asked once per load, for its markers
     */
    public TransactionCoordinator(TransactionCoordinatorConfig config, CoordinatorLog<TransactionRecord> log,
            CoordinatorTimer timer, CoordinatorThreads threads, ProducerIdSource ids, TransactionMarkers markers,
            CoordinatorEpochs epochs) {
        this.config = config;
        this.runtime = new CoordinatorRuntime<>("transaction", log, timer, threads,
                ctx -> new TransactionCoordinatorShard(config, ctx, ids, markers, this::followUp,
                        epochs.epochAtLoad(ctx.partition())));
    }

    /** The __transaction_state partition of {@code transactionalId}: Kafka's abs(hashCode) % partitions. */
    public int partitionFor(String transactionalId) {
        return CoordinatorTopic.partitionFor(transactionalId, config.stateLogPartitions());
    }

    // ---- ownership -----------------------------------------------------------------------

    /**
     * Takes ownership of {@code partition}: replays its records (blocking until done), then serves
     * it; transactions it finds in PrepareCommit/PrepareAbort get their markers written again.
     *
     * @throws CorruptTransactionRecordException if a record cannot be read; the partition stays unowned
     */
    @Override
    public void loadPartition(int partition) {
        runtime.load(partition);
    }

    /** Loads every partition of __transaction_state: what a single-node broker does at start. */
    public void loadAll() {
        for (int p = 0; p < config.stateLogPartitions(); p++) {
            loadPartition(p);
        }
    }

    @Override
    public void unloadPartition(int partition) {
        runtime.unload(partition);
    }

    @Override
    public boolean isServing(int partition) {
        return runtime.status(partition) != CoordinatorRuntime.Status.NOT_SERVED;
    }

    // ---- producer requests ---------------------------------------------------------------

    /**
     * InitProducerId with a transactional id; {@code producerId}/{@code producerEpoch} are the
     * client's current ones (KIP-360), or both -1.
     */
    public CompletableFuture<ProducerResult> initProducerId(String transactionalId, int transactionTimeoutMs,
            long producerId, short producerEpoch) {
        if (transactionalId == null || transactionalId.isEmpty()) {
            return CompletableFuture.completedFuture(ProducerResult.error(Errors.INVALID_REQUEST));
        }
        return runtime.write("init-producer-id", partitionFor(transactionalId),
                        s -> s.initProducerId(transactionalId, transactionTimeoutMs, producerId, producerEpoch))
                .exceptionally(e -> ProducerResult.error(errorFor(e)));
    }

    /**
     * AddPartitionsToTxn for one transaction; one code for all its partitions. Adds of an id that
     * arrive while one of its adds is being written go together as its next write
     * ({@link AddPartitionsCoalescer}).
     *
     * @param clientVersion the client's transaction version (2 for KIP-890 clients, else 1)
     */
    public CompletableFuture<Errors> addPartitionsToTxn(String transactionalId, long producerId, short producerEpoch,
            Map<String, ? extends Collection<Integer>> partitions, short clientVersion) {
        if (transactionalId == null || transactionalId.isEmpty()) {
            return CompletableFuture.completedFuture(Errors.INVALID_REQUEST);
        }
        return adds.add(transactionalId, producerId, producerEpoch, partitions, clientVersion);
    }

    /** One add as one write on the id's shard. */
    private CompletableFuture<Errors> writeAdd(String transactionalId, long producerId, short producerEpoch,
            Map<String, ? extends Collection<Integer>> partitions, short clientVersion) {
        return runtime.write("add-partitions-to-txn", partitionFor(transactionalId),
                        s -> s.addPartitions(transactionalId, producerId, producerEpoch, partitions, clientVersion))
                .exceptionally(TransactionCoordinator::errorFor);
    }

    /**
     * AddPartitionsToTxn with verifyOnly (v4+): whether each partition is in the producer's
     * transaction (see {@link TransactionCoordinatorShard#verifyPartitions}); writes nothing.
     */
    public CompletableFuture<Map<String, Map<Integer, Errors>>> verifyPartitionsInTxn(String transactionalId,
            long producerId, short producerEpoch, Map<String, ? extends Collection<Integer>> partitions) {
        if (transactionalId == null || transactionalId.isEmpty()) {
            return CompletableFuture.completedFuture(sameError(partitions, Errors.INVALID_REQUEST));
        }
        return runtime.read("verify-partitions-in-txn", partitionFor(transactionalId),
                        s -> s.verifyPartitions(transactionalId, producerId, producerEpoch, partitions))
                .exceptionally(e -> sameError(partitions, errorFor(e)));
    }

    /**
     * Completes once {@code transactionalId}'s transaction is no longer completing (its markers
     * written and Complete* durable), or after {@code maxWaitMs}, or if its partition is unloaded
     * or not served here; at once if it is not completing now. Never fails: whoever waits asks
     * again and gets the answer of the moment. See {@link TransactionCoordinatorShard#awaitCompletion}.
     */
    public CompletableFuture<Void> awaitCompletion(String transactionalId, long maxWaitMs) {
        return runtime.read("await-transaction-completion", partitionFor(transactionalId),
                        s -> s.awaitCompletion(transactionalId, maxWaitMs))
                .exceptionally(e -> CompletableFuture.completedFuture(null))
                .thenCompose(f -> f);
    }

    private static Map<String, Map<Integer, Errors>> sameError(Map<String, ? extends Collection<Integer>> partitions,
            Errors error) {
        Map<String, Map<Integer, Errors>> out = new HashMap<>();
        partitions.forEach((topic, ps) -> ps.forEach(p -> out.computeIfAbsent(topic, t -> new HashMap<>())
                .put(p, error)));
        return out;
    }

    /**
     * AddOffsetsToTxn: adds the group's {@code __consumer_offsets} partition, so the group's offsets
     * commit or abort with the transaction.
     *
     * @param offsetsPartition the group's partition (the group coordinator's partitionFor)
     */
    public CompletableFuture<Errors> addOffsetsToTxn(String transactionalId, long producerId, short producerEpoch,
            int offsetsPartition, short clientVersion) {
        return addPartitionsToTxn(transactionalId, producerId, producerEpoch,
                Map.of(OFFSETS_TOPIC, List.of(offsetsPartition)), clientVersion);
    }

    /** EndTxn; the answer comes once the decision is durable, the markers follow. */
    public CompletableFuture<ProducerResult> endTxn(String transactionalId, long producerId, short producerEpoch,
            boolean commit, short clientVersion) {
        if (transactionalId == null || transactionalId.isEmpty()) {
            return CompletableFuture.completedFuture(ProducerResult.error(Errors.INVALID_REQUEST));
        }
        return runtime.write("end-txn", partitionFor(transactionalId),
                        s -> s.endTxn(transactionalId, producerId, producerEpoch, commit, clientVersion))
                .exceptionally(e -> ProducerResult.error(errorFor(e)));
    }

    // ---- admin requests ------------------------------------------------------------------

    /** DescribeTransactions: each id from its shard, in request order. */
    public CompletableFuture<DescribeTransactionsResponseData> describeTransactions(List<String> transactionalIds) {
        List<CompletableFuture<DescribeTransactionsResponseData.TransactionState>> states = new ArrayList<>();
        for (String id : transactionalIds) {
            if (id == null || id.isEmpty()) {
                states.add(CompletableFuture.completedFuture(describeError(id == null ? "" : id,
                        Errors.INVALID_REQUEST)));
                continue;
            }
            states.add(runtime.read("describe-transactions", partitionFor(id), s -> s.describe(id))
                    .exceptionally(e -> describeError(id, errorFor(e))));
        }
        return allInOrder(states).thenApply(list -> new DescribeTransactionsResponseData().setTransactionStates(list));
    }

    private static DescribeTransactionsResponseData.TransactionState describeError(String id, Errors error) {
        return new DescribeTransactionsResponseData.TransactionState().setTransactionalId(id)
                .setErrorCode(error.code()).setTransactionState("");
    }

    /**
     * ListTransactions over the loaded partitions, with the filters of {@code request} (fields of
     * later versions keep their defaults for earlier ones). Unknown state names are reported back and
     * match nothing; a partition still loading makes the answer COORDINATOR_LOAD_IN_PROGRESS.
     */
    public CompletableFuture<ListTransactionsResponseData> listTransactions(ListTransactionsRequestData request) {
        ListTransactionsResponseData response = new ListTransactionsResponseData();
        Set<TransactionState> states = new HashSet<>();
        for (String name : request.stateFilters()) {
            TransactionState s = TransactionState.ofKafkaName(name);
            if (s == null) {
                response.unknownStateFilters().add(name);
            } else {
                states.add(s);
            }
        }
        if (!request.stateFilters().isEmpty() && states.isEmpty()) {
            return CompletableFuture.completedFuture(response); // only unknown states asked for: none match
        }
        Pattern pattern = null;
        String regex = request.transactionalIdPattern();
        if (regex != null && !regex.isEmpty()) {
            try {
                pattern = Pattern.compile(regex);
            } catch (PatternSyntaxException e) {
                return CompletableFuture.completedFuture(response.setErrorCode(Errors.INVALID_REGULAR_EXPRESSION.code()));
            }
        }
        if (runtime.anyLoading()) {
            return CompletableFuture.completedFuture(response.setErrorCode(Errors.COORDINATOR_LOAD_IN_PROGRESS.code()));
        }
        Set<Long> producerIds = new HashSet<>(request.producerIdFilters());
        long duration = request.durationFilter();
        Pattern idPattern = pattern;
        List<CompletableFuture<List<ListTransactionsResponseData.TransactionState>>> shards = new ArrayList<>();
        for (CompletableFuture<List<ListTransactionsResponseData.TransactionState>> f : runtime.readAll(
                "list-transactions", s -> s.list(states, producerIds, duration, idPattern))) {
            shards.add(f.exceptionally(e -> List.of())); // unloaded meanwhile: nothing to list here any more
        }
        return allInOrder(shards).thenApply(lists -> {
            lists.forEach(response.transactionStates()::addAll);
            response.transactionStates().sort((a, b) -> a.transactionalId().compareTo(b.transactionalId()));
            return response;
        });
    }

    // ---- plumbing ------------------------------------------------------------------------

    /** A shard's follow-up (marker completion) as a write on its partition; refused if the shard moved. */
    private void followUp(int partition, String name,
            Function<TransactionCoordinatorShard, CoordinatorResult<Void, TransactionRecord>> operation) {
        runtime.write(name, partition, operation).whenComplete((v, e) -> {
            if (e != null) {
                // The partition moved or is being reloaded: its next owner resends the markers on load.
                LOG.debug("__transaction_state-{}: {} not run: {}", partition, name, e.toString());
            }
        });
    }

    /**
     * The code for a failed operation: the runtime's NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS
     * (also what a {@link ProducerIdSource} still fetching ids says), Kafka's mapping of a failed
     * append to __transaction_state, or UNKNOWN_SERVER_ERROR for a bug.
     */
    static Errors errorFor(Throwable e) {
        Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (!(t instanceof ApiException)) {
            LOG.error("transaction coordinator: unexpected failure", t);
            return Errors.UNKNOWN_SERVER_ERROR;
        }
        Errors error = Errors.forException(t);
        return switch (error) {
            case NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE -> error;
            case NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR -> Errors.NOT_COORDINATOR;
            case UNKNOWN_TOPIC_OR_PARTITION, NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND, REQUEST_TIMED_OUT
                    -> Errors.COORDINATOR_NOT_AVAILABLE;
            default -> Errors.UNKNOWN_SERVER_ERROR;
        };
    }

    private static <T> CompletableFuture<List<T>> allInOrder(List<CompletableFuture<T>> futures) {
        return CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0]))
                .thenApply(v -> futures.stream().map(CompletableFuture::join).toList());
    }

    /** Unloads every partition; marker writes in flight complete into nothing. Threads are the caller's. */
    @Override
    public void close() {
        runtime.close();
    }
}
