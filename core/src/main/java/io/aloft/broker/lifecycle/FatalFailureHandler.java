package io.aloft.broker.lifecycle;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place a broker's critical failures go: a WAL that failed, a stream store that gave up,
 * a long-lived thread that died, a critical scheduled task that threw. A broker half alive (still
 * heartbeating while every partition answers {@code KAFKA_STORAGE_ERROR}) strands its partitions,
 * since the controller only moves them away from a broker whose heartbeats stop; so the broker
 * stops whole instead.
 *
 * <h2>What a failure does</h2>
 * {@link #fail} logs one ERROR line naming the component, the cause and the broker, then, once
 * however many failures follow, stops the broker on a thread of its own:
 * <ol>
 *   <li>stops heartbeats: the controller fences the broker after {@code broker.session.timeout.ms}
 *       and moves its partitions. There is no drain: a drain would have this broker upload and
 *       close its partitions' streams from a WAL and store that are suspect;</li>
 *   <li>closes the Kafka listeners: clients lose their connections, and a produce request not yet
 *       answered is never acknowledged; they find the partitions' next owner through metadata;</li>
 *   <li>closes what was registered with {@link #closeOnFailure} (things that write no data: thread
 *       pools, the metadata watcher, clients), newest first;</li>
 *   <li>ends the process with {@link #EXIT_STATUS} through the {@link ProcessExit}.</li>
 * </ol>
 * Steps 1 to 3 get {@code stopTimeoutMs} in all; the exit follows then even if a step hangs. A
 * step that throws is logged in one line and the next one runs. Failures after the first (often
 * its consequences, or those of closing) are logged in one WARN line without a stack trace.
 *
 * <p>Components register their step as they start. One registered after the stop began (a failure
 * during start-up) is closed at once, on the registering thread.
 *
 * <p>Also the {@link Thread.UncaughtExceptionHandler} of every thread the broker owns (see
 * {@link NamedThreadFactory}, {@link CriticalScheduler}).
 *
 * <p>Thread-safe. The stop runs on {@code broker-N-fatal-stop}, its closing steps on
 * {@code broker-N-fatal-close}.
 */
public final class FatalFailureHandler implements Thread.UncaughtExceptionHandler {
    private static final Logger log = LoggerFactory.getLogger(FatalFailureHandler.class);

    /** The broker process's exit status after a critical failure. */
    public static final int EXIT_STATUS = 3;
    /** How long the closing steps may take before the process exits anyway. */
    public static final long STOP_TIMEOUT_MS_DEFAULT = 15_000;

    private final int brokerId;
    private final ProcessExit exit;
    private final long stopTimeoutMs;
    private final Object lock = new Object();
    // Guarded by lock:
    private AutoCloseable heartbeats;
    private AutoCloseable listeners;
    private final ArrayDeque<Step> closeOnFailure = new ArrayDeque<>();
    private volatile boolean stopping;
    private final CountDownLatch stopped = new CountDownLatch(1);

    private record Step(String name, AutoCloseable action) {
    }

    public FatalFailureHandler(int brokerId, ProcessExit exit) {
        this(brokerId, exit, STOP_TIMEOUT_MS_DEFAULT);
    }

    /** @param stopTimeoutMs how long the closing steps may take in all before the process exits anyway */
    public FatalFailureHandler(int brokerId, ProcessExit exit, long stopTimeoutMs) {
        if (stopTimeoutMs <= 0) {
            throw new IllegalArgumentException("stopTimeoutMs must be positive, got " + stopTimeoutMs);
        }
        this.brokerId = brokerId;
        this.exit = Objects.requireNonNull(exit, "exit");
        this.stopTimeoutMs = stopTimeoutMs;
    }

    /** Registers how heartbeats stop (step 1). Set once. */
    public void stopHeartbeatsWith(AutoCloseable stop) {
        Objects.requireNonNull(stop, "stop");
        synchronized (lock) {
            if (!stopping) {
                requireUnset(heartbeats, "heartbeats");
                heartbeats = stop;
                return;
            }
        }
        runStep(new Step("heartbeats", stop));
    }

    /** Registers how the Kafka listeners close (step 2). Set once. */
    public void closeListenersWith(AutoCloseable close) {
        Objects.requireNonNull(close, "close");
        synchronized (lock) {
            if (!stopping) {
                requireUnset(listeners, "listeners");
                listeners = close;
                return;
            }
        }
        runStep(new Step("Kafka listeners", close));
    }

    /**
     * Registers something to close after the listeners (step 3): only what writes no data and
     * cannot hang for long. Closed newest first.
     */
    public void closeOnFailure(String name, AutoCloseable close) {
        Step step = new Step(Objects.requireNonNull(name, "name"), Objects.requireNonNull(close, "close"));
        synchronized (lock) {
            if (!stopping) {
                closeOnFailure.push(step);
                return;
            }
        }
        runStep(step);
    }

    private static void requireUnset(Object current, String what) {
        if (current != null) {
            throw new IllegalStateException(what + " are already registered: " + current);
        }
    }

    /**
     * Reports a critical failure of {@code component} (a few words: "WAL", "stream store",
     * "thread broker-scheduler-1"): the first one stops the broker, as the class comment says.
     * Returns at once; never throws.
     */
    public void fail(String component, Throwable cause) {
        List<Step> steps = new ArrayList<>();
        synchronized (lock) {
            if (stopping) {
                log.warn("Broker {}: {} also failed while the broker stops: {}", brokerId, component,
                        String.valueOf(cause));
                return;
            }
            stopping = true;
            // Logged under the lock so that it comes before any "also failed" line.
            log.error("Critical failure in {}: {}; stopping broker {} (heartbeats stop, listeners close, exit "
                    + "status {})", component, cause, brokerId, EXIT_STATUS, cause);
            steps.add(new Step("heartbeats", heartbeats));
            steps.add(new Step("Kafka listeners", listeners));
            steps.addAll(closeOnFailure); // a stack: newest first
        }
        Thread stopper = new Thread(() -> stop(component, steps), "broker-" + brokerId + "-fatal-stop");
        // Not a daemon: the JVM must not end, with status 0, before the exit status is set.
        stopper.setDaemon(false);
        stopper.setUncaughtExceptionHandler(FatalFailureHandler::logUncaught);
        stopper.start();
    }

    /** A thread of the broker died: {@link #fail} with the thread as the component. */
    @Override
    public void uncaughtException(Thread thread, Throwable error) {
        fail("thread " + thread.getName(), error);
    }

    /** Whether a critical failure was reported (the broker is stopping or stopped). */
    public boolean failed() {
        return stopping;
    }

    /**
     * Waits until the stop finished and the {@link ProcessExit} returned (it does not return when it
     * ends the process). Returns false on timeout.
     */
    public boolean awaitStopped(long timeout, TimeUnit unit) throws InterruptedException {
        return stopped.await(timeout, unit);
    }

    private void stop(String component, List<Step> steps) {
        Thread closer = new Thread(() -> steps.forEach(this::runStep), "broker-" + brokerId + "-fatal-close");
        closer.setDaemon(true);
        closer.setUncaughtExceptionHandler(FatalFailureHandler::logUncaught);
        closer.start();
        try {
            closer.join(stopTimeoutMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (closer.isAlive()) {
            log.warn("Broker {}: closing did not finish within {} ms; exiting anyway", brokerId, stopTimeoutMs);
        }
        log.info("Broker {} stopped after a critical failure in {}; exit status {}", brokerId, component,
                EXIT_STATUS);
        try {
            exit.exit(EXIT_STATUS);
        } finally {
            stopped.countDown();
        }
    }

    /** Best effort: a step that fails must not keep the next ones, or the exit, from running. */
    private void runStep(Step step) {
        if (step.action() == null) {
            return; // not registered: the failure came during start-up
        }
        try {
            step.action().close();
        } catch (Throwable e) {
            log.warn("Broker {}: closing {} after the failure failed: {}", brokerId, step.name(), e.toString());
        }
    }

    private static void logUncaught(Thread thread, Throwable error) {
        log.error("Uncaught exception on {}", thread.getName(), error);
    }

    @Override
    public String toString() {
        return "fatal failure handler of broker " + brokerId;
    }
}
