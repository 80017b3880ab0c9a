package io.aloft.autoscaler.simulate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.autoscaler.policy.Policy;
import io.aloft.autoscaler.policy.PolicyLoader;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The issue's 30-broker scenario on paper, with the real policy code: 3 brokers at 100 MiB/s step
 * to 1 GiB/s under {@code examples/burst-to-1gib.yaml}; the first evaluation decides 30 brokers,
 * they serve after the assumed boot time, and the balancer's plans, run in the executor's batches,
 * bring every broker's ingress inside the band. Virtual time: nothing here is a timing assertion.
 */
class StepSimulationTest {

    @Test
    void burstTo1GiB_scalesTo30AndBalances() throws Exception {
        Policy policy = PolicyLoader.load(Path.of("examples", "burst-to-1gib.yaml"));
        StepSimulation.Result r = StepSimulation.run(policy, StepSimulation.Scenario.issue18());
        r.events().forEach(System.out::println);

        assertEquals(Duration.ofSeconds(30), r.decision(), "decided at the first evaluation after the step");
        assertEquals(30, r.brokers());
        assertEquals(Duration.ofSeconds(90), r.serving(), "the boot time after the decision");
        assertNotNull(r.balanced(), "balanced within the horizon");
        assertTrue(Math.abs(r.inDeviationPercent()) <= policy.balancing().networkBandPercent(),
                "ingress inside the band: " + r.inDeviationPercent());
        assertTrue(r.moves() > 0);
    }

    @Test
    void sameScenario_sameOutcome() throws Exception {
        Policy policy = PolicyLoader.load(Path.of("examples", "burst-to-1gib.yaml"));
        assertEquals(StepSimulation.run(policy, StepSimulation.Scenario.issue18()).events(),
                StepSimulation.run(policy, StepSimulation.Scenario.issue18()).events());
    }
}
