package io.aloft.broker.metrics;

import io.aloft.broker.group.CommittedOffset;
import io.aloft.broker.interbroker.InterBrokerClient;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumer group lag, {@code aloft_group_lag_records{group,topic,partition}}: what Kafka's
 * {@code kafka-consumer-groups.sh --describe} shows as LAG, the partition's high watermark (its log
 * end: Aloft acknowledges only durable records) minus the group's committed offset. Kafka's broker
 * has no such meter; Burrow and kafka-lag-exporter compute it from outside.
 *
 * <p><b>Where a series is served.</b> On the group's coordinator, for every partition the group
 * committed, wherever the partition is led: the coordinator holds the committed offsets, and asks
 * each partition leader for its high watermark (ListOffsets, latest, read_uncommitted, over the
 * {@link InterBrokerClient}, one request per leader and refresh; its own partitions are read from
 * their logs, opening one not open yet as a ListOffsets would). That is what the lag exporters do
 * (committed offsets from the coordinator, log ends from the leaders), and it gives each committed
 * (group, topic, partition) one series on exactly one broker, the group's one coordinator, so that
 * {@code sum by (group)} over the cluster counts each partition once. The alternative, each leader
 * asking the coordinators of every group for their offsets of its partitions, would need a request
 * per coordinator and a list of every group on every leader, and would spread a group's series over
 * the brokers. (During a coordinator move, the old and the new coordinator may both serve a group
 * for a refresh or two.)
 *
 * <p><b>Never on the scrape's time.</b> A scrape serves the last refresh's values (each series no
 * older than {@link #MAX_AGE_MS}, the rest left out) and never waits: the committed offsets are read
 * from the coordinator shards' threads and the high watermarks over the network, both in the
 * background. A refresh runs at most every {@link #REFRESH_MS}, while the meter is scraped (each
 * scrape starts one if the last is older than that; after {@link #IDLE_MS} without a scrape the
 * refreshes stop), so a broker nobody scrapes sends nothing. Within one refresh the high watermarks
 * are asked for after the committed offsets are read, so lag is not negative then; but a leader
 * that does not answer keeps its last high watermark (up to {@link #MAX_AGE_MS}), and this broker's
 * metadata may name an old leader for a moment (it answers NOT_LEADER_OR_FOLLOWER, and the value
 * also stays as it was), so a committed offset newer than the high watermark it is compared to is
 * possible: the lag is then clamped at 0, as is the lag of an offset committed past the log end.
 *
 * <p><b>Cardinality.</b> At most {@code aloft.metrics.group.lag.series.max} series: the committed
 * offsets are taken in group, topic, partition order (of partitions of topics that exist), and only
 * those served are refreshed; one WARN when the limit is first reached. Each coordinator shard gives
 * at most that many committed offsets to choose from.
 *
 * <p>Threads: {@link #collect} runs on the scraping thread and only reads a published snapshot and
 * submits a task. Everything else runs on {@code thread} (one thread: the state below is confined
 * to it); the coordinator's and the inter-broker client's futures hand their results back to it.
 */
final class GroupLag implements MultiCollector, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(GroupLag.class);
    static final String NAME = "aloft_group_lag_records";
    /** Least time between the starts of two refreshes. */
    static final long REFRESH_MS = 2_000;
    /** Oldest value a scrape serves: a committed offset or high watermark not read again within this is dropped. */
    static final long MAX_AGE_MS = 60_000;
    /** Refreshes stop this long after the last scrape (the next scrape starts them again). */
    static final long IDLE_MS = 600_000;
    /** Longest wait for the coordinator shards' committed offsets. */
    static final long COMMITTED_TIMEOUT_MS = 30_000;
    private static final String HELP = "Records of a partition a consumer group has not committed: the high "
            + "watermark minus the group's committed offset (kafka-consumer-groups.sh LAG), clamped at 0; served "
            + "by the group's coordinator for every partition it committed, as of the last background refresh";

    private final IntFunction<CompletableFuture<List<CommittedOffset>>> committedSource;
    private final ToIntFunction<TopicPartition> leaderOf;
    private final Function<TopicPartition, CompletableFuture<Long>> localHighWatermark;
    private final InterBrokerClient interBroker;
    private final int nodeId;
    private final int max;
    private final LongSupplier clock;
    private final ScheduledExecutorService thread;
    private final AtomicBoolean warned = new AtomicBoolean();

    /** What a scrape serves, replaced whole by the refresh thread. */
    private volatile List<Lag> published = List.of();
    private volatile long lastScrapeMs;

    // Confined to thread.
    private long lastRefreshMs;
    private boolean everRefreshed;
    private CompletableFuture<Void> round;
    private List<CommittedOffset> committed = List.of();
    /** The partitions of {@link #committed}. */
    private Set<TopicPartition> served = Set.of();
    private long committedReadMs;
    private final Map<TopicPartition, HighWatermark> highWatermarks = new HashMap<>();
    /** Leaders (this broker too) asked and not answered yet: not asked again until they answer. */
    private final Set<Integer> asking = new HashSet<>();

    /** One served series: its lag, and when the older of its two inputs was read. */
    record Lag(String group, String topic, int partition, long lag, long asOfMs) {
    }

    private record HighWatermark(long offset, long readMs) {
    }

    /**
     * @param committedSource the committed offsets of the groups coordinated here, at most the argument
     *     per coordinator shard
     * @param leaderOf a partition's leader in this broker's metadata, -1 if the partition does not exist
     * @param localHighWatermark the high watermark of a partition led here
     * @param thread the refresh thread (one thread; closed with this)
     */
    GroupLag(IntFunction<CompletableFuture<List<CommittedOffset>>> committedSource,
            ToIntFunction<TopicPartition> leaderOf,
            Function<TopicPartition, CompletableFuture<Long>> localHighWatermark,
            InterBrokerClient interBroker, int nodeId, int max, LongSupplier clock, ScheduledExecutorService thread) {
        this.committedSource = committedSource;
        this.leaderOf = leaderOf;
        this.localHighWatermark = localHighWatermark;
        this.interBroker = interBroker;
        this.nodeId = nodeId;
        this.max = max;
        this.clock = clock;
        this.thread = thread;
        this.lastScrapeMs = clock.getAsLong() - IDLE_MS - 1;
        thread.scheduleWithFixedDelay(() -> {
            if (clock.getAsLong() - lastScrapeMs <= IDLE_MS) {
                maybeRefresh();
            }
        }, REFRESH_MS, REFRESH_MS, TimeUnit.MILLISECONDS);
    }

    @Override
    public MetricSnapshots collect() {
        long now = clock.getAsLong();
        lastScrapeMs = now;
        try {
            thread.execute(this::maybeRefresh);
        } catch (RejectedExecutionException closing) {
            return MetricSnapshots.of();
        }
        GaugeSnapshot.Builder lag = GaugeSnapshot.builder().name(NAME).help(HELP);
        int n = 0;
        for (Lag l : published) {
            if (now - l.asOfMs() <= MAX_AGE_MS) {
                lag.dataPoint(GaugeDataPointSnapshot.builder()
                        .labels(Labels.of("group", l.group(), "partition", Integer.toString(l.partition()),
                                "topic", l.topic()))
                        .value(l.lag()).build());
                n++;
            }
        }
        return n == 0 ? MetricSnapshots.of() : MetricSnapshots.of(lag.build());
    }

    /** The series a scrape would serve now, before the age filter (tests). */
    List<Lag> published() {
        return published;
    }

    /**
     * Starts a refresh now, whatever the time since the last (or joins the one under way); completes
     * once its committed offsets and every high watermark it asked for are in and published (tests).
     */
    CompletableFuture<Void> refresh() {
        return CompletableFuture.supplyAsync(this::startRound, thread).thenCompose(f -> f);
    }

    /** On thread: a refresh if none is under way and the last started at least REFRESH_MS ago. */
    private void maybeRefresh() {
        if (round == null && (!everRefreshed || clock.getAsLong() - lastRefreshMs >= REFRESH_MS)) {
            startRound();
        }
    }

    /** On thread. */
    private CompletableFuture<Void> startRound() {
        if (round != null) {
            return round;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        round = done;
        everRefreshed = true;
        lastRefreshMs = clock.getAsLong();
        long readMs = lastRefreshMs;
        CompletableFuture<List<CommittedOffset>> read;
        try {
            read = committedSource.apply(max).orTimeout(COMMITTED_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            read = CompletableFuture.failedFuture(e);
        }
        read.whenCompleteAsync((offsets, error) -> {
            CompletableFuture<Void> asked = CompletableFuture.completedFuture(null);
            try {
                if (error != null) {
                    log.debug("No group lag refresh this time: the committed offsets could not be read", error);
                } else {
                    select(offsets, readMs);
                    asked = askHighWatermarks();
                    publish();
                }
            } finally {
                round = null;
            }
            asked.whenComplete((v, e) -> done.complete(null));
        }, thread);
        return done;
    }

    /** On thread: the committed offsets to serve, within the cap. */
    private void select(List<CommittedOffset> offsets, long readMs) {
        List<CommittedOffset> sorted = new ArrayList<>(offsets);
        sorted.sort(Comparator.comparing(CommittedOffset::group).thenComparing(CommittedOffset::topic)
                .thenComparingInt(CommittedOffset::partition));
        List<CommittedOffset> chosen = new ArrayList<>();
        for (CommittedOffset c : sorted) {
            if (leaderOf.applyAsInt(new TopicPartition(c.topic(), c.partition())) < 0) {
                continue; // a deleted topic's offsets: no log end to compare with
            }
            if (chosen.size() == max) {
                if (warned.compareAndSet(false, true)) {
                    log.warn("Group lag is served for at most {} group partitions "
                            + "(aloft.metrics.group.lag.series.max); the rest are left out", max);
                }
                break;
            }
            chosen.add(c);
        }
        committed = chosen;
        committedReadMs = readMs;
        served = new HashSet<>();
        chosen.forEach(c -> served.add(new TopicPartition(c.topic(), c.partition())));
        highWatermarks.keySet().retainAll(served);
    }

    /**
     * On thread: asks each leader not already being asked for the high watermarks of its partitions
     * among those served; completes when every answer is in (each published as it comes).
     */
    private CompletableFuture<Void> askHighWatermarks() {
        Map<Integer, Set<TopicPartition>> byLeader = new LinkedHashMap<>();
        for (CommittedOffset c : committed) {
            TopicPartition tp = new TopicPartition(c.topic(), c.partition());
            byLeader.computeIfAbsent(leaderOf.applyAsInt(tp), l -> new java.util.TreeSet<>(
                    Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition))).add(tp);
        }
        List<CompletableFuture<Void>> answers = new ArrayList<>();
        for (Map.Entry<Integer, Set<TopicPartition>> e : byLeader.entrySet()) {
            int leader = e.getKey();
            if (!asking.add(leader)) {
                continue; // its last answer is still due (a leader down: the request times out)
            }
            long askedMs = clock.getAsLong();
            CompletableFuture<Map<TopicPartition, Long>> answer;
            try {
                answer = leader == nodeId ? readLocal(e.getValue()) : listOffsets(leader, e.getValue());
            } catch (RuntimeException failed) {
                answer = CompletableFuture.failedFuture(failed);
            }
            answers.add(answer.handleAsync((found, error) -> {
                asking.remove(leader);
                if (error != null) {
                    log.debug("No high watermarks from broker {} for the group lag this time", leader, error);
                } else {
                    found.forEach((tp, hw) -> {
                        if (served.contains(tp)) {
                            highWatermarks.put(tp, new HighWatermark(hw, askedMs));
                        }
                    });
                    publish();
                }
                return null;
            }, thread));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new));
    }

    /** The high watermarks of partitions led here, from their logs (a failed one is left out). */
    private CompletableFuture<Map<TopicPartition, Long>> readLocal(Set<TopicPartition> tps) {
        Map<TopicPartition, CompletableFuture<Long>> reads = new LinkedHashMap<>();
        for (TopicPartition tp : tps) {
            reads.put(tp, localHighWatermark.apply(tp).exceptionally(e -> null));
        }
        return CompletableFuture.allOf(reads.values().toArray(CompletableFuture[]::new)).thenApply(v -> {
            Map<TopicPartition, Long> out = new HashMap<>();
            reads.forEach((tp, f) -> {
                Long hw = f.join();
                if (hw != null) {
                    out.put(tp, hw);
                }
            });
            return out;
        });
    }

    /** The high watermarks {@code leader} answers for (a partition it answers an error for is left out). */
    private CompletableFuture<Map<TopicPartition, Long>> listOffsets(int leader, Set<TopicPartition> tps) {
        Map<String, ListOffsetsTopic> topics = new LinkedHashMap<>();
        for (TopicPartition tp : tps) {
            topics.computeIfAbsent(tp.topic(), t -> new ListOffsetsTopic().setName(t)).partitions().add(
                    new ListOffsetsPartition().setPartitionIndex(tp.partition())
                            .setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP));
        }
        ListOffsetsRequest.Builder request = ListOffsetsRequest.Builder
                .forConsumer(false, IsolationLevel.READ_UNCOMMITTED)
                .setTargetTimes(new ArrayList<>(topics.values()));
        return interBroker.send(leader, request).thenApply(GroupLag::highWatermarks);
    }

    private static Map<TopicPartition, Long> highWatermarks(AbstractResponse response) {
        Map<TopicPartition, Long> out = new HashMap<>();
        for (ListOffsetsTopicResponse t : ((ListOffsetsResponse) response).data().topics()) {
            for (ListOffsetsPartitionResponse p : t.partitions()) {
                if (p.errorCode() == Errors.NONE.code() && p.offset() >= 0) {
                    out.put(new TopicPartition(t.name(), p.partitionIndex()), p.offset());
                }
            }
        }
        return out;
    }

    /** On thread: the served series from the committed offsets and the high watermarks known now. */
    private void publish() {
        List<Lag> out = new ArrayList<>(committed.size());
        for (CommittedOffset c : committed) {
            HighWatermark hw = highWatermarks.get(new TopicPartition(c.topic(), c.partition()));
            if (hw != null) {
                out.add(new Lag(c.group(), c.topic(), c.partition(), Math.max(0, hw.offset() - c.offset()),
                        Math.min(committedReadMs, hw.readMs())));
            }
        }
        published = List.copyOf(out);
    }

    /** Whether the one WARN of the cap was logged (tests). */
    boolean warnedOfCap() {
        return warned.get();
    }

    /** Stops the refreshes; a scrape after this serves nothing. */
    @Override
    public void close() {
        thread.shutdownNow();
    }
}
