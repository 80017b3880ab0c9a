package io.aloft.broker.metrics;

import io.aloft.broker.group.CommittedOffset;
import io.aloft.broker.fetch.FetchSessionCache;
import io.aloft.broker.group.GroupCoordinator;
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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToDoubleFunction;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker's own meters beyond the network layer's: {@link BrokerTopicMetrics} (which the produce
 * and fetch handlers update), partition and broker counts read from the metadata cache, consumer
 * group lag and, when {@code aloft.metrics.partition.series.enable} is on, per-partition offsets
 * and sizes. The last two are computed at scrape time, on the scraping thread: their label sets
 * change from one scrape to the next.
 *
 * <p><b>Group lag</b> ({@code aloft_group_lag_records{group,topic,partition}}) is what Kafka's
 * {@code kafka-consumer-groups.sh --describe} shows as LAG: the partition's high watermark (its log
 * end: Aloft acknowledges only durable records) minus the group's committed offset. Kafka's broker
 * has no such meter (Burrow and kafka-lag-exporter compute it from outside). Here each broker serves
 * the lag of the groups it coordinates, for the partitions it leads (another broker's log end is not
 * known here without a request), at most {@code aloft.metrics.group.lag.series.max} series a
 * scrape (each coordinator shard gives at most that many committed offsets; those served are the
 * first in group, topic, partition order). Reading the committed offsets asks every coordinator
 * shard, on its own thread; a scrape waits for them at most {@link #LAG_WAIT_MS} and otherwise
 * serves no lag series that time.
 *
 * <p>Thread-safe.
 */
public final class BrokerMetrics {
    private static final Logger log = LoggerFactory.getLogger(BrokerMetrics.class);
    /** How long one scrape waits for the group coordinator's committed offsets. */
    static final long LAG_WAIT_MS = 2_000;

    private final BrokerTopicMetrics topics;

    private BrokerMetrics(BrokerTopicMetrics topics) {
        this.topics = topics;
    }

    /**
     * Registers the broker's meters on {@code metrics}; the per-topic ones are handed to the handlers
     * through {@link #topics()}.
     */
    public static BrokerMetrics bind(ServerMetrics metrics, MetricsConfig config, int nodeId, MetadataCache cache,
            PartitionManager partitions, GroupCoordinator groups, FetchSessionCache fetchSessions) {
        MeterRegistry registry = metrics.registry();
        FetchSessionMeters.bind(registry, fetchSessions);
        BrokerTopicMetrics topics = new BrokerTopicMetrics(registry, config.topicSeriesMax(),
                topic -> cache.view().topic(topic) != null);
        // A deleted topic's series go with it.
        cache.onTopicsChanged(() -> topics.retainTopics(cache.view().topicsByName().keySet()));
        bindPartitionCounts(registry, nodeId, cache);
        if (config.groupLagSeriesMax() > 0) {
            metrics.registerCollector(new GroupLag(groups, partitions, config.groupLagSeriesMax()));
        }
        if (config.partitionSeries()) {
            metrics.registerCollector(new PartitionSeries(partitions));
        }
        return new BrokerMetrics(topics);
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

    /** Group lag, computed at scrape time (see the class comment). */
    private static final class GroupLag implements MultiCollector {
        private static final String NAME = "aloft_group_lag_records";
        private final GroupCoordinator groups;
        private final PartitionManager partitions;
        private final int max;
        private final AtomicBoolean warned = new AtomicBoolean();

        GroupLag(GroupCoordinator groups, PartitionManager partitions, int max) {
            this.groups = groups;
            this.partitions = partitions;
            this.max = max;
        }

        @Override
        public MetricSnapshots collect() {
            List<CommittedOffset> committed;
            try {
                committed = new ArrayList<>(groups.committedOffsets(max).get(LAG_WAIT_MS, TimeUnit.MILLISECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return MetricSnapshots.of();
            } catch (Exception e) {
                log.debug("No group lag this scrape: the committed offsets could not be read", e);
                return MetricSnapshots.of();
            }
            committed.sort(Comparator.comparing(CommittedOffset::group).thenComparing(CommittedOffset::topic)
                    .thenComparingInt(CommittedOffset::partition));
            Map<TopicPartition, PartitionLog> logs = partitions.openLogs();
            GaugeSnapshot.Builder lag = GaugeSnapshot.builder().name(NAME)
                    .help("Records of a partition a consumer group has not committed: the high watermark minus the "
                            + "group's committed offset (kafka-consumer-groups.sh LAG), for the groups this broker "
                            + "coordinates in the partitions it leads");
            int n = 0;
            for (CommittedOffset c : committed) {
                PartitionLog partition = logs.get(new TopicPartition(c.topic(), c.partition()));
                if (partition == null) {
                    continue;
                }
                if (n == max) {
                    if (warned.compareAndSet(false, true)) {
                        log.warn("Group lag is served for at most {} group partitions "
                                + "(aloft.metrics.group.lag.series.max); the rest are left out", max);
                    }
                    break;
                }
                lag.dataPoint(GaugeDataPointSnapshot.builder()
                        .labels(Labels.of("group", c.group(), "partition", Integer.toString(c.partition()),
                                "topic", c.topic()))
                        .value(Math.max(0, partition.highWatermark() - c.offset())).build());
                n++;
            }
            return n == 0 ? MetricSnapshots.of() : MetricSnapshots.of(lag.build());
        }
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
