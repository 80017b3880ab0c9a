package io.aloft.omb.compare;

import io.aloft.omb.runner.RunResult;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;

/**
 * The real {@link WorkloadExecutor}: loads the files and runs {@link io.aloft.omb.runner.WorkloadRunner}.
 *
 * <p>Wired at the merge with the runner branch, where {@code Workload.load} and
 * {@code DriverConfig.load} exist; until then it fails with a message saying so. Stateless apart
 * from the progress stream, which the runner prints to.
 */
public final class RunnerExecutor implements WorkloadExecutor {
    @SuppressWarnings("unused") // read once the runner is wired in
    private final PrintStream progress;

    public RunnerExecutor(PrintStream progress) {
        this.progress = progress;
    }

    @Override
    public RunResult run(Path workloadFile, Path driverFile, String bootstrap, Map<String, String> overrides) {
        // At merge, replace the throw with:
        //   Workload workload = WorkloadOverrides.apply(Workload.load(workloadFile), overrides);
        //   return new WorkloadRunner(workload, DriverConfig.load(driverFile), bootstrap, progress).run();
        throw new UnsupportedOperationException("the OMB workload runner is not wired into compare yet (branch "
                + "omb-runner); cannot run " + workloadFile + " with " + driverFile + " against " + bootstrap);
    }
}
