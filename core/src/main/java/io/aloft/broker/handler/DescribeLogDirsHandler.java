package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.partition.PartitionManager;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeLogDirsRequestData.DescribableLogDirTopic;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsPartition;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsResult;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeLogDirsRequest;
import org.apache.kafka.common.requests.DescribeLogDirsResponse;

/**
 * DescribeLogDirs: one "log dir" per broker — its object storage, where partition data lives —
 * with the size of every partition this broker leads (bytes between log start and end, counted by
 * the partition log's index; approximate to a batch). Capacity is reported as unknown (-1):
 * object storage has no fixed size.
 */
public final class DescribeLogDirsHandler implements ApiHandler<DescribeLogDirsRequest> {
    private final int brokerId;
    private final MetadataCache cache;
    private final PartitionManager partitions;
    private final String logDir;

    public DescribeLogDirsHandler(int brokerId, MetadataCache cache, PartitionManager partitions, String logDir) {
        this.brokerId = brokerId;
        this.cache = cache;
        this.partitions = partitions;
        this.logDir = logDir;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_LOG_DIRS;
    }

    @Override
    public short minVersion() {
        return 1; // the oldest Kafka 4.x brokers serve
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, DescribeLogDirsRequest request) {
        if (!context.authorizedOnCluster(AclOperation.DESCRIBE)) {
            // As Kafka: no log dirs, and from v3 the error saying why.
            DescribeLogDirsResponseData refused = new DescribeLogDirsResponseData().setThrottleTimeMs(0);
            if (request.version() >= 3) {
                refused.setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
            }
            return CompletableFuture.completedFuture(new DescribeLogDirsResponse(refused));
        }
        List<TopicPartition> wanted = new ArrayList<>();
        MetadataCache.View view = cache.view();
        if (request.data().topics() == null) {
            for (TopicInfo t : view.topicsByName().values()) {
                for (PartitionInfo p : t.partitions()) {
                    if (p.brokerId() == brokerId) {
                        wanted.add(new TopicPartition(t.name(), p.partition()));
                    }
                }
            }
        } else {
            for (DescribableLogDirTopic t : request.data().topics()) {
                TopicInfo topic = view.topic(t.topic());
                for (int p : t.partitions()) {
                    if (topic != null && p >= 0 && p < topic.partitions().size()
                            && topic.partitions().get(p).brokerId() == brokerId) {
                        wanted.add(new TopicPartition(t.topic(), p));
                    }
                }
            }
        }
        Map<TopicPartition, CompletableFuture<Long>> sizes = new LinkedHashMap<>();
        for (TopicPartition tp : wanted) {
            sizes.put(tp, partitions.leaderLog(tp).thenApply(log -> log.sizeInBytes()).exceptionally(e -> -1L));
        }
        return CompletableFuture.allOf(sizes.values().toArray(CompletableFuture[]::new)).thenApply(v -> {
            Map<String, List<DescribeLogDirsPartition>> byTopic = new LinkedHashMap<>();
            sizes.forEach((tp, size) -> {
                if (size.join() >= 0) {
                    byTopic.computeIfAbsent(tp.topic(), k -> new ArrayList<>()).add(new DescribeLogDirsPartition()
                            .setPartitionIndex(tp.partition()).setPartitionSize(size.join()).setOffsetLag(0)
                            .setIsFutureKey(false));
                }
            });
            List<DescribeLogDirsTopic> topics = new ArrayList<>();
            byTopic.forEach((name, parts) -> topics.add(new DescribeLogDirsTopic().setName(name).setPartitions(parts)));
            DescribeLogDirsResult dir = new DescribeLogDirsResult().setErrorCode(Errors.NONE.code()).setLogDir(logDir)
                    .setTopics(topics).setTotalBytes(-1).setUsableBytes(-1);
            return new DescribeLogDirsResponse(new DescribeLogDirsResponseData().setThrottleTimeMs(0)
                    .setErrorCode(Errors.NONE.code()).setResults(List.of(dir)));
        });
    }
}
