package io.aloft.omb.compare;

import io.aloft.omb.runner.RunResult;
import java.nio.file.Path;
import java.util.Map;

/**
 * Runs one OMB workload file with one driver file against a running broker. {@code compare} calls
 * it once per (workload, system, repeat), each time against a freshly started broker, from one
 * thread at a time.
 *
 * <p>Implementations must be safe to call from a thread other than the one that created them, and
 * should stop promptly when that thread is interrupted (compare interrupts a run that exceeds its
 * time limit).
 */
@FunctionalInterface
public interface WorkloadExecutor {

    /**
     * @param workloadFile an OMB workload YAML
     * @param driverFile an OMB Kafka driver YAML; its {@code bootstrap.servers} is replaced by {@code bootstrap}
     * @param bootstrap {@code host:port} of the broker under test
     * @param clientProperties the broker's {@link io.aloft.servers.BenchServer#clientProperties()}
     *     (security), set on every client over the driver's {@code commonConfig}
     * @param overrides workload fields to replace after loading, by OMB field name (the component
     *     names of {@link io.aloft.omb.workload.Workload}), e.g. {@code producerRate=52000},
     *     {@code testDurationMinutes=0.5}; apply with {@link WorkloadOverrides#apply}
     * @return the figures of the run, keys with the unit in the name
     */
    RunResult run(Path workloadFile, Path driverFile, String bootstrap, Map<String, String> clientProperties,
            Map<String, String> overrides) throws Exception;
}
