package io.aloft.broker.lifecycle;

import org.slf4j.LoggerFactory;

/**
 * Ends the process after a critical failure: the one step of {@link FatalFailureHandler} that tests
 * must not take for real. {@code BrokerMain} uses {@link #halt()}; an embedded broker (tests, a
 * library user) defaults to {@link #keepRunning()}, which leaves the process to its owner.
 *
 * <p>Implementations are called once, from the handler's {@code broker-N-fatal-stop} thread, and
 * must be thread-safe.
 */
@FunctionalInterface
public interface ProcessExit {

    /** Ends the process with {@code status} (a real implementation does not return). */
    void exit(int status);

    /**
     * {@link Runtime#halt}: ends the JVM at once, without shutdown hooks. Hooks are skipped on
     * purpose: the broker's hook shuts down gracefully (drains, uploads), which a failed broker must
     * not do, and {@link Runtime#exit} would block forever if called while a hook already runs (a
     * failure during a SIGTERM shutdown). Logging is synchronous (console), so nothing is lost.
     */
    static ProcessExit halt() {
        return status -> Runtime.getRuntime().halt(status);
    }

    /** Leaves the process running (an embedded broker): logs the status it would have exited with. */
    static ProcessExit keepRunning() {
        return status -> LoggerFactory.getLogger(ProcessExit.class).warn("Embedded broker stopped after a critical "
                + "failure; the process keeps running (a broker process would exit with status {})", status);
    }
}
