package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.log.PartitionErrors;
import io.aloft.broker.partition.PartitionManager;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsPartition;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsTopic;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResultCollection;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResultCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteRecordsResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DeleteRecords: moves a partition's log start offset forward (-1 means up to the high
 * watermark); the streams are trimmed and their objects released for deletion.
 */
public final class DeleteRecordsHandler implements ApiHandler<DeleteRecordsRequest> {
    private final PartitionManager partitions;

    public DeleteRecordsHandler(PartitionManager partitions) {
        this.partitions = partitions;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DELETE_RECORDS;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, DeleteRecordsRequest request) {
        List<CompletableFuture<DeleteRecordsTopicResult>> topics = new ArrayList<>();
        for (DeleteRecordsTopic t : request.data().topics()) {
            List<CompletableFuture<DeleteRecordsPartitionResult>> parts = new ArrayList<>();
            boolean authorized = context.authorized(AclOperation.DELETE, ResourceType.TOPIC, t.name());
            for (DeleteRecordsPartition p : t.partitions()) {
                if (!authorized) { // as Kafka: DELETE on the topic
                    parts.add(CompletableFuture.completedFuture(new DeleteRecordsPartitionResult()
                            .setPartitionIndex(p.partitionIndex()).setLowWatermark(-1)
                            .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())));
                    continue;
                }
                TopicPartition tp = new TopicPartition(t.name(), p.partitionIndex());
                DeleteRecordsPartitionResult r = new DeleteRecordsPartitionResult().setPartitionIndex(p.partitionIndex())
                        .setLowWatermark(-1);
                parts.add(partitions.leaderLog(tp)
                        .thenCompose(log -> log.deleteRecordsBefore(p.offset() == -1 ? log.highWatermark() : p.offset()))
                        .thenApply(low -> r.setErrorCode(Errors.NONE.code()).setLowWatermark(low))
                        .exceptionally(e -> r.setErrorCode(PartitionErrors.toKafka(e).code())));
            }
            topics.add(CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(v -> {
                DeleteRecordsPartitionResultCollection out = new DeleteRecordsPartitionResultCollection();
                parts.forEach(p -> out.add(p.join()));
                return new DeleteRecordsTopicResult().setName(t.name()).setPartitions(out);
            }));
        }
        return CompletableFuture.allOf(topics.toArray(CompletableFuture[]::new)).thenApply(v -> {
            DeleteRecordsTopicResultCollection out = new DeleteRecordsTopicResultCollection();
            topics.forEach(t -> out.add(t.join()));
            return new DeleteRecordsResponse(new DeleteRecordsResponseData().setThrottleTimeMs(0).setTopics(out));
        });
    }
}
