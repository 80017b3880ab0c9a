package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.GroupCoordinator;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.partition.TransactionCheck;
import io.aloft.broker.partition.TransactionVerifier;
import io.aloft.controller.model.TopicInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitResponse;

/**
 * TxnOffsetCommit (KIP-98; member fencing from v3, KIP-447): a transactional producer's
 * {@code sendOffsetsToTransaction}. The group coordinator writes the offsets in the producer's
 * transaction; they become visible when the transaction commits. Answered once they are durable.
 * As in Kafka, offsets of a partition that does not exist (unlike OffsetCommit, which looks at the
 * topic only) get UNKNOWN_TOPIC_OR_PARTITION and only the others go to the coordinator.
 *
 * <p>v5 is the transaction-version-2 form (KIP-890 part 2): the client sends no AddOffsetsToTxn, so
 * the group's {@code __consumer_offsets} partition is added to the transaction first, at its
 * coordinator ({@link TransactionVerifier}, this broker's or another's), as a partition leader adds
 * a version-2 producer's partition; a refusal answers every partition (PRODUCER_FENCED as
 * INVALID_PRODUCER_EPOCH, as Kafka maps it for producers). A version-1 client sends v4 at most.
 *
 * <p>Stateless; runs on the network thread, completes on a group coordinator shard's thread.
 */
public final class TxnOffsetCommitHandler implements ApiHandler<TxnOffsetCommitRequest> {
    private final GroupCoordinator coordinator;
    private final MetadataCache cache;
    private final TransactionVerifier transactions;

    /** @param transactions adds the group's offsets partition to the transaction (v5) */
    public TxnOffsetCommitHandler(GroupCoordinator coordinator, MetadataCache cache, TransactionVerifier transactions) {
        this.coordinator = coordinator;
        this.cache = cache;
        this.transactions = transactions;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.TXN_OFFSET_COMMIT;
    }

    @Override
    public short maxVersion() {
        return 5;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, TxnOffsetCommitRequest request) {
        TxnOffsetCommitRequestData data = request.data();
        if (request.version() < 5) {
            return commit(data);
        }
        TopicPartition offsets = new TopicPartition(Topic.GROUP_METADATA_TOPIC_NAME,
                coordinator.partitionFor(data.groupId()));
        return transactions.check(data.transactionalId(), data.producerId(), data.producerEpoch(), offsets,
                        TransactionCheck.ADD_PARTITION)
                .exceptionally(e -> Errors.COORDINATOR_NOT_AVAILABLE)
                .thenCompose(error -> error == Errors.NONE ? commit(data)
                        : CompletableFuture.completedFuture(refused(data,
                                error == Errors.PRODUCER_FENCED ? Errors.INVALID_PRODUCER_EPOCH : error)));
    }

    private static AbstractResponse refused(TxnOffsetCommitRequestData data, Errors error) {
        TxnOffsetCommitResponseData out = new TxnOffsetCommitResponseData();
        for (TxnOffsetCommitRequestTopic t : data.topics()) {
            TxnOffsetCommitResponseTopic rt = new TxnOffsetCommitResponseTopic().setName(t.name());
            t.partitions().forEach(p -> rt.partitions().add(new TxnOffsetCommitResponsePartition()
                    .setPartitionIndex(p.partitionIndex()).setErrorCode(error.code())));
            out.topics().add(rt);
        }
        return new TxnOffsetCommitResponse(out);
    }

    private CompletableFuture<AbstractResponse> commit(TxnOffsetCommitRequestData data) {
        MetadataCache.View view = cache.view();
        List<TxnOffsetCommitRequestTopic> known = new ArrayList<>();
        Map<String, List<Integer>> unknown = new LinkedHashMap<>();
        for (TxnOffsetCommitRequestTopic t : data.topics()) {
            TopicInfo topic = view.topic(t.name());
            List<TxnOffsetCommitRequestPartition> existing = new ArrayList<>();
            for (TxnOffsetCommitRequestPartition p : t.partitions()) {
                if (topic != null && p.partitionIndex() >= 0 && p.partitionIndex() < topic.partitions().size()) {
                    existing.add(p);
                } else {
                    unknown.computeIfAbsent(t.name(), k -> new ArrayList<>()).add(p.partitionIndex());
                }
            }
            if (!existing.isEmpty()) {
                known.add(t.duplicate().setPartitions(existing));
            }
        }
        if (unknown.isEmpty()) {
            return coordinator.txnCommitOffsets(data).thenApply(TxnOffsetCommitResponse::new);
        }
        CompletableFuture<TxnOffsetCommitResponseData> committed = known.isEmpty()
                ? CompletableFuture.completedFuture(new TxnOffsetCommitResponseData())
                : coordinator.txnCommitOffsets(data.duplicate().setTopics(known));
        return committed.thenApply(response -> {
            unknown.forEach((name, partitions) -> {
                TxnOffsetCommitResponseTopic rt = response.topics().stream().filter(t -> t.name().equals(name))
                        .findFirst().orElseGet(() -> {
                            TxnOffsetCommitResponseTopic added = new TxnOffsetCommitResponseTopic().setName(name);
                            response.topics().add(added);
                            return added;
                        });
                partitions.forEach(p -> rt.partitions().add(new TxnOffsetCommitResponsePartition()
                        .setPartitionIndex(p).setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())));
            });
            return new TxnOffsetCommitResponse(response);
        });
    }
}
