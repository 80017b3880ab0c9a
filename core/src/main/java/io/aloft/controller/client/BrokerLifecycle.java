package io.aloft.controller.client;

import io.aloft.controller.ControllerException;
import io.aloft.controller.command.BrokerHeartbeat;
import io.aloft.controller.command.DrainBroker;
import io.aloft.controller.command.RegisterBroker;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.Endpoint;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker's standing with the controller: registers this run of the broker (a fresh incarnation
 * id, so the controller gives it a new broker epoch) and heartbeats every
 * {@code broker.heartbeat.interval.ms}. If the controller no longer knows this incarnation
 * (unregistered, or another run registered the same id), it registers again. The registration
 * carries the feature levels this build supports: the controller refuses a broker that cannot read
 * what the cluster writes, and will not raise the level beyond what an unfenced broker supports.
 *
 * <p>A heartbeat that throws unexpectedly (not a controller error, which is logged and retried)
 * goes to the uncaught-exception handler given to {@link #start}: left in the timer's future it
 * would silently cancel every later heartbeat, and the broker would serve on unfenced until the
 * controller noticed.
 *
 * <p>The lease ({@link #leaseValid}): the controller fences a broker once it has heard nothing from
 * it for {@code broker.session.timeout.ms}, and hears a heartbeat only after it was sent; so until
 * the session timeout (less a margin) has passed since the send of the last answered heartbeat,
 * this broker cannot have been fenced. A broker that was paused (SIGSTOP, a long GC, a frozen VM)
 * past that may have lost its partitions, and must not acknowledge what it appends until a
 * heartbeat answers again: with a block WAL no one else would ever see those records.
 *
 * <p>Thread-safe; heartbeats run on one daemon thread, {@code broker-heartbeat-N}.
 */
public final class BrokerLifecycle implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BrokerLifecycle.class);

    private final ControllerClient client;
    private final int brokerId;
    private final String incarnationId = UUID.randomUUID().toString();
    private final List<Endpoint> endpoints;
    private final String rack;
    private final ScheduledExecutorService timer;
    private final Thread.UncaughtExceptionHandler uncaughtHandler;
    private volatile long brokerEpoch = -1;
    private volatile BrokerState state;
    /** How long a heartbeat's send keeps the lease: the session timeout less a fifth. */
    private final long leaseNanos;
    /** {@link System#nanoTime} until which this broker cannot have been fenced. */
    private volatile long leaseUntilNanos;

    private BrokerLifecycle(ControllerClient client, int brokerId, List<Endpoint> endpoints, String rack,
            Thread.UncaughtExceptionHandler uncaughtHandler) {
        this.client = client;
        this.brokerId = brokerId;
        this.endpoints = List.copyOf(endpoints);
        this.rack = rack;
        this.uncaughtHandler = uncaughtHandler;
        long sessionMs = client.config().sessionTimeoutMs();
        this.leaseNanos = TimeUnit.MILLISECONDS.toNanos(sessionMs - sessionMs / 5);
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "broker-heartbeat-" + brokerId);
            t.setDaemon(true);
            t.setUncaughtExceptionHandler(uncaughtHandler);
            return t;
        });
    }

    /**
     * Registers and starts heartbeating; the future completes with the broker epoch once registered.
     * A heartbeat that throws unexpectedly is logged and stops heartbeats.
     *
     * @param rack rack id, or null
     */
    public static CompletableFuture<BrokerLifecycle> start(ControllerClient client, int brokerId,
            List<Endpoint> endpoints, String rack) {
        return start(client, brokerId, endpoints, rack, (thread, error) -> log.error(
                "Heartbeats of broker {} failed on {}", brokerId, thread.getName(), error));
    }

    /**
     * As {@link #start(ControllerClient, int, List, String)}, a heartbeat that throws unexpectedly
     * going to {@code uncaughtHandler} (set on the heartbeat thread too).
     */
    public static CompletableFuture<BrokerLifecycle> start(ControllerClient client, int brokerId,
            List<Endpoint> endpoints, String rack, Thread.UncaughtExceptionHandler uncaughtHandler) {
        BrokerLifecycle lifecycle = new BrokerLifecycle(client, brokerId, endpoints, rack,
                java.util.Objects.requireNonNull(uncaughtHandler, "uncaughtHandler"));
        return lifecycle.register().thenApply(epoch -> {
            long interval = client.config().heartbeatIntervalMs();
            lifecycle.timer.scheduleWithFixedDelay(lifecycle::heartbeatOrReport, interval, interval,
                    TimeUnit.MILLISECONDS);
            return lifecycle;
        });
    }

    /** The periodic task: nothing may escape it, or the timer would cancel every later heartbeat quietly. */
    private void heartbeatOrReport() {
        try {
            heartbeat();
        } catch (Throwable t) {
            timer.shutdown(); // a broken heartbeat path sends no more heartbeats
            uncaughtHandler.uncaughtException(Thread.currentThread(), t);
        }
    }

    private CompletableFuture<Long> register() {
        long sent = System.nanoTime();
        return client.submit(new RegisterBroker(brokerId, incarnationId, endpoints, rack, client.supportedFeatures()),
                        Long.class)
                .thenApply(epoch -> {
                    brokerEpoch = epoch;
                    state = BrokerState.ACTIVE;
                    leaseUntilNanos = sent + leaseNanos;
                    log.info("Broker {} registered with epoch {}", brokerId, epoch);
                    return epoch;
                });
    }

    private void heartbeat() {
        try {
            long sent = System.nanoTime();
            state = client.submitNow(new BrokerHeartbeat(brokerId, brokerEpoch), BrokerState.class).join();
            if (sent - leaseUntilNanos + leaseNanos > 0) {
                leaseUntilNanos = sent + leaseNanos;
            }
        } catch (RuntimeException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            if (cause instanceof ControllerException ce && (ce.code() == ControllerException.Code.STALE_BROKER_EPOCH
                    || ce.code() == ControllerException.Code.BROKER_NOT_FOUND)) {
                log.warn("Broker {} is no longer registered as epoch {} ({}); registering again", brokerId,
                        brokerEpoch, ce.getMessage());
                try {
                    register().join();
                } catch (CompletionException err) {
                    if (err.getCause() instanceof ControllerException refused
                            && refused.code() == ControllerException.Code.STALE_BROKER_EPOCH) {
                        // This run was fenced and its WAL taken over: it must not serve again. Escapes to
                        // the uncaught-exception handler, which stops the broker (a new run rejoins).
                        throw new IllegalStateException("Broker " + brokerId + " cannot register again: "
                                + refused.getMessage(), refused);
                    }
                    log.warn("Broker {} could not register again; will retry", brokerId, err.getCause());
                }
            } else {
                log.warn("Broker {} heartbeat failed; will retry", brokerId, cause);
            }
        }
    }

    /** Controlled shutdown: the controller moves this broker's partitions to others. */
    public CompletableFuture<Void> drain() {
        return client.submit(new DrainBroker(brokerId, brokerEpoch)).thenApply(v -> {
            state = BrokerState.DRAINING;
            return null;
        });
    }

    public int brokerId() {
        return brokerId;
    }

    /** The epoch of this run's registration (-1 before it). */
    public long brokerEpoch() {
        return brokerEpoch;
    }

    /**
     * Whether this broker is certainly not fenced now: registered, and a heartbeat sent less than
     * the lease ago was answered (see the class comment).
     */
    public boolean leaseValid() {
        return brokerEpoch >= 0 && System.nanoTime() - leaseUntilNanos < 0;
    }

    /** The state the controller reported at the last heartbeat. */
    public BrokerState state() {
        return state;
    }

    /** Stops heartbeating (the controller fences the broker after its session times out). */
    @Override
    public void close() {
        timer.shutdownNow();
    }
}
