package io.aloft.bench.cluster;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.common.TopicPartition;

/** Set-up moves for the cluster benchmarks (not what they measure). Stateless. */
public final class Reassignments {
    private Reassignments() {
    }

    /**
     * Retries a reassignment the controller refuses for a while (Aloft refuses a target it has fenced
     * for a missed heartbeat, which a loaded machine causes, or one that has just registered again)
     * until {@code deadlineNanos}, telling {@code progress} of each refusal; 2 s between attempts.
     */
    public static void alterWithRetry(Admin admin, Map<TopicPartition, Optional<NewPartitionReassignment>> moves,
            long deadlineNanos, Consumer<String> progress) throws Exception {
        while (true) {
            try {
                admin.alterPartitionReassignments(moves).all().get(60, TimeUnit.SECONDS);
                return;
            } catch (ExecutionException e) {
                if (System.nanoTime() > deadlineNanos) {
                    throw e;
                }
                progress.accept(e.getCause() + "; retrying");
                Thread.sleep(2_000); // the controller's own pace: no event to wait for
            }
        }
    }
}
