package io.aloft.broker.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.group.CommittedOffset;
import io.aloft.broker.interbroker.InterBrokerClient;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link GroupLag} against a fake coordinator, metadata and leaders: which broker is asked for what,
 * what a scrape serves, and the stale and failing cases (the cluster test runs the real thing).
 */
class GroupLagTest {
    private static final int SELF = 1;

    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final AtomicReference<CompletableFuture<List<CommittedOffset>>> committed = new AtomicReference<>();
    private final Map<TopicPartition, Integer> leaders = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Long> localEnds = new ConcurrentHashMap<>();
    private final FakeLeaders remote = new FakeLeaders();
    private GroupLag lag;

    @AfterEach
    void close() {
        if (lag != null) {
            lag.close();
        }
    }

    private GroupLag lag(int max) {
        lag = new GroupLag(limit -> committed.get(), tp -> leaders.getOrDefault(tp, -1),
                tp -> CompletableFuture.completedFuture(localEnds.get(tp)), remote, SELF, max, clock::get,
                Executors.newSingleThreadScheduledExecutor());
        return lag;
    }

    private void commit(CommittedOffset... offsets) {
        committed.set(CompletableFuture.completedFuture(List.of(offsets)));
    }

    @Test
    void refresh_asksEachLeaderOnce_andServesLagOfEveryPartition() throws Exception {
        TopicPartition local = new TopicPartition("t", 0);
        TopicPartition onTwo = new TopicPartition("t", 1);
        TopicPartition alsoOnTwo = new TopicPartition("u", 0);
        TopicPartition onThree = new TopicPartition("t", 2);
        leaders.putAll(Map.of(local, SELF, onTwo, 2, alsoOnTwo, 2, onThree, 3));
        localEnds.put(local, 10L);
        remote.ends.putAll(Map.of(onTwo, 20L, alsoOnTwo, 5L, onThree, 30L));
        commit(new CommittedOffset("g", "t", 0, 4), new CommittedOffset("g", "t", 1, 15),
                new CommittedOffset("g", "u", 0, 5), new CommittedOffset("g", "t", 2, 1),
                new CommittedOffset("h", "t", 2, 30));
        GroupLag lag = lag(100);
        lag.refresh().get(10, TimeUnit.SECONDS);

        assertEquals(Map.of("g/t/0", 6L, "g/t/1", 5L, "g/u/0", 0L, "g/t/2", 29L, "h/t/2", 0L), served(lag.collect()));
        assertEquals(List.of(2, 3), remote.asked.stream().map(a -> a.broker).sorted().toList(),
                "one ListOffsets per other leader, none to this broker");
        Ask two = remote.asked.stream().filter(a -> a.broker == 2).findFirst().orElseThrow();
        assertEquals(List.of(onTwo, alsoOnTwo).stream().sorted(java.util.Comparator.comparing(TopicPartition::toString))
                .toList(), two.partitions.stream().sorted(java.util.Comparator.comparing(TopicPartition::toString))
                .toList());
        assertTrue(two.latest, "latest offsets, read_uncommitted");

        // The consumer catches up and commits: the next refresh serves 0 everywhere.
        commit(new CommittedOffset("g", "t", 0, 10), new CommittedOffset("g", "t", 1, 20),
                new CommittedOffset("g", "u", 0, 5), new CommittedOffset("g", "t", 2, 30),
                new CommittedOffset("h", "t", 2, 30));
        lag.refresh().get(10, TimeUnit.SECONDS);
        assertEquals(Map.of("g/t/0", 0L, "g/t/1", 0L, "g/u/0", 0L, "g/t/2", 0L, "h/t/2", 0L), served(lag.collect()));
    }

    @Test
    void staleOrFailingLeader_keepsItsLastHighWatermark_clampsAtZero_andAgesOut() throws Exception {
        TopicPartition tp = new TopicPartition("t", 0);
        leaders.put(tp, 2);
        remote.ends.put(tp, 10L);
        commit(new CommittedOffset("g", "t", 0, 3));
        GroupLag lag = lag(100);
        lag.refresh().get(10, TimeUnit.SECONDS);
        assertEquals(Map.of("g/t/0", 7L), served(lag.collect()));

        // The metadata here still names broker 2, which no longer leads: the high watermark stays as it
        // was, while the group commits past it; the lag is 0, not negative.
        remote.error = Errors.NOT_LEADER_OR_FOLLOWER;
        commit(new CommittedOffset("g", "t", 0, 12));
        clock.addAndGet(GroupLag.REFRESH_MS);
        lag.refresh().get(10, TimeUnit.SECONDS);
        assertEquals(Map.of("g/t/0", 0L), served(lag.collect()));

        // Leaders failing for longer than MAX_AGE_MS: the series goes rather than freezing.
        remote.error = null;
        remote.fail = true;
        clock.addAndGet(GroupLag.MAX_AGE_MS);
        lag.refresh().get(10, TimeUnit.SECONDS);
        assertEquals(Map.of(), served(lag.collect()));

        // The leader answers again (another broker now: the metadata caught up).
        remote.fail = false;
        leaders.put(tp, 3);
        remote.ends.put(tp, 15L);
        lag.refresh().get(10, TimeUnit.SECONDS);
        assertEquals(Map.of("g/t/0", 3L), served(lag.collect()));
    }

    @Test
    void scrape_neverWaits_forTheCoordinatorOrTheLeaders() throws Exception {
        TopicPartition tp = new TopicPartition("t", 0);
        leaders.put(tp, 2);
        committed.set(new CompletableFuture<>()); // the coordinator shards do not answer
        GroupLag lag = lag(100);
        CompletableFuture<Void> refresh = lag.refresh();
        assertEquals(Map.of(), served(lag.collect()), "nothing known yet, and the scrape returns");
        assertFalse(refresh.isDone());
        remote.ends.put(tp, 4L);
        committed.get().complete(List.of(new CommittedOffset("g", "t", 0, 1)));
        refresh.get(10, TimeUnit.SECONDS);
        assertEquals(Map.of("g/t/0", 3L), served(lag.collect()));
    }

    @Test
    void seriesBeyondTheCap_areLeftOut_inGroupTopicPartitionOrder_andDeletedTopicsSkipped() throws Exception {
        for (int p = 0; p < 3; p++) {
            leaders.put(new TopicPartition("t", p), SELF);
            localEnds.put(new TopicPartition("t", p), 10L);
        }
        // gone-0: its topic was deleted (no leader): not served, and not counted against the cap.
        commit(new CommittedOffset("b", "t", 2, 1), new CommittedOffset("a", "gone", 0, 1),
                new CommittedOffset("a", "t", 1, 2), new CommittedOffset("b", "t", 0, 3));
        GroupLag lag = lag(2);
        lag.refresh().get(10, TimeUnit.SECONDS);
        assertEquals(Map.of("a/t/1", 8L, "b/t/0", 7L), served(lag.collect()));
        assertTrue(lag.warnedOfCap());
    }

    /** group/topic/partition to lag, of the one gauge served (none: empty). */
    private static Map<String, Long> served(MetricSnapshots snapshots) {
        Map<String, Long> out = new HashMap<>();
        snapshots.forEach(s -> {
            assertEquals(GroupLag.NAME, s.getMetadata().getPrometheusName());
            for (DataPointSnapshot d : s.getDataPoints()) {
                GaugeSnapshot.GaugeDataPointSnapshot g = (GaugeSnapshot.GaugeDataPointSnapshot) d;
                assertTrue(g.getValue() >= 0, "lag is never negative");
                out.put(g.getLabels().get("group") + "/" + g.getLabels().get("topic") + "/"
                        + g.getLabels().get("partition"), (long) g.getValue());
            }
        });
        return out;
    }

    private record Ask(int broker, List<TopicPartition> partitions, boolean latest) {
    }

    /** Partition leaders answering ListOffsets from {@link #ends}, or with {@link #error}, or failing the request. */
    private static final class FakeLeaders implements InterBrokerClient {
        final Map<TopicPartition, Long> ends = new ConcurrentHashMap<>();
        final List<Ask> asked = new CopyOnWriteArrayList<>();
        volatile Errors error;
        volatile boolean fail;

        @Override
        public CompletableFuture<AbstractResponse> send(int brokerId, AbstractRequest.Builder<?> builder) {
            ListOffsetsRequest request = (ListOffsetsRequest) builder.build(builder.latestAllowedVersion());
            List<TopicPartition> tps = new ArrayList<>();
            boolean latest = request.isolationLevel().id() == 0;
            ListOffsetsResponseData data = new ListOffsetsResponseData();
            for (var t : request.data().topics()) {
                ListOffsetsTopicResponse tr = new ListOffsetsTopicResponse().setName(t.name());
                for (var p : t.partitions()) {
                    TopicPartition tp = new TopicPartition(t.name(), p.partitionIndex());
                    tps.add(tp);
                    latest &= p.timestamp() == ListOffsetsRequest.LATEST_TIMESTAMP;
                    Long end = ends.get(tp);
                    ListOffsetsPartitionResponse pr = new ListOffsetsPartitionResponse()
                            .setPartitionIndex(p.partitionIndex()).setTimestamp(-1).setOffset(-1);
                    if (error != null || end == null) {
                        pr.setErrorCode((error != null ? error : Errors.UNKNOWN_TOPIC_OR_PARTITION).code());
                    } else {
                        pr.setOffset(end);
                    }
                    tr.partitions().add(pr);
                }
                data.topics().add(tr);
            }
            asked.add(new Ask(brokerId, tps, latest));
            if (fail) {
                return CompletableFuture.failedFuture(new org.apache.kafka.common.errors.DisconnectException("down"));
            }
            return CompletableFuture.completedFuture(new ListOffsetsResponse(data));
        }

        @Override
        public void close() {
        }
    }
}
