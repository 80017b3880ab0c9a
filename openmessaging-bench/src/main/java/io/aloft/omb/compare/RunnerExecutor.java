package io.aloft.omb.compare;

import io.aloft.omb.runner.RunResult;
import io.aloft.omb.runner.WorkloadRunner;
import io.aloft.omb.workload.DriverConfig;
import io.aloft.omb.workload.Workload;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;

/**
 * The real {@link WorkloadExecutor}: loads the workload and driver files, applies the step's
 * overrides and the broker's client (security) properties, and runs {@link WorkloadRunner}, whose
 * progress lines go to {@code progress}. Stateless apart from that stream.
 */
public final class RunnerExecutor implements WorkloadExecutor {
    private final PrintStream progress;

    public RunnerExecutor(PrintStream progress) {
        this.progress = progress;
    }

    @Override
    public RunResult run(Path workloadFile, Path driverFile, String bootstrap, Map<String, String> clientProperties,
            Map<String, String> overrides) throws Exception {
        Workload workload = WorkloadOverrides.apply(Workload.load(workloadFile), overrides);
        DriverConfig driver = DriverConfig.load(driverFile).withCommonConfig(clientProperties);
        return new WorkloadRunner(workload, driver, bootstrap, progress).run();
    }
}
