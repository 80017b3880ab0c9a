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
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;

/**
 * AddPartitionsToTxn in the client's form (v0-v3: one transaction, from the producer): adds the
 * partitions to the producer's ongoing transaction at its coordinator, so the markers that end it
 * reach them. Only v0-v3 are advertised: v4+ is the broker-to-broker batch form (KIP-890's
 * verifyOnly from partition leaders), which a transaction-version-1 client never sends; a
 * version-2 client adds partitions implicitly and never sends AddPartitionsToTxn at all.
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

    @Override
    public short maxVersion() {
        return LAST_CLIENT_VERSION;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, AddPartitionsToTxnRequest request) {
        AddPartitionsToTxnRequestData data = request.data();
        Map<String, List<Integer>> partitions = new LinkedHashMap<>();
        Map<TopicPartition, Errors> refused = new HashMap<>();
        MetadataCache.View view = cache.view();
        for (AddPartitionsToTxnTopic t : data.v3AndBelowTopics()) {
            TopicInfo topic = view.topic(t.name());
            for (int p : t.partitions()) {
                partitions.computeIfAbsent(t.name(), n -> new ArrayList<>()).add(p);
                if (Topic.isInternal(t.name())) {
                    refused.put(new TopicPartition(t.name(), p), Errors.TOPIC_AUTHORIZATION_FAILED);
                } else if (topic == null || p < 0 || p >= topic.partitions().size()) {
                    refused.put(new TopicPartition(t.name(), p), Errors.UNKNOWN_TOPIC_OR_PARTITION);
                }
            }
        }
        if (!refused.isEmpty()) {
            return CompletableFuture.completedFuture(response(partitions, refused, Errors.OPERATION_NOT_ATTEMPTED));
        }
        // A client of these versions speaks transaction version 1 (KIP-890: version 2 is EndTxn v5+).
        return coordinator.addPartitionsToTxn(data.v3AndBelowTransactionalId(), data.v3AndBelowProducerId(),
                        data.v3AndBelowProducerEpoch(), partitions, (short) 1)
                .thenApply(error -> response(partitions, Map.of(), ProducerFencedErrors.forVersion(error,
                        request.version(), ProducerFencedErrors.ADD_PARTITIONS_TO_TXN)));
    }

    /** Each partition's code: its own in {@code errors}, else {@code others}. */
    private static AbstractResponse response(Map<String, List<Integer>> partitions, Map<TopicPartition, Errors> errors,
            Errors others) {
        Map<TopicPartition, Errors> all = new HashMap<>();
        partitions.forEach((topic, ps) -> ps.forEach(p -> {
            TopicPartition tp = new TopicPartition(topic, p);
            all.put(tp, errors.getOrDefault(tp, others));
        }));
        AddPartitionsToTxnResponseData.AddPartitionsToTxnResult result = AddPartitionsToTxnResponse
                .resultForTransaction(AddPartitionsToTxnResponse.V3_AND_BELOW_TXN_ID, all);
        return new AddPartitionsToTxnResponse(new AddPartitionsToTxnResponseData().setThrottleTimeMs(0)
                .setResultsByTopicV3AndBelow(result.topicResults()));
    }
}
