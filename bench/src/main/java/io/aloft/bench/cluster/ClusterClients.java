package io.aloft.bench.cluster;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/** The Admin client the cluster benchmarks share, and set-up waits made with it. Stateless. */
public final class ClusterClients {
    private ClusterClients() {
    }

    /** An Admin client with a short retry backoff (20 ms), 15 s per request and 60 s per call. */
    public static Admin admin(String bootstrap) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                60_000, AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 20));
    }

    /**
     * Polls Metadata every 100 ms until each of the {@code partitions} partitions of a new {@code
     * topic} has a leader; returns the leaders by partition.
     *
     * @throws IllegalStateException if some partition has none after {@code timeoutMs}
     */
    public static List<Integer> awaitLeaders(Admin admin, String topic, int partitions, long timeoutMs)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            try {
                List<Integer> leaders = ServedProbe.leaders(admin, topic);
                if (leaders.size() == partitions && leaders.stream().allMatch(l -> l >= 0)) {
                    return leaders;
                }
            } catch (ExecutionException e) {
                // A broker that has not learnt of the new topic yet: ask again.
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("topic " + topic + " has partitions without a leader after "
                        + timeoutMs / 1000 + " s");
            }
            Thread.sleep(100); // polling another process's state: there is no event to wait for
        }
    }
}
