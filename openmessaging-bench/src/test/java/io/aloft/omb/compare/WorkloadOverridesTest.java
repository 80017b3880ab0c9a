package io.aloft.omb.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.omb.workload.DriverConfig;
import io.aloft.omb.workload.Workload;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkloadOverridesTest {
    private static final Workload BASE = new Workload("w", 1, 16, 1024, null, 1, 1, 1, 0, 0, 1.0, 15, 1, "NO_KEY");

    @Test
    void apply_replacesNamedFieldsOnly() {
        Workload w = WorkloadOverrides.apply(BASE, Map.of("producerRate", "52000", "testDurationMinutes", "0.5",
                "consumerBacklogSizeGB", "4"));
        assertEquals(52000, w.producerRate());
        assertEquals(0.5, w.testDurationMinutes());
        assertEquals(4, w.consumerBacklogSizeGB());
        assertEquals(16, w.partitionsPerTopic());
        assertEquals("NO_KEY", w.keyDistributor());
    }

    @Test
    void apply_unknownFieldOrBadNumber_namesIt() {
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> WorkloadOverrides.apply(BASE, Map.of("rate", "1")));
        assertTrue(unknown.getMessage().startsWith("'rate' is not a workload field"), unknown.getMessage());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> WorkloadOverrides.apply(BASE, Map.of("producerRate", "fast")));
        assertTrue(bad.getMessage().startsWith("producerRate:"), bad.getMessage());
    }

    @Test
    void shippedPlan_loadsAndNamesExistingFiles() throws Exception {
        ComparePlan plan = ComparePlan.load(Path.of("compare-plan.yaml"));
        assertEquals("max-throughput", plan.steps().get(0).name());
        assertEquals("max-throughput", plan.step("latency-50pct").rateFrom());
        ComparePlan.Step txn = plan.step("transactions");
        assertTrue(DriverConfig.load(txn.driver()).transactions().enabled(),
                "the transactions step runs a transactional driver");
        assertEquals(100, DriverConfig.load(txn.driver()).transactions().messagesPerTransaction());
        assertEquals(1024, Workload.load(txn.workload()).messageSize());
        for (String name : new String[] {"share", "share-max"}) {
            ComparePlan.Step share = plan.step(name);
            assertTrue(DriverConfig.load(share.driver()).shareGroups().enabled(), name + " reads with share groups");
            Workload w = WorkloadOverrides.apply(Workload.load(share.workload()), share.overrides());
            assertEquals(1, w.topics() * w.partitionsPerTopic(), name + ": one partition");
            assertEquals(name.equals("share") ? 10_000 : 0, w.producerRate(), name);
        }
    }
}
