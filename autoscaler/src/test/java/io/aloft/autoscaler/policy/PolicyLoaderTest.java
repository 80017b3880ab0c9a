package io.aloft.autoscaler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class PolicyLoaderTest {

    private static final String FULL = """
            interval: 15s
            minBrokers: 2
            maxBrokers: 10
            balancing:
              enabled: true
              dryRun: true
              networkBandPercent: 15
              trivialBrokerBytesPerSec: 2MiB
              minMoveBytesPerSec: 100KB
              partitionCountBandPercent: 25
              rackAware: false
              slowBrokerWalP99: 250ms
              maxMovesPerPlan: 20
            execution:
              maxConcurrentMovesPerBroker: 3
              pauseBetweenBatches: PT2S
              maxMovesPerRun: 30
              moveTimeout: 2m
            scaling:
              targetTracking:
                - metric: bytesInPerBroker
                  target: 40MiB
                - metric: cpu
                  target: "70%"
                  scaleInThresholdPercent: 80
              step:
                - metric: bytesOutPerBroker
                  thresholds:
                    - upperBound: 10MB
                      adjustment: -1
                    - lowerBound: 100MB
                      upperBound: 200MB
                      adjustment: +1
                    - lowerBound: 200MB
                      adjustment: "+3"
              scheduled:
                - cron: "0 8 * * MON-FRI"
                  timezone: Europe/Paris
                  duration: 10h
                  minBrokers: 4
              emergency:
                walFullWaitsPerSec: 5
                walFillRatio: 0.9
                produceP99: 500ms
                for: 3
                add: 2
              cooldown:
                scaleOut: 90s
                scaleIn: 10m
              scaleIn:
                enabled: false
                stabilizationWindow: 15m
            backend:
              type: kubernetes
              namespace: kafka
              statefulSet: aloft-broker
              nodeIdOffset: 100
              kubeconfig: /etc/kube/config
            metrics:
              urlTemplate: "http://{host}:9464"
            """;

    @Test
    void parse_everySection_readsEveryValueInItsUnit() throws Exception {
        Policy p = PolicyLoader.parse(FULL);
        assertEquals(Duration.ofSeconds(15), p.interval());
        assertEquals(2, p.minBrokers());
        assertEquals(10, p.maxBrokers());
        assertEquals(new BalancingPolicy(true, true, 15, 2 << 20, 100_000, 25, false, Duration.ofMillis(250), 20),
                p.balancing());
        assertEquals(new ExecutionPolicy(3, Duration.ofSeconds(2), 30, Duration.ofMinutes(2)), p.execution());
        ScalingPolicy s = p.scaling();
        assertEquals(List.of(new TargetTrackingRule(Metric.BYTES_IN_PER_BROKER, 40 << 20, 90),
                new TargetTrackingRule(Metric.CPU, 0.7, 80)), s.targetTracking());
        assertEquals(List.of(new StepRule(Metric.BYTES_OUT_PER_BROKER, List.of(
                new StepRule.Threshold(OptionalDouble.empty(), OptionalDouble.of(10e6), -1),
                new StepRule.Threshold(OptionalDouble.of(100e6), OptionalDouble.of(200e6), 1),
                new StepRule.Threshold(OptionalDouble.of(200e6), OptionalDouble.empty(), 3)))), s.step());
        assertEquals(List.of(new ScheduledRule("0 8 * * MON-FRI", ZoneId.of("Europe/Paris"), OptionalInt.of(4),
                OptionalInt.empty(), Duration.ofHours(10))), s.scheduled());
        assertEquals(Optional.of(new EmergencyRule(OptionalDouble.of(5), OptionalDouble.of(0.9),
                Optional.of(Duration.ofMillis(500)), 3, 2)), s.emergency());
        assertEquals(new ScalingPolicy.Cooldown(Duration.ofSeconds(90), Duration.ofMinutes(10)), s.cooldown());
        assertEquals(new ScalingPolicy.ScaleIn(false, Duration.ofMinutes(15)), s.scaleIn());
        assertEquals(Optional.of(new BackendPolicy.Kubernetes("kafka", "aloft-broker", 100,
                Optional.of(Path.of("/etc/kube/config")))), p.backend());
        assertEquals("http://b-3.example:9464", p.metrics().url("b-3.example", 3));
    }

    @Test
    void parse_onlyMaxBrokers_everythingElseAtItsDefault() throws Exception {
        Policy p = PolicyLoader.parse("maxBrokers: 3\n");
        assertEquals(Duration.ofSeconds(30), p.interval());
        assertEquals(1, p.minBrokers());
        assertEquals(BalancingPolicy.DEFAULTS, p.balancing());
        assertEquals(ExecutionPolicy.DEFAULTS, p.execution());
        assertEquals(new ExecutionPolicy(2, Duration.ofSeconds(5), 50, Duration.ofSeconds(60)), p.execution());
        assertEquals(ScalingPolicy.NONE, p.scaling());
        assertEquals(new ScalingPolicy.Cooldown(Duration.ofSeconds(60), Duration.ofSeconds(300)),
                p.scaling().cooldown());
        assertTrue(p.scaling().scaleIn().enabled());
        assertEquals(Optional.empty(), p.backend());
        assertEquals(MetricsPolicy.Discovery.DESCRIBE_CONFIGS, p.metrics().discovery());
    }

    @Test
    void parse_defaultsInsideSections() throws Exception {
        Policy p = PolicyLoader.parse("""
                maxBrokers: 4
                scaling:
                  targetTracking:
                    - {metric: bytesInPerBroker, target: 1048576}
                  scheduled:
                    - {cron: "*/5 * * * *", duration: 1m, maxBrokers: 2}
                  emergency: {walFillRatio: 0.95}
                backend: {type: local, clusterDir: /tmp/c}
                metrics: {discover: describeConfigs}
                """);
        assertEquals(90, p.scaling().targetTracking().get(0).scaleInThresholdPercent());
        assertEquals(1 << 20, p.scaling().targetTracking().get(0).target());
        assertEquals(ZoneOffset.UTC, p.scaling().scheduled().get(0).timezone());
        assertEquals(2, p.scaling().emergency().orElseThrow().forEvaluations());
        assertEquals(1, p.scaling().emergency().orElseThrow().add());
        assertEquals(Optional.of(new BackendPolicy.Local(Path.of("/tmp/c"), Path.of("scripts/cluster.sh"))),
                p.backend());
        assertEquals(MetricsPolicy.DEFAULTS, p.metrics());
    }

    @Test
    void parse_manyErrors_reportsEachWithItsFieldPath() {
        PolicyException e = assertThrows(PolicyException.class, () -> PolicyLoader.parse("""
                interval: 30
                minBrokers: 3
                maxBrokers: 2
                balancing:
                  networkBandPercent: 150
                  slowBrokerWalP99: fast
                execution:
                  maxConcurrentMovesPerBroker: 0
                scaling:
                  targetTracking:
                    - metric: bytesInPerBroker
                      target: -5
                    - metric: memory
                      target: 1GiB
                    - metric: cpu
                      tagret: 0.5
                  step:
                    - metric: bytesInPerBroker
                      thresholds:
                        - {lowerBound: 10MiB, upperBound: 50MiB, adjustment: 1}
                        - {lowerBound: 40MiB, adjustment: 2}
                        - {upperBound: 5MiB, adjustment: 0}
                  scheduled:
                    - cron: "0 8 * *"
                      timezone: Mars/Olympus
                      duration: 10h
                      minBrokers: 4
                  emergency:
                    for: 0
                  cooldown:
                    scaleIn: -5s
                backend:
                  type: docker
                metrics:
                  urlTemplate: "http://broker:9464"
                """));
        List<String> expected = List.of(
                "interval: not a duration (e.g. 30s, 5m, 500ms, PT30S), was '30'",
                "maxBrokers: must be >= minBrokers (3), was 2",
                "balancing.networkBandPercent: must be in (0, 100], was 150",
                "balancing.slowBrokerWalP99: not a duration",
                "execution.maxConcurrentMovesPerBroker: must be >= 1, was 0",
                "scaling.targetTracking[0].target: must be > 0, was -5",
                "scaling.targetTracking[1].metric: must be one of bytesInPerBroker, bytesOutPerBroker, cpu, was 'memory'",
                "scaling.targetTracking[2].target: required",
                "scaling.targetTracking[2].tagret: unknown key (expected one of: metric, scaleInThresholdPercent, target)",
                "scaling.step[0].thresholds[2].adjustment: must not be 0",
                "scaling.scheduled[0].cron: not a 5-field Unix cron expression",
                "scaling.scheduled[0].timezone: unknown time zone 'Mars/Olympus'",
                "scaling.scheduled[0].minBrokers: must be in [1, maxBrokers (3)], was 4",
                "scaling.emergency.for: must be >= 1, was 0",
                "scaling.emergency: at least one of walFullWaitsPerSec, walFillRatio, produceP99 required",
                "scaling.cooldown.scaleIn: must be >= 0, was PT-5S",
                "backend.type: must be local or kubernetes, was 'docker'",
                "metrics.urlTemplate: must contain {host} or {id}");
        for (String want : expected) {
            assertTrue(e.errors().stream().anyMatch(err -> err.startsWith(want)),
                    "missing error '" + want + "' in:\n" + e.getMessage());
        }
        assertEquals(expected.size(), e.errors().size(), e.getMessage());
        assertTrue(e.getMessage().startsWith("invalid policy, " + expected.size() + " errors:"), e.getMessage());
    }

    @Test
    void parse_overlappingStepRanges_namesBothThresholds() {
        PolicyException e = assertThrows(PolicyException.class, () -> PolicyLoader.parse("""
                maxBrokers: 5
                scaling:
                  step:
                    - metric: bytesInPerBroker
                      thresholds:
                        - {lowerBound: 40MB, adjustment: 2}
                        - {lowerBound: 10MB, upperBound: 50MB, adjustment: 1}
                backend: {type: local, clusterDir: c}
                """));
        assertEquals(List.of("scaling.step[0].thresholds: ranges overlap: scaling.step[0].thresholds[1]"
                + " [10000000, 50000000) and scaling.step[0].thresholds[0] [40000000, +inf)"), e.errors());
    }

    @Test
    void parse_stepUpperNotAboveLower_isAnError() {
        PolicyException e = assertThrows(PolicyException.class, () -> PolicyLoader.parse("""
                maxBrokers: 5
                scaling:
                  step:
                    - metric: cpu
                      thresholds:
                        - {lowerBound: "80%", upperBound: 0.5, adjustment: 1}
                backend: {type: local, clusterDir: c}
                """));
        assertEquals(List.of("scaling.step[0].thresholds[0].upperBound: must be > lowerBound (0.8), was 0.5"),
                e.errors());
    }

    @Test
    void parse_unknownKeysAnywhere_areErrorsNamingThem() {
        PolicyException e = assertThrows(PolicyException.class, () -> PolicyLoader.parse("""
                maxBrokers: 5
                maxBroker: 6
                balancing: {enabled: true, band: 10}
                scaling:
                  cooldown: {scaleout: 30s}
                  scaleIn: {enable: false}
                backend: {type: local, clusterDir: c, namespace: x}
                """));
        assertEquals(List.of(
                "balancing.band: unknown key (expected one of: dryRun, enabled, maxMovesPerPlan, minMoveBytesPerSec,"
                        + " networkBandPercent, partitionCountBandPercent, rackAware, slowBrokerWalP99,"
                        + " trivialBrokerBytesPerSec)",
                "scaling.cooldown.scaleout: unknown key (expected one of: scaleIn, scaleOut)",
                "scaling.scaleIn.enable: unknown key (expected one of: enabled, stabilizationWindow)",
                "backend.namespace: unknown key (expected one of: clusterDir, script, type)",
                "maxBroker: unknown key (expected one of: backend, balancing, execution, interval, maxBrokers,"
                        + " metrics, minBrokers, scaling)"), e.errors());
    }

    @Test
    void parse_requiredKeysMissing_areErrors() {
        PolicyException e = assertThrows(PolicyException.class, () -> PolicyLoader.parse("""
                scaling:
                  targetTracking:
                    - target: 10MiB
                  scheduled:
                    - cron: "0 8 * * *"
                backend:
                  type: kubernetes
                """));
        assertEquals(List.of(
                "maxBrokers: required",
                "scaling.targetTracking[0].metric: required (bytesInPerBroker, bytesOutPerBroker, cpu)",
                "scaling.scheduled[0]: minBrokers and/or maxBrokers required",
                "scaling.scheduled[0].duration: required (how long each window stays open, e.g. 10h)",
                "backend.statefulSet: required"), e.errors());
    }

    @Test
    void parse_emptyFile_needsMaxBrokers() {
        assertEquals(List.of("maxBrokers: required"),
                assertThrows(PolicyException.class, () -> PolicyLoader.parse("")).errors());
        assertEquals(List.of("maxBrokers: required"),
                assertThrows(PolicyException.class, () -> PolicyLoader.parse("# nothing\n")).errors());
    }

    @Test
    void parse_scalingRulesWithoutBackend_isAnError() {
        PolicyException e = assertThrows(PolicyException.class, () -> PolicyLoader.parse("""
                maxBrokers: 5
                scaling:
                  targetTracking: [{metric: cpu, target: 0.6}]
                """));
        assertEquals(List.of("backend: required when scaling rules are configured"), e.errors());
    }

    @Test
    void parse_scheduledBoundsOutsidePolicyBounds_areErrors() {
        PolicyException e = assertThrows(PolicyException.class, () -> PolicyLoader.parse("""
                minBrokers: 2
                maxBrokers: 6
                scaling:
                  scheduled:
                    - {cron: "0 0 * * *", duration: 1h, minBrokers: 7}
                    - {cron: "0 0 * * *", duration: 1h, maxBrokers: 1}
                    - {cron: "0 0 * * *", duration: 1h, minBrokers: 5, maxBrokers: 4}
                backend: {type: local, clusterDir: c}
                """));
        assertEquals(List.of(
                "scaling.scheduled[0].minBrokers: must be in [1, maxBrokers (6)], was 7",
                "scaling.scheduled[1].maxBrokers: must be >= minBrokers (2), was 1",
                "scaling.scheduled[2].maxBrokers: must be >= this window's minBrokers (5), was 4"), e.errors());
    }

    @Test
    void parse_wrongTypes_areErrorsNotDefaults() {
        PolicyException e = assertThrows(PolicyException.class, () -> PolicyLoader.parse("""
                maxBrokers: many
                balancing: [1, 2]
                scaling:
                  targetTracking: {metric: cpu}
                  scaleIn: {enabled: "yes please"}
                """));
        assertEquals(List.of(
                "maxBrokers: must be an integer, was 'many'",
                "balancing: must be a mapping of keys to values",
                "scaling.targetTracking: must be a list",
                "scaling.scaleIn.enabled: must be true or false, was 'yes please'"), e.errors());
    }

    @Test
    void parse_badYaml_andDuplicateKeys_areErrors() {
        PolicyException bad = assertThrows(PolicyException.class, () -> PolicyLoader.parse("maxBrokers: [3\n"));
        assertTrue(bad.getMessage().startsWith("invalid policy: (file): not valid YAML"), bad.getMessage());
        PolicyException dup = assertThrows(PolicyException.class,
                () -> PolicyLoader.parse("maxBrokers: 3\nmaxBrokers: 4\n"));
        assertTrue(dup.getMessage().contains("Duplicate field 'maxBrokers'"), dup.getMessage());
        PolicyException list = assertThrows(PolicyException.class, () -> PolicyLoader.parse("- 1\n- 2\n"));
        assertEquals(List.of("(top level): must be a mapping of keys to values"), list.errors());
    }

    @Test
    void parse_metricsBothWays_isAnError() {
        PolicyException e = assertThrows(PolicyException.class, () -> PolicyLoader.parse("""
                maxBrokers: 3
                metrics: {urlTemplate: "http://{host}:9464", discover: describeConfigs}
                """));
        assertEquals(List.of("metrics: urlTemplate and discover are exclusive: set one"), e.errors());
    }

    @Test
    void parse_cpuValues_fractionOrPercent_notBytes() throws Exception {
        PolicyException e = assertThrows(PolicyException.class, () -> PolicyLoader.parse("""
                maxBrokers: 3
                scaling:
                  targetTracking:
                    - {metric: cpu, target: 40MiB}
                    - {metric: cpu, target: 70}
                backend: {type: local, clusterDir: c}
                """));
        assertEquals(2, e.errors().size(), e.getMessage());
        assertTrue(e.errors().get(0).startsWith("scaling.targetTracking[0].target: not a CPU fraction"), e.getMessage());
        assertTrue(e.errors().get(1).startsWith("scaling.targetTracking[1].target: a CPU value is a fraction"),
                e.getMessage());
        assertFalse(PolicyLoader.parse("maxBrokers: 3\nscaling: {targetTracking: [{metric: cpu, target: 0.5}]}\n"
                + "backend: {type: local, clusterDir: c}\n").scaling().targetTracking().isEmpty());
    }
}
