package io.aloft.broker.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The sampled rate and Kafka's throttle formula, on a hand-driven clock. */
class SampledRateTest {

    @Test
    void rate_newClient_isTakenOverAtLeastSamplesMinusOneWindows() {
        SampledRate r = new SampledRate(11, 1000, 0);
        // 10 KB at once: spread over 10 windows, not an infinite rate.
        assertEquals(1024.0, r.record(10_240, 0), 1e-9);
        assertEquals(10_000, r.measuredMs(0));
        assertEquals(10_500, r.measuredMs(500));
    }

    @Test
    void rate_afterAllWindows_countsOnlyTheWindowsThatRemain() {
        SampledRate r = new SampledRate(3, 1000, 0);
        r.record(3000, 0);
        r.record(3000, 1000);
        r.record(3000, 2000);
        assertEquals(9000 * 1000.0 / 2500, r.rate(2500), 1e-9);
        // At 3500 the first window (started at 0) is older than 3 windows: it no longer counts.
        r.record(0, 3500);
        assertEquals(6000 * 1000.0 / 2500, r.rate(3500), 1e-9);
        // Long idle: nothing counts any more.
        assertEquals(0.0, r.rate(60_000), 1e-9);
    }

    @Test
    void throttleMs_overQuota_isTheTimeUntilTheRateIsBackAtIt() {
        // 150 B/s measured over 10 s against 100 B/s: 1500 B need 15 s, i.e. 5 s more.
        assertEquals(5000, QuotaManager.throttleMs(150, 100, 10_000));
        assertEquals(0, QuotaManager.throttleMs(100, 100, 10_000));
        assertEquals(0, QuotaManager.throttleMs(50, 100, 10_000));
        assertEquals(0, QuotaManager.throttleMs(500, Double.NaN, 10_000), "a NaN quota (Kafka accepts it) limits nothing");
        assertEquals(Integer.MAX_VALUE, QuotaManager.throttleMs(1e300, 1, 10_000));
    }

    @Test
    void recordAndThrottleMs_sharesTheRateOfTheQuotasEntity_andIgnoresClientsWithoutQuota() {
        QuotaManager m = new QuotaManager(QuotaType.PRODUCE, QuotaConfig.fromProperties(java.util.Map.of()));
        ClientQuotas.Limit alice = new ClientQuotas.Limit(1000, "alice", "");
        assertEquals(0, m.recordAndThrottleMs(alice, 10_000, 0)); // 10 s worth at 1000 B/s: at the quota
        assertEquals(2000, m.recordAndThrottleMs(alice, 2_000, 0)); // 12000 B over 10 s against 1000 B/s
        assertEquals(1200.0, m.rate("alice", "", 0), 1e-9);
        assertEquals(0, m.recordAndThrottleMs(null, 1e12, 0));
        assertEquals(0.0, m.rate("bob", "", 0), 1e-9);
    }
}
