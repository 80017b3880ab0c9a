package io.aloft.autoscaler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The policy files in {@code autoscaler/examples/} stay valid: each is loaded as an operator would. */
class ExamplePoliciesTest {

    private static final Path EXAMPLES = Path.of("examples");

    @Test
    void everyExample_loads() throws Exception {
        List<Path> files;
        try (Stream<Path> list = Files.list(EXAMPLES)) {
            files = list.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
        }
        assertEquals(List.of("balance-only.yaml", "burst-to-1gib.yaml", "kubernetes.yaml", "local.yaml", "step.yaml",
                "target-tracking.yaml"), files.stream().map(f -> f.getFileName().toString()).toList());
        for (Path file : files) {
            try {
                PolicyLoader.load(file);
            } catch (PolicyException e) {
                throw new AssertionError(file + ": " + e.getMessage(), e);
            }
        }
    }

    @Test
    void local_isForClusterSh() throws Exception {
        Policy p = PolicyLoader.load(EXAMPLES.resolve("local.yaml"));
        assertEquals(new BackendPolicy.Local(Path.of("cluster"), Path.of("scripts/cluster.sh")), p.backend().orElseThrow());
        assertEquals(Duration.ofSeconds(10), p.interval());
        assertEquals(20 << 20, p.scaling().targetTracking().get(0).target());
        assertTrue(p.scaling().emergency().isPresent());
    }

    @Test
    void kubernetes_scalesTheStatefulSet() throws Exception {
        Policy p = PolicyLoader.load(EXAMPLES.resolve("kubernetes.yaml"));
        assertEquals("aloft-broker", ((BackendPolicy.Kubernetes) p.backend().orElseThrow()).statefulSet());
        assertEquals(100, ((BackendPolicy.Kubernetes) p.backend().orElseThrow()).nodeIdOffset());
        assertEquals(0.65, p.scaling().targetTracking().get(1).target(), 1e-9);
        assertEquals(6, p.scaling().scheduled().get(0).minBrokers().getAsInt());
        assertEquals("http://aloft-broker-2.aloft:9464", p.metrics().url("aloft-broker-2.aloft", 102));
    }

    @Test
    void othersHaveTheirRules() throws Exception {
        assertEquals(80, PolicyLoader.load(EXAMPLES.resolve("target-tracking.yaml")).scaling().targetTracking()
                .get(0).scaleInThresholdPercent());
        assertEquals(3, PolicyLoader.load(EXAMPLES.resolve("step.yaml")).scaling().step().get(0).thresholds().size());
        Policy balanceOnly = PolicyLoader.load(EXAMPLES.resolve("balance-only.yaml"));
        assertTrue(balanceOnly.balancing().dryRun());
        assertTrue(!balanceOnly.scaling().hasRules() && balanceOnly.backend().isEmpty());
    }
}
