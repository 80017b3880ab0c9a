package io.aloft.broker.txn;

import io.aloft.broker.interbroker.InterBrokerClient;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.partition.TransactionCheck;
import io.aloft.broker.partition.TransactionVerifier;
import io.aloft.controller.model.TopicInfo;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;

/**
 * The partition side's {@link TransactionVerifier}: asks the transactional id's coordinator about
 * all the partitions of one question at once (one produce request's: one write for an add). When
 * this broker serves the id's {@code __transaction_state} partition it calls the
 * {@link TransactionCoordinator} directly; otherwise it sends AddPartitionsToTxn (v4+, the
 * broker-to-broker form) to the partition's leader through {@link RemoteCoordinators}. A verify asks
 * {@link TransactionCoordinator#verifyPartitionsInTxn} (writes nothing); an add
 * ({@link TransactionCheck#ADD_PARTITION}, transaction version 2) is
 * {@link TransactionCoordinator#addPartitionsToTxn} at client version 2, durable before it answers.
 * With {@code transaction.partition.verification.enable=false} verifies are answered NONE at once
 * (the log still takes its guard, so a transaction ended meanwhile is not reopened), as Kafka skips
 * them; adds always go to the coordinator.
 *
 * <p>Thread-safe (stateless beyond its collaborators); futures complete on a coordinator shard's
 * thread or the inter-broker client's.
 */
public final class CoordinatorTransactionVerifier implements TransactionVerifier {

    /** AddPartitionsToTxn to the broker leading a {@code __transaction_state} partition. */
    public interface RemoteCoordinators {
        /**
         * Sends one transaction's AddPartitionsToTxn (v4+) for {@code partitions} to broker
         * {@code brokerId}; completes with the coordinator's code for each, exceptionally if it
         * cannot be reached.
         */
        CompletableFuture<Map<TopicPartition, Errors>> addOrVerify(int brokerId, String transactionalId,
                long producerId, short producerEpoch, Collection<TopicPartition> partitions, boolean verifyOnly);
    }

    /**
     * AddPartitionsToTxn v4+ over {@code client}, one transaction per request with all its
     * partitions (Kafka's AddPartitionsToTxnManager sends one per transaction and destination too);
     * the answer's top-level code for every partition if it has one, else each partition's. A
     * failure to reach the broker fails the future (the partition side answers it as Kafka answers
     * an unreachable coordinator).
     */
    public static RemoteCoordinators over(InterBrokerClient client) {
        return (brokerId, id, pid, epoch, partitions, verifyOnly) -> {
            Map<String, List<Integer>> byTopic = new LinkedHashMap<>();
            partitions.forEach(tp -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition()));
            AddPartitionsToTxnTopicCollection topics = new AddPartitionsToTxnTopicCollection();
            byTopic.forEach((topic, ps) -> topics.add(new AddPartitionsToTxnTopic().setName(topic).setPartitions(ps)));
            AddPartitionsToTxnTransactionCollection txns = new AddPartitionsToTxnTransactionCollection();
            txns.add(new AddPartitionsToTxnTransaction().setTransactionalId(id).setProducerId(pid)
                    .setProducerEpoch(epoch).setVerifyOnly(verifyOnly).setTopics(topics));
            return client.send(brokerId, AddPartitionsToTxnRequest.Builder.forBroker(txns)).thenApply(r -> {
                AddPartitionsToTxnResponseData data = ((AddPartitionsToTxnResponse) r).data();
                Map<TopicPartition, Errors> out = new HashMap<>();
                AddPartitionsToTxnResult result = data.resultsByTransaction().find(id);
                for (TopicPartition tp : partitions) {
                    if (data.errorCode() != Errors.NONE.code()) {
                        out.put(tp, Errors.forCode(data.errorCode()));
                        continue;
                    }
                    AddPartitionsToTxnTopicResult topic = result == null ? null
                            : result.topicResults().find(tp.topic());
                    AddPartitionsToTxnPartitionResult partition = topic == null ? null
                            : topic.resultsByPartition().find(tp.partition());
                    out.put(tp, partition == null ? Errors.UNKNOWN_SERVER_ERROR
                            : Errors.forCode(partition.partitionErrorCode()));
                }
                return out;
            });
        };
    }

    private final TransactionCoordinator coordinator;
    private final MetadataCache cache;
    private final int nodeId;
    private final RemoteCoordinators remote;
    private final boolean verify;

    /** @param verify whether verifies are asked (transaction.partition.verification.enable) */
    public CoordinatorTransactionVerifier(TransactionCoordinator coordinator, MetadataCache cache, int nodeId,
            RemoteCoordinators remote, boolean verify) {
        this.verify = verify;
        this.coordinator = coordinator;
        this.cache = cache;
        this.nodeId = nodeId;
        this.remote = remote;
    }

    @Override
    public CompletableFuture<Map<TopicPartition, Errors>> checkAll(String transactionalId, long producerId,
            short producerEpoch, Collection<TopicPartition> partitions, TransactionCheck check) {
        if (check.verifyOnly() && !verify) {
            return CompletableFuture.completedFuture(same(partitions, Errors.NONE));
        }
        int partition = coordinator.partitionFor(transactionalId);
        if (coordinator.isServing(partition)) {
            return local(transactionalId, producerId, producerEpoch, partitions, check);
        }
        TopicInfo topic = cache.view().topic(TransactionStateTopic.TOPIC);
        if (topic == null || partition >= topic.partitions().size()) {
            return CompletableFuture.completedFuture(same(partitions, Errors.COORDINATOR_NOT_AVAILABLE));
        }
        int leader = topic.partitions().get(partition).brokerId();
        if (leader == nodeId || leader < 0) {
            // Ours by the metadata but not loaded (yet, or any more): as Kafka's coordinator answers.
            return CompletableFuture.completedFuture(same(partitions, leader == nodeId
                    ? Errors.COORDINATOR_LOAD_IN_PROGRESS : Errors.COORDINATOR_NOT_AVAILABLE));
        }
        return remote.addOrVerify(leader, transactionalId, producerId, producerEpoch, partitions, check.verifyOnly());
    }

    private CompletableFuture<Map<TopicPartition, Errors>> local(String transactionalId, long producerId,
            short producerEpoch, Collection<TopicPartition> tps, TransactionCheck check) {
        Map<String, List<Integer>> partitions = new LinkedHashMap<>();
        tps.forEach(tp -> partitions.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition()));
        if (check.verifyOnly()) {
            return coordinator.verifyPartitionsInTxn(transactionalId, producerId, producerEpoch, partitions)
                    .thenApply(r -> {
                        Map<TopicPartition, Errors> out = new HashMap<>();
                        tps.forEach(tp -> out.put(tp, r.getOrDefault(tp.topic(), Map.of()).getOrDefault(
                                tp.partition(), Errors.UNKNOWN_SERVER_ERROR)));
                        return out;
                    });
        }
        // One write adds them all (and joins adds of the same transaction already waiting: see the coordinator).
        return coordinator.addPartitionsToTxn(transactionalId, producerId, producerEpoch, partitions, (short) 2)
                .thenApply(error -> same(tps, error));
    }

    private static Map<TopicPartition, Errors> same(Collection<TopicPartition> partitions, Errors error) {
        Map<TopicPartition, Errors> out = new HashMap<>();
        partitions.forEach(tp -> out.put(tp, error));
        return out;
    }
}
