package io.aloft.autoscaler.balance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.autoscaler.model.ClusterSnapshot;
import io.aloft.autoscaler.model.PartitionLoad;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The balancer at the scale of the README's scenario: 30 brokers, 1000 partitions with skewed loads
 * over three racks. Asserts the outcome (every goal within its band), never the time it took.
 */
class BalanceSimulationTest {
    private static final double MIB = 1024 * 1024;

    @Test
    void plan_thirtyBrokersThousandPartitions_endsWithinEveryBand() {
        ClusterSnapshot before = BalanceSimulation.skewedCluster(30, 3, 1000, 1024 * MIB, 1);
        Balancer balancer = new Balancer(BalancerConfig.defaults().withMaxMovesPerPlan(5000));

        Plan plan = balancer.plan(before, Set.of());
        ClusterSnapshot after = Balancer.apply(before, plan);

        assertTrue(Math.abs(BalanceSimulation.maxInDeviationPercent(before)) > 50, "skewed to start with");
        assertWithinBands(after, 30, plan.findings().toString());
        assertTrue(balancer.plan(after, Set.of()).isEmpty(), "nothing left to do");
        assertTrue(plan.findings().get(3).startsWith("network-in: max deviation +131.6% (broker 29) -> "),
                plan.findings().get(3));
    }

    @Test
    void run_defaultBudgetPerPlan_convergesOverSeveralPlans() {
        ClusterSnapshot before = BalanceSimulation.skewedCluster(30, 3, 1000, 1024 * MIB, 2);

        BalanceSimulation.Result result = BalanceSimulation.run(before, Set.of(),
                new Balancer(BalancerConfig.defaults()), 20);

        assertTrue(result.plans() > 1 && result.plans() < 20, result.summary());
        assertWithinBands(result.after(), 30, result.summary());
        assertTrue(result.summary().startsWith("30 brokers, 1000 partitions: network-in max deviation +145.9% -> "),
                result.summary());
    }

    @Test
    void run_scaleOutByTenBrokers_newBrokersFillToTheBand() {
        ClusterSnapshot balanced = BalanceSimulation.run(BalanceSimulation.skewedCluster(20, 3, 1000, 1024 * MIB, 3),
                Set.of(), new Balancer(BalancerConfig.defaults().withMaxMovesPerPlan(5000)), 5).after();
        ClusterSnapshot scaledOut = BalanceSimulation.withNewBrokers(balanced, 10, 3);

        BalanceSimulation.Result result = BalanceSimulation.run(scaledOut, Set.of(),
                new Balancer(BalancerConfig.defaults().withMaxMovesPerPlan(5000)), 5);

        assertWithinBands(result.after(), 30, result.summary());
        for (int id = 21; id <= 30; id++) {
            int broker = id;
            assertTrue(result.after().partitions().stream().anyMatch(p -> p.broker() == broker), "broker " + id);
        }
    }

    @Test
    void run_drainThreeOfThirty_emptiesThemAndBalancesTheRest() {
        ClusterSnapshot balanced = BalanceSimulation.run(BalanceSimulation.skewedCluster(30, 3, 1000, 1024 * MIB, 4),
                Set.of(), new Balancer(BalancerConfig.defaults().withMaxMovesPerPlan(5000)), 5).after();

        BalanceSimulation.Result result = BalanceSimulation.run(balanced, Set.of(28, 29, 30),
                new Balancer(BalancerConfig.defaults().withMaxMovesPerPlan(5000)), 5);

        assertTrue(result.after().partitions().stream().noneMatch(p -> p.broker() >= 28), result.summary());
        ClusterSnapshot remaining = new ClusterSnapshot(0,
                result.after().brokers().stream().filter(b -> b.id() < 28).toList(), result.after().partitions());
        assertWithinBands(remaining, 27, result.summary());
    }

    @Test
    void run_stepFrom100MiBTo1GiBAndScaleOut_balancedAgain() {
        // The README's paper scenario: balanced at 100 MiB/s on 20 brokers, the load steps 10x and the
        // autoscaler adds 10 brokers; the balancer fills them.
        Balancer balancer = new Balancer(BalancerConfig.defaults());
        ClusterSnapshot calm = BalanceSimulation.run(BalanceSimulation.skewedCluster(20, 3, 1000, 100 * MIB, 5),
                Set.of(), balancer, 50).after();
        ClusterSnapshot stepped = BalanceSimulation.withLoadScaled(calm, 10);
        assertEquals(10 * calm.totalBytesInPerSec(), stepped.totalBytesInPerSec(), 1e-3 * MIB);

        BalanceSimulation.Result result = BalanceSimulation.run(BalanceSimulation.withNewBrokers(stepped, 10, 3),
                Set.of(), balancer, 50);

        assertWithinBands(result.after(), 30, result.summary());
        assertTrue(result.plans() > 1, "more than one default budget of 100 moves: " + result.summary());
    }

    /** Network in and out within +-10%, partition counts within the count band, racks even. */
    private static void assertWithinBands(ClusterSnapshot s, int brokers, String context) {
        assertEquals(brokers, s.brokers().size());
        assertTrue(Math.abs(BalanceSimulation.maxInDeviationPercent(s)) <= 10 + 1e-6, context);
        assertTrue(Math.abs(BalanceSimulation.maxOutDeviationPercent(s)) <= 10 + 1e-6, context);
        double mean = (double) s.partitions().size() / brokers;
        double slack = Math.max(1, mean * 0.1);
        for (var b : s.brokers()) {
            long count = s.partitions().stream().filter(p -> p.broker() == b.id()).count();
            assertTrue(count >= Math.floor(mean - slack) && count <= Math.ceil(mean + slack),
                    "broker " + b.id() + " has " + count + "; " + context);
        }
        assertEquals(0, BalancerTest.unevenTopics(s), context);
        assertTrue(s.partitions().stream().map(PartitionLoad::broker).allMatch(id -> s.broker(id).isPresent()));
    }
}
