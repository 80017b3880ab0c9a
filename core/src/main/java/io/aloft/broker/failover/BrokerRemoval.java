package io.aloft.broker.failover;

import io.aloft.controller.ControllerException;
import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.command.PutKv;
import io.aloft.controller.command.UnregisterBroker;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.WalMarkers;
import io.aloft.controller.query.Queries;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes a broker from the cluster at an operator's request ({@code kafka-cluster.sh unregister},
 * Admin's unregisterBroker) without losing what only its WAL holds: the broker is usually dead
 * (its machine gone), but its WAL may still hold acknowledged records that were not uploaded.
 *
 * <p>So removal is a failover first. The removal is announced ({@link WalMarkers#REMOVING_PREFIX}):
 * the controller refuses that incarnation's heartbeats from then on, so its session lapses and it
 * is fenced as a dead broker is (a broker that was alive after all stops acknowledging when its
 * lease lapses with the session, and stops once its WAL is taken over). Its partitions move to live
 * brokers, a live broker recovers its WAL ({@link WalFailover}), and only once the recovery is
 * recorded is the broker unregistered. Fencing is not hurried past the session: a live broker's
 * lease would let it acknowledge into a WAL already read. A removal that does not finish within its
 * time (the WAL cannot be reached from a live broker, say) leaves the broker fenced with its
 * partitions served elsewhere, waiting for its data; asking again goes on from there.
 *
 * <p>Thread-safe (stateless); a removal's steps run on the controller client's threads and the
 * given scheduler.
 */
public final class BrokerRemoval {
    private static final Logger log = LoggerFactory.getLogger(BrokerRemoval.class);
    static final long POLL_MS = 200;

    private final ControllerClient controller;
    private final ScheduledExecutorService scheduler;

    public BrokerRemoval(ControllerClient controller, ScheduledExecutorService scheduler) {
        this.controller = controller;
        this.scheduler = scheduler;
    }

    /** Why a removal did not finish: no such broker, or its time ran out, with the reason. */
    public static final class RemovalException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final boolean notRegistered;

        RemovalException(boolean notRegistered, String message) {
            super(message, null, false, false);
            this.notRegistered = notRegistered;
        }

        /** The broker was not registered when the removal began. */
        public boolean notRegistered() {
            return notRegistered;
        }
    }

    /** One removal in progress; its fields are written only by its current step. */
    private final class Removal {
        final int brokerId;
        final long timeoutMs;
        final long deadlineNanos;
        final CompletableFuture<Void> done = new CompletableFuture<>();
        volatile boolean first = true;
        /** What the broker waits for now, for the message of a removal that runs out of time. */
        volatile String waitingFor = "its state";

        Removal(int brokerId, long timeoutMs) {
            this.brokerId = brokerId;
            this.timeoutMs = timeoutMs;
            this.deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        }
    }

    /**
     * Announces the removal of broker {@code brokerId}, waits until it is fenced and its WAL
     * recovered, and unregisters it. Completes normally once it is unregistered (by this removal or
     * a concurrent one); exceptionally with a {@link RemovalException} if it was not registered or
     * {@code timeoutMs} passed first, or with the controller's failure.
     */
    public CompletableFuture<Void> remove(int brokerId, long timeoutMs) {
        Removal r = new Removal(brokerId, timeoutMs);
        step(r);
        return r.done;
    }

    /** One pass: reads the broker's state and takes the next step; if not finished, passes again after {@link #POLL_MS}. */
    private void step(Removal r) {
        controller.query(new Queries.DescribeCluster(), ClusterImage.class)
                .thenCompose(image -> next(r, image.brokers().stream().filter(i -> i.brokerId() == r.brokerId)
                        .findFirst().orElse(null)))
                .whenComplete((finished, failure) -> {
                    r.first = false;
                    Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause() : failure;
                    if (cause instanceof RemovalException) {
                        r.done.completeExceptionally(cause);
                    } else if (cause instanceof ControllerException ce
                            && ce.code() == ControllerException.Code.BROKER_NOT_FOUND) {
                        r.done.complete(null); // unregistered meanwhile by a concurrent removal
                    } else if (cause == null && finished) {
                        r.done.complete(null);
                    } else if (System.nanoTime() - r.deadlineNanos >= 0) {
                        r.done.completeExceptionally(cause != null ? cause : new RemovalException(false, "Broker "
                                + r.brokerId + " is being removed but was not unregistered within " + r.timeoutMs
                                + " ms: waiting for " + r.waitingFor + "; it stays registered until then (its "
                                + "heartbeats are refused). Ask again to wait further"));
                    } else {
                        scheduler.schedule(() -> step(r), POLL_MS, TimeUnit.MILLISECONDS);
                    }
                });
    }

    /** The next step for the broker as the controller describes it (null: not registered); true once finished. */
    private CompletableFuture<Boolean> next(Removal r, BrokerInfo b) {
        if (b == null) {
            if (r.first) {
                throw new RemovalException(true, "Broker " + r.brokerId + " is not registered");
            }
            return CompletableFuture.completedFuture(Boolean.TRUE); // a concurrent removal finished it
        }
        return epochAt(WalMarkers.REMOVING_PREFIX, r.brokerId).thenCompose(announced -> {
            if (announced < b.brokerEpoch()) {
                log.info("Removing broker {} (epoch {}, {}): its heartbeats are refused from now on", r.brokerId,
                        b.brokerEpoch(), b.state());
                return controller.submit(new PutKv(WalMarkers.key(WalMarkers.REMOVING_PREFIX, r.brokerId),
                        WalMarkers.epochValue(b.brokerEpoch()))).thenApply(v -> Boolean.FALSE);
            }
            if (b.state() != BrokerState.FENCED) {
                r.waitingFor = "its session to lapse (broker.session.timeout.ms) so that the controller fences it";
                return CompletableFuture.completedFuture(Boolean.FALSE);
            }
            return epochAt(WalMarkers.RECOVERED_PREFIX, r.brokerId).thenCompose(recovered -> {
                if (recovered < b.brokerEpoch()) {
                    r.waitingFor = "its WAL to be recovered by a live broker (it is fenced and its partitions are "
                            + "served elsewhere; the recovering broker's log says why if its WAL cannot be reached)";
                    return CompletableFuture.completedFuture(Boolean.FALSE);
                }
                log.info("Removing broker {} (epoch {}): its WAL is recovered, unregistering it", r.brokerId,
                        b.brokerEpoch());
                return controller.submit(new UnregisterBroker(r.brokerId)).thenApply(v -> Boolean.TRUE);
            });
        });
    }

    /** The epoch a marker under {@code prefix} holds for the broker, -1 for none. */
    private CompletableFuture<Long> epochAt(String prefix, int brokerId) {
        return controller.query(new Queries.GetKv(WalMarkers.key(prefix, brokerId)), byte[].class)
                .thenApply(WalMarkers::epoch);
    }
}
