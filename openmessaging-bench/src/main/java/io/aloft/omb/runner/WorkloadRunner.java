package io.aloft.omb.runner;

import io.aloft.omb.workload.DriverConfig;
import io.aloft.omb.workload.Workload;
import java.io.PrintStream;

/**
 * Runs one workload with kafka-clients against a bootstrap address.
 *
 * <p>Contract stub: the run itself is still to be written.
 */
public final class WorkloadRunner {
    private final Workload workload;
    private final DriverConfig driver;
    private final String bootstrap;
    private final PrintStream progress;

    public WorkloadRunner(Workload workload, DriverConfig driver, String bootstrap, PrintStream progress) {
        this.workload = workload;
        this.driver = driver;
        this.bootstrap = bootstrap;
        this.progress = progress;
    }

    /** Runs the workload to its end (warm-up, then the measured test), deleting nothing it created. */
    public RunResult run() throws Exception {
        throw new UnsupportedOperationException("not written yet: " + workload.name() + " " + driver.name() + " "
                + bootstrap + " " + progress);
    }
}
