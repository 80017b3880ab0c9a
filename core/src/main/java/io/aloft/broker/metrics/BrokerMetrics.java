package io.aloft.broker.metrics;

import io.aloft.broker.fetch.FetchSessionCache;
import io.aloft.broker.group.GroupCoordinator;
import io.aloft.broker.interbroker.InterBrokerClient;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.partition.PartitionManager;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import io.aloft.metrics.MetricsConfig;
import io.aloft.metrics.ServerMetrics;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.function.ToDoubleFunction;
import org.apache.kafka.common.TopicPartition;

/**
 * A broker's own meters beyond the network layer's: {@link BrokerTopicMetrics} (which the produce
 * and fetch handlers update), partition and broker counts read from the metadata cache, consumer
 * consumer group lag ({@link GroupLag}: served by each group's coordinator for every partition
 * the group committed, refreshed in the background) and, when
 * {@code aloft.metrics.partition.series.enable} is on, per-partition offsets and sizes. The last two
 * have label sets that change from one scrape to the next, so they are collectors rather than
 * registered meters; the per-partition ones are computed at scrape time, on the scraping thread.
 *
 * <p>Thread-safe. Closing stops the group lag's refresh thread.
 */
public final class BrokerMetrics implements AutoCloseable {
    private final BrokerTopicMetrics topics;
    /** Null when aloft.metrics.group.lag.series.max is 0. */
    private final GroupLag groupLag;

    private BrokerMetrics(BrokerTopicMetrics topics, GroupLag groupLag) {
        this.topics = topics;
        this.groupLag = groupLag;
    }

    /**
     * Registers the broker's meters on {@code metrics}; the per-topic ones are handed to the handlers
     * through {@link #topics()}.
     */
    public static BrokerMetrics bind(ServerMetrics metrics, MetricsConfig config, int nodeId, MetadataCache cache,
            PartitionManager partitions, GroupCoordinator groups, FetchSessionCache fetchSessions,
            InterBrokerClient interBroker, ThreadFactory threads) {
        MeterRegistry registry = metrics.registry();
        FetchSessionMeters.bind(registry, fetchSessions);
        BrokerTopicMetrics topics = new BrokerTopicMetrics(registry, config.topicSeriesMax(),
                topic -> cache.view().topic(topic) != null);
        // A deleted topic's series go with it.
        cache.onTopicsChanged(() -> topics.retainTopics(cache.view().topicsByName().keySet()));
        bindPartitionCounts(registry, nodeId, cache);
        GroupLag groupLag = null;
        if (config.groupLagSeriesMax() > 0) {
            groupLag = new GroupLag(groups::committedOffsets, tp -> leaderOf(cache, tp),
                    tp -> partitions.leaderLog(tp).thenApply(PartitionLog::highWatermark), interBroker, nodeId,
                    config.groupLagSeriesMax(), System::currentTimeMillis,
                    Executors.newSingleThreadScheduledExecutor(threads));
            metrics.registerCollector(groupLag);
        }
        if (config.partitionSeries()) {
            metrics.registerCollector(new PartitionSeries(partitions));
        }
        return new BrokerMetrics(topics, groupLag);
    }

    /** A partition's leader in this broker's metadata; -1 if the partition does not exist. */
    private static int leaderOf(MetadataCache cache, TopicPartition tp) {
        TopicInfo topic = cache.view().topic(tp.topic());
        if (topic == null || tp.partition() < 0 || tp.partition() >= topic.partitions().size()) {
            return -1;
        }
        return topic.partitions().get(tp.partition()).brokerId();
    }

    @Override
    public void close() {
        if (groupLag != null) {
            groupLag.close();
        }
    }

    /** The per-topic meters, for the produce and fetch handlers. */
    public BrokerTopicMetrics topics() {
        return topics;
    }

    private static void bindPartitionCounts(MeterRegistry registry, int nodeId, MetadataCache cache) {
        // Each partition has one replica, its leader: the partitions assigned here are the ones it leads.
        ToDoubleFunction<MetadataCache> assigned = c -> countPartitions(c, p -> p.brokerId() == nodeId);
        Gauge.builder("kafka.server.replicamanager.partitioncount", cache, assigned)
                .description("Partitions assigned to this broker (each has one replica, led here); Kafka's "
                        + "ReplicaManager PartitionCount").register(registry);
        Gauge.builder("kafka.server.replicamanager.leadercount", cache, assigned)
                .description("Partitions this broker leads; Kafka's ReplicaManager LeaderCount").register(registry);
        Gauge.builder("kafka.controller.kafkacontroller.activebrokercount", cache,
                        c -> c.view().brokers().values().stream().filter(b -> b.state() == BrokerState.ACTIVE).count())
                .description("Active (registered, unfenced, not draining) brokers in this broker's metadata; "
                        + "Kafka's KafkaController ActiveBrokerCount (every broker reports it here)")
                .register(registry);
        Gauge.builder("kafka.controller.kafkacontroller.offlinepartitionscount", cache,
                        c -> countPartitions(c, p -> !served(c.view().brokers().get(p.brokerId()))))
                .description("Partitions whose assigned broker is unknown or fenced, in this broker's metadata; "
                        + "Kafka's KafkaController OfflinePartitionsCount (every broker reports it here)")
                .register(registry);
    }

    private static boolean served(BrokerInfo broker) {
        return broker != null && broker.state() != BrokerState.FENCED;
    }

    private static double countPartitions(MetadataCache cache, java.util.function.Predicate<PartitionInfo> which) {
        long n = 0;
        for (TopicInfo t : cache.view().topicsByName().values()) {
            for (PartitionInfo p : t.partitions()) {
                if (which.test(p)) {
                    n++;
                }
            }
        }
        return n;
    }

    /** Per-partition series of the partitions led here (aloft.metrics.partition.series.enable). */
    private static final class PartitionSeries implements MultiCollector {
        private final PartitionManager partitions;

        PartitionSeries(PartitionManager partitions) {
            this.partitions = partitions;
        }

        @Override
        public MetricSnapshots collect() {
            Map<TopicPartition, PartitionLog> logs = partitions.openLogs();
            if (logs.isEmpty()) {
                return MetricSnapshots.of();
            }
            return MetricSnapshots.of(
                    gauge(logs, "kafka_log_log_logendoffset", "Offset past the last durable record of a partition "
                            + "led here; Kafka's Log LogEndOffset", PartitionLog::highWatermark),
                    gauge(logs, "kafka_log_log_logstartoffset", "First offset still in a partition led here; "
                            + "Kafka's Log LogStartOffset", PartitionLog::logStartOffset),
                    gauge(logs, "kafka_log_log_size", "Bytes of a partition led here (approximate, per index entry); "
                            + "Kafka's Log Size", PartitionLog::sizeInBytes));
        }

        private static GaugeSnapshot gauge(Map<TopicPartition, PartitionLog> logs, String name, String help,
                ToDoubleFunction<PartitionLog> value) {
            GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help);
            logs.forEach((tp, l) -> b.dataPoint(GaugeDataPointSnapshot.builder()
                    .labels(Labels.of("partition", Integer.toString(tp.partition()), "topic", tp.topic()))
                    .value(value.applyAsDouble(l)).build()));
            return b.build();
        }
    }
}
