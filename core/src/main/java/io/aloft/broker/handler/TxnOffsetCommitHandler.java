package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.group.GroupCoordinator;
import io.aloft.broker.metadata.MetadataCache;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
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
 * As in Kafka, offsets of a topic that does not exist get UNKNOWN_TOPIC_OR_PARTITION and only the
 * others go to the coordinator.
 *
 * <p>Up to v4: v5 is the transaction-version-2 form (KIP-890 part 2: the partition is added to the
 * transaction implicitly), which this broker does not offer yet; a version-1 client sends v4 at most.
 *
 * <p>Stateless; runs on the network thread, completes on a group coordinator shard's thread.
 */
public final class TxnOffsetCommitHandler implements ApiHandler<TxnOffsetCommitRequest> {
    private final GroupCoordinator coordinator;
    private final MetadataCache cache;

    public TxnOffsetCommitHandler(GroupCoordinator coordinator, MetadataCache cache) {
        this.coordinator = coordinator;
        this.cache = cache;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.TXN_OFFSET_COMMIT;
    }

    @Override
    public short maxVersion() {
        return 4;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, TxnOffsetCommitRequest request) {
        TxnOffsetCommitRequestData data = request.data();
        MetadataCache.View view = cache.view();
        List<TxnOffsetCommitRequestTopic> known = new ArrayList<>();
        List<TxnOffsetCommitRequestTopic> unknown = new ArrayList<>();
        for (TxnOffsetCommitRequestTopic t : data.topics()) {
            (view.topic(t.name()) == null ? unknown : known).add(t);
        }
        if (unknown.isEmpty()) {
            return coordinator.txnCommitOffsets(data).thenApply(TxnOffsetCommitResponse::new);
        }
        CompletableFuture<TxnOffsetCommitResponseData> committed = known.isEmpty()
                ? CompletableFuture.completedFuture(new TxnOffsetCommitResponseData())
                : coordinator.txnCommitOffsets(data.duplicate().setTopics(known));
        return committed.thenApply(response -> {
            for (TxnOffsetCommitRequestTopic t : unknown) {
                TxnOffsetCommitResponseTopic rt = new TxnOffsetCommitResponseTopic().setName(t.name());
                t.partitions().forEach(p -> rt.partitions().add(new TxnOffsetCommitResponsePartition()
                        .setPartitionIndex(p.partitionIndex()).setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())));
                response.topics().add(rt);
            }
            return new TxnOffsetCommitResponse(response);
        });
    }
}
