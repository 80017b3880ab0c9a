package io.aloft.autoscaler.backend;

import java.io.IOException;
import java.util.List;
import java.util.Set;

/**
 * Adds and removes brokers: local processes ({@code scripts/cluster.sh}'s layout) or a Kubernetes
 * StatefulSet. The autoscaler drains a broker (moves its partitions away through the Admin API)
 * before it calls {@link #removeBroker}; the broker's own SIGTERM drain is the safety net.
 *
 * <p>Called from the autoscaler's single control thread only; implementations need not be
 * thread-safe.
 */
public interface ScalingBackend extends AutoCloseable {

    /** Short name for logs and metrics: "local", "kubernetes". */
    String name();

    /** Node ids of the brokers this backend runs now (started, not necessarily serving yet), ascending. */
    List<Integer> brokers() throws IOException;

    /**
     * Node ids that must never be removed: controller voters embedded in brokers (removing one would
     * shrink the quorum), ascending.
     */
    Set<Integer> protectedBrokers() throws IOException;

    /**
     * The broker a scale-in would remove next (local: the highest id not protected; Kubernetes: the
     * highest ordinal, the only one a StatefulSet can remove), or -1 when none may go.
     */
    int removalCandidate() throws IOException;

    /**
     * Starts one more broker and returns its node id once its process (or pod) is started; it
     * registers with the controller by itself, and the caller waits for it to serve.
     */
    int addBroker() throws IOException, InterruptedException;

    /**
     * Stops and removes broker {@code id} (which must be {@link #removalCandidate()}); returns once
     * its process has exited (local) or the StatefulSet has been scaled down (Kubernetes).
     */
    void removeBroker(int id) throws IOException, InterruptedException;

    @Override
    void close() throws IOException;
}
