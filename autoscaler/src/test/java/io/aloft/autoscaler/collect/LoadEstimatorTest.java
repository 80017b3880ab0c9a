package io.aloft.autoscaler.collect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.autoscaler.collect.Observation.BrokerObservation;
import io.aloft.autoscaler.collect.Observation.PartitionKey;
import io.aloft.autoscaler.model.BrokerLoad;
import io.aloft.autoscaler.model.ClusterSnapshot;
import io.aloft.autoscaler.model.PartitionLoad;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** LoadEstimator on synthetic scrapes: what each broker and partition gets, with 10 s between rounds. */
class LoadEstimatorTest {
    private static final long SECOND = 1_000_000_000L;

    private static BrokerObservation broker(int id, String metrics) {
        return new BrokerObservation(id, Optional.of("r" + id), URI.create("http://b" + id + ":9464"),
                metrics == null ? null : PrometheusText.parse(metrics), metrics == null ? "refused" : null,
                metrics != null);
    }

    private static String scrape(long totalIn, long tIn, long tOut, long walUsed, String extra) {
        return "kafka_server_brokertopicmetrics_bytesin_total{topic=\"\"} " + totalIn + "\n"
                + "kafka_server_brokertopicmetrics_bytesin_total{topic=\"t\"} " + tIn + "\n"
                + "kafka_server_brokertopicmetrics_bytesout_total{topic=\"\"} " + tOut + "\n"
                + "kafka_server_brokertopicmetrics_bytesout_total{topic=\"t\"} " + tOut + "\n"
                + "aloft_wal_used_bytes " + walUsed + "\naloft_wal_capacity_bytes 1000\nprocess_cpu_usage 0.5\n" + extra;
    }

    private static Observation round(long nanos, Map<Integer, BrokerObservation> brokers, Map<PartitionKey, Long> leo) {
        Map<PartitionKey, Integer> leaders = new HashMap<>();
        leaders.put(new PartitionKey("t", 0), 1);
        leaders.put(new PartitionKey("t", 1), 1);
        leaders.put(new PartitionKey("t", 2), 2);
        leaders.put(new PartitionKey("u", 0), 2);
        return new Observation(nanos / 1_000_000, nanos, brokers, leaders, leo);
    }

    private static PartitionLoad partition(ClusterSnapshot s, String topic, int p) {
        return s.partitions().stream().filter(l -> l.topic().equals(topic) && l.partition() == p).findFirst()
                .orElseThrow();
    }

    @Test
    void estimate_ratesAndPartitionSharesByOffsetGrowth() {
        Observation before = round(0, Map.of(
                1, broker(1, scrape(1000, 1000, 0, 100, "aloft_wal_full_waits_total 4\n")),
                2, broker(2, scrape(0, 0, 0, 0, ""))),
                Map.of(new PartitionKey("t", 0), 10L, new PartitionKey("t", 1), 10L, new PartitionKey("t", 2), 0L));
        Observation after = round(10 * SECOND, Map.of(
                1, broker(1, scrape(41_000, 41_000, 20_000, 250, "aloft_wal_full_waits_total 24\n")),
                2, broker(2, scrape(0, 0, 0, 0, ""))),
                Map.of(new PartitionKey("t", 0), 110L, new PartitionKey("t", 1), 310L, new PartitionKey("t", 2), 0L));
        ClusterSnapshot s = LoadEstimator.estimate(before, after);

        BrokerLoad b1 = s.broker(1).orElseThrow();
        assertEquals(4000.0, b1.bytesInPerSec());
        assertEquals(2000.0, b1.bytesOutPerSec());
        assertEquals(2.0, b1.walFullWaitsPerSec());
        assertEquals(0.25, b1.walFillRatio());
        assertEquals(0.5, b1.cpuUsage());
        assertEquals(Optional.of("r1"), b1.rack());
        assertTrue(b1.ready());
        // t-0 grew by 100 records, t-1 by 300: a quarter and three quarters of t's 4000 B/s on broker 1.
        assertEquals(1000.0, partition(s, "t", 0).bytesInPerSec(), 1e-9);
        assertEquals(3000.0, partition(s, "t", 1).bytesInPerSec(), 1e-9);
        assertEquals(500.0, partition(s, "t", 0).bytesOutPerSec(), 1e-9);
        assertEquals(1500.0, partition(s, "t", 1).bytesOutPerSec(), 1e-9);
        assertEquals(1, partition(s, "t", 1).broker());
        // Broker 2 has no traffic: zeros, and "u" (no series there) too.
        assertEquals(0.0, partition(s, "t", 2).bytesInPerSec());
        assertEquals(0.0, partition(s, "u", 0).bytesInPerSec());
        assertEquals(2, partition(s, "u", 0).broker());
        // No offsets were listed for u-0: it still appears, on its leader.
        assertEquals(List.of("t-0", "t-1", "t-2", "u-0"), s.partitions().stream().map(PartitionLoad::name).toList());
    }

    @Test
    void estimate_noOffsetGrowth_equalShares_andNoIngress_egressSharedEqually() {
        Map<PartitionKey, Long> same = Map.of(new PartitionKey("t", 0), 5L, new PartitionKey("t", 1), 5L);
        Observation before = round(0, Map.of(1, broker(1, scrape(0, 0, 0, 0, "")),
                2, broker(2, scrape(0, 0, 0, 0, ""))), same);
        Observation after = round(10 * SECOND, Map.of(1, broker(1, scrape(2000, 2000, 600, 0, "")),
                2, broker(2, scrape(0, 0, 0, 0, ""))), same);
        ClusterSnapshot s = LoadEstimator.estimate(before, after);
        assertEquals(100.0, partition(s, "t", 0).bytesInPerSec(), 1e-9);
        assertEquals(100.0, partition(s, "t", 1).bytesInPerSec(), 1e-9);
        assertEquals(30.0, partition(s, "t", 0).bytesOutPerSec(), 1e-9);

        Observation onlyReads = round(20 * SECOND, Map.of(1, broker(1, scrape(2000, 2000, 1600, 0, "")),
                2, broker(2, scrape(0, 0, 0, 0, ""))), same);
        ClusterSnapshot r = LoadEstimator.estimate(after, onlyReads);
        assertEquals(0.0, partition(r, "t", 0).bytesInPerSec());
        assertEquals(50.0, partition(r, "t", 0).bytesOutPerSec(), 1e-9);
        assertEquals(50.0, partition(r, "t", 1).bytesOutPerSec(), 1e-9);
    }

    @Test
    void estimate_brokerRestarted_counterResetNeverNegative() {
        Observation before = round(0, Map.of(1, broker(1, scrape(1_000_000, 1_000_000, 0, 0, "")),
                2, broker(2, scrape(0, 0, 0, 0, ""))), Map.of());
        Observation after = round(10 * SECOND, Map.of(1, broker(1, scrape(5000, 5000, 0, 0, "")),
                2, broker(2, scrape(0, 0, 0, 0, ""))), Map.of());
        ClusterSnapshot s = LoadEstimator.estimate(before, after);
        assertEquals(500.0, s.broker(1).orElseThrow().bytesInPerSec());
        assertEquals(500.0, partition(s, "t", 0).bytesInPerSec() + partition(s, "t", 1).bytesInPerSec(), 1e-9);
    }

    @Test
    void estimate_failedOrFirstScrape_nanAndNotReady() {
        Observation before = round(0, Map.of(1, broker(1, scrape(0, 0, 0, 0, "")), 2, broker(2, null)), Map.of());
        Observation after = round(10 * SECOND, Map.of(1, broker(1, null), 2, broker(2, scrape(10, 10, 0, 0, ""))),
                Map.of());
        ClusterSnapshot s = LoadEstimator.estimate(before, after);
        BrokerLoad failed = s.broker(1).orElseThrow();
        assertFalse(failed.ready());
        assertTrue(Double.isNaN(failed.bytesInPerSec()) && Double.isNaN(failed.walFillRatio()));
        assertTrue(Double.isNaN(partition(s, "t", 0).bytesInPerSec()));
        // Broker 2 answers again: its gauges are known, its rates not before the next round.
        BrokerLoad back = s.broker(2).orElseThrow();
        assertTrue(back.ready());
        assertTrue(Double.isNaN(back.bytesInPerSec()));
        assertEquals(0.5, back.cpuUsage());
    }
}
