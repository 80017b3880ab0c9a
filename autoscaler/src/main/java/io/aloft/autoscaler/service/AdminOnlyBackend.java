package io.aloft.autoscaler.service;

import io.aloft.autoscaler.backend.ScalingBackend;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Node;

/**
 * The "backend" of a balance-only policy (no {@code backend} section): it counts the registered
 * brokers through the Admin API and can neither add nor remove one. The policy loader refuses
 * scaling rules without a backend, so the control loop never asks it to.
 *
 * <p>Used from the control thread only.
 */
final class AdminOnlyBackend implements ScalingBackend {
    private final Admin admin;

    AdminOnlyBackend(Admin admin) {
        this.admin = admin;
    }

    @Override
    public String name() {
        return "none";
    }

    @Override
    public List<Integer> brokers() throws IOException {
        try {
            return admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).stream().map(Node::id).sorted().toList();
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("describeCluster failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    @Override
    public Set<Integer> protectedBrokers() {
        return Set.of();
    }

    @Override
    public int removalCandidate() {
        return -1;
    }

    @Override
    public int addBroker() {
        throw new UnsupportedOperationException("the policy has no backend section: brokers cannot be added");
    }

    @Override
    public void removeBroker(int id) {
        throw new UnsupportedOperationException("the policy has no backend section: brokers cannot be removed");
    }

    @Override
    public void close() {}
}
