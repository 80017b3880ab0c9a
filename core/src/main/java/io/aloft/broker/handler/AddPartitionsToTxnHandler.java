package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.txn.TransactionCoordinator;
import io.aloft.controller.model.TopicInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnResultCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * AddPartitionsToTxn. v0-v3 is the client's form (one transaction, from a transaction-version-1
 * producer): adds the partitions to the producer's ongoing transaction at its coordinator, so the
 * markers that end it reach them. v4+ is the broker-to-broker form (KIP-890), sent by partition
 * leaders about their first batch of a transaction: several transactions per request, each either
 * verified ({@code VerifyOnly}: is each partition in it? NONE or TRANSACTION_ABORTABLE per
 * partition, writing nothing) or added to at transaction version 2 (a version-2 producer never
 * sends AddPartitionsToTxn; its partition leaders add for it). Codes as Kafka 4.3.1 answers them
 * (TransactionVerificationOracleTest): TRANSACTION_ABORTABLE at v4 too, although the schema says v5
 * added it (the broker sending v4 maps it for its producer), PRODUCER_FENCED as is.
 *
 * <p>As in Kafka, partitions of internal topics fail with TOPIC_AUTHORIZATION_FAILED (a producer may
 * not write them; its offsets reach {@code __consumer_offsets} through AddOffsetsToTxn), partitions
 * that do not exist with UNKNOWN_TOPIC_OR_PARTITION, and then the others of the request with
 * OPERATION_NOT_ATTEMPTED, without asking the coordinator; otherwise
 * every partition gets the coordinator's one answer (its codes are mapped in
 * {@link TransactionCoordinator}).
 *
 * <p>Stateless; runs on the network thread, completes on a transaction coordinator shard's thread.
 */
public final class AddPartitionsToTxnHandler implements ApiHandler<AddPartitionsToTxnRequest> {
    /** The last version of the client form; v4+ carries transactions in batches (broker to broker). */
    static final short LAST_CLIENT_VERSION = 3;

    private final TransactionCoordinator coordinator;
    private final MetadataCache cache;

    public AddPartitionsToTxnHandler(TransactionCoordinator coordinator, MetadataCache cache) {
        this.coordinator = coordinator;
        this.cache = cache;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.ADD_PARTITIONS_TO_TXN;
    }

    /** Up to v5, as Kafka 4.3 (its last version). */
    @Override
    public short maxVersion() {
        return 5;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, AddPartitionsToTxnRequest request) {
        if (request.version() > LAST_CLIENT_VERSION) {
            // As Kafka: the batched form is for brokers, with CLUSTER_ACTION on the cluster.
            return context.authorizedOnCluster(AclOperation.CLUSTER_ACTION) ? handleBatch(request)
                    : CompletableFuture.completedFuture(request.getErrorResponse(
                            Errors.CLUSTER_AUTHORIZATION_FAILED.exception()));
        }
        AddPartitionsToTxnRequestData data = request.data();
        // As Kafka: WRITE on the transactional id, else every partition is refused; WRITE on each topic
        // (TOPIC_AUTHORIZATION_FAILED before UNKNOWN_TOPIC_OR_PARTITION, the others OPERATION_NOT_ATTEMPTED).
        if (!context.authorized(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, data.v3AndBelowTransactionalId())) {
            return CompletableFuture.completedFuture(request.getErrorResponse(
                    Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.exception()));
        }
        Map<String, List<Integer>> partitions = new LinkedHashMap<>();
        Map<TopicPartition, Errors> refused = unknownPartitions(data.v3AndBelowTopics(), partitions);
        partitions.forEach((topic, ps) -> {
            if (!context.authorized(AclOperation.WRITE, ResourceType.TOPIC, topic)) {
                ps.forEach(p -> refused.put(new TopicPartition(topic, p), Errors.TOPIC_AUTHORIZATION_FAILED));
            }
        });
        // A client may not add an internal topic (Kafka: TOPIC_AUTHORIZATION_FAILED); leaders of v4+ may
        // (TxnOffsetCommit v5 adds a group's __consumer_offsets partition).
        partitions.forEach((topic, ps) -> ps.forEach(p -> {
            if (Topic.isInternal(topic)) {
                refused.put(new TopicPartition(topic, p), Errors.TOPIC_AUTHORIZATION_FAILED);
            }
        }));
        if (!refused.isEmpty()) {
            return CompletableFuture.completedFuture(response(partitions, refused, Errors.OPERATION_NOT_ATTEMPTED));
        }
        // A client of these versions speaks transaction version 1 (KIP-890: version 2 is EndTxn v5+).
        return coordinator.addPartitionsToTxn(data.v3AndBelowTransactionalId(), data.v3AndBelowProducerId(),
                        data.v3AndBelowProducerEpoch(), partitions, (short) 1)
                .thenApply(error -> response(partitions, Map.of(), ProducerFencedErrors.forVersion(error,
                        request.version(), ProducerFencedErrors.ADD_PARTITIONS_TO_TXN)));
    }

    /** v4+: each transaction on its own, answered together once all are. */
    private CompletableFuture<AbstractResponse> handleBatch(AddPartitionsToTxnRequest request) {
        List<CompletableFuture<AddPartitionsToTxnResult>> results = new ArrayList<>();
        for (AddPartitionsToTxnTransaction txn : request.data().transactions()) {
            Map<String, List<Integer>> partitions = new LinkedHashMap<>();
            Map<TopicPartition, Errors> unknown = unknownPartitions(txn.topics(), partitions);
            String id = txn.transactionalId();
            CompletableFuture<Map<TopicPartition, Errors>> errors;
            if (!unknown.isEmpty()) {
                errors = CompletableFuture.completedFuture(each(partitions, unknown, Errors.OPERATION_NOT_ATTEMPTED));
            } else if (txn.verifyOnly()) {
                errors = coordinator.verifyPartitionsInTxn(id, txn.producerId(), txn.producerEpoch(), partitions)
                        .thenApply(byTopic -> {
                            Map<TopicPartition, Errors> out = new HashMap<>();
                            byTopic.forEach((topic, ps) -> ps.forEach((p, e) -> out.put(new TopicPartition(topic, p),
                                    e)));
                            return out;
                        });
            } else {
                errors = coordinator.addPartitionsToTxn(id, txn.producerId(), txn.producerEpoch(), partitions,
                        (short) 2).thenApply(e -> each(partitions, Map.of(), e));
            }
            results.add(errors.thenApply(e -> AddPartitionsToTxnResponse.resultForTransaction(id, e)));
        }
        return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).thenApply(v -> {
            AddPartitionsToTxnResultCollection out = new AddPartitionsToTxnResultCollection();
            results.forEach(r -> out.add(r.join()));
            return new AddPartitionsToTxnResponse(new AddPartitionsToTxnResponseData().setThrottleTimeMs(0)
                    .setErrorCode(Errors.NONE.code()).setResultsByTransaction(out));
        });
    }

    /**
     * Collects {@code topics} into {@code partitions}; returns those of topics or partitions that do
     * not exist, with UNKNOWN_TOPIC_OR_PARTITION.
     */
    private Map<TopicPartition, Errors> unknownPartitions(Iterable<AddPartitionsToTxnTopic> topics,
            Map<String, List<Integer>> partitions) {
        Map<TopicPartition, Errors> unknown = new HashMap<>();
        MetadataCache.View view = cache.view();
        for (AddPartitionsToTxnTopic t : topics) {
            TopicInfo topic = view.topic(t.name());
            for (int p : t.partitions()) {
                partitions.computeIfAbsent(t.name(), n -> new ArrayList<>()).add(p);
                if (topic == null || p < 0 || p >= topic.partitions().size()) {
                    unknown.put(new TopicPartition(t.name(), p), Errors.UNKNOWN_TOPIC_OR_PARTITION);
                }
            }
        }
        return unknown;
    }

    /** Each partition's code: its own in {@code errors}, else {@code others}. */
    private static Map<TopicPartition, Errors> each(Map<String, List<Integer>> partitions,
            Map<TopicPartition, Errors> errors, Errors others) {
        Map<TopicPartition, Errors> all = new HashMap<>();
        partitions.forEach((topic, ps) -> ps.forEach(p -> {
            TopicPartition tp = new TopicPartition(topic, p);
            all.put(tp, errors.getOrDefault(tp, others));
        }));
        return all;
    }

    /** The v0-v3 response: each partition's code, its own in {@code errors}, else {@code others}. */
    private static AbstractResponse response(Map<String, List<Integer>> partitions, Map<TopicPartition, Errors> errors,
            Errors others) {
        AddPartitionsToTxnResult result = AddPartitionsToTxnResponse.resultForTransaction(
                AddPartitionsToTxnResponse.V3_AND_BELOW_TXN_ID, each(partitions, errors, others));
        return new AddPartitionsToTxnResponse(new AddPartitionsToTxnResponseData().setThrottleTimeMs(0)
                .setResultsByTopicV3AndBelow(result.topicResults()));
    }
}
