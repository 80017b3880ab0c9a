package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.log.ActiveProducer;
import io.aloft.broker.log.PartitionErrors;
import io.aloft.broker.partition.PartitionManager;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeProducersRequestData.TopicRequest;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeProducersResponseData.PartitionResponse;
import org.apache.kafka.common.message.DescribeProducersResponseData.ProducerState;
import org.apache.kafka.common.message.DescribeProducersResponseData.TopicResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeProducersRequest;
import org.apache.kafka.common.requests.DescribeProducersResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeProducers (KIP-664, {@code kafka-transactions.sh describe-producers}): the idempotent
 * and transactional producers each partition remembers, with epoch, last sequence, last timestamp,
 * the coordinator epoch of its last transaction marker and the first offset of its open
 * transaction (-1 when it has none).
 * Errors per partition as Kafka: NOT_LEADER_OR_FOLLOWER when another broker serves it,
 * UNKNOWN_TOPIC_OR_PARTITION when there is no such partition.
 *
 * <p>Stateless; runs on the network thread and completes on the stream store's.
 */
public final class DescribeProducersHandler implements ApiHandler<DescribeProducersRequest> {
    private final PartitionManager partitions;

    public DescribeProducersHandler(PartitionManager partitions) {
        this.partitions = partitions;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_PRODUCERS;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, DescribeProducersRequest request) {
        List<CompletableFuture<TopicResponse>> topics = new ArrayList<>();
        for (TopicRequest t : request.data().topics()) {
            List<CompletableFuture<PartitionResponse>> parts = new ArrayList<>();
            boolean authorized = context.authorized(AclOperation.READ, ResourceType.TOPIC, t.name());
            for (int partition : t.partitionIndexes()) {
                parts.add(authorized ? describe(new TopicPartition(t.name(), partition)) // as Kafka: READ on the topic
                        : CompletableFuture.completedFuture(new PartitionResponse().setPartitionIndex(partition)
                                .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                                .setErrorMessage(Errors.TOPIC_AUTHORIZATION_FAILED.message())));
            }
            topics.add(CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(v ->
                    new TopicResponse().setName(t.name())
                            .setPartitions(parts.stream().map(CompletableFuture::join).toList())));
        }
        return CompletableFuture.allOf(topics.toArray(CompletableFuture[]::new)).thenApply(v ->
                new DescribeProducersResponse(new DescribeProducersResponseData().setThrottleTimeMs(0)
                        .setTopics(topics.stream().map(CompletableFuture::join).toList())));
    }

    private CompletableFuture<PartitionResponse> describe(TopicPartition tp) {
        PartitionResponse r = new PartitionResponse().setPartitionIndex(tp.partition());
        return partitions.leaderLog(tp).thenApply(log -> {
            List<ProducerState> states = new ArrayList<>();
            for (ActiveProducer p : log.activeProducers()) {
                states.add(new ProducerState().setProducerId(p.producerId()).setProducerEpoch(p.producerEpoch())
                        .setLastSequence(p.lastSequence()).setLastTimestamp(p.lastTimestamp())
                        .setCoordinatorEpoch(p.coordinatorEpoch())
                        .setCurrentTxnStartOffset(p.currentTxnStartOffset()));
            }
            return r.setErrorCode(Errors.NONE.code()).setActiveProducers(states);
        }).exceptionally(e -> r.setErrorCode(PartitionErrors.toKafka(e).code())
                .setErrorMessage(PartitionErrors.message(e)));
    }
}
