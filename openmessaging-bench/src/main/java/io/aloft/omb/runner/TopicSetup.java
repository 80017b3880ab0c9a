package io.aloft.omb.runner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DeleteTopicsOptions;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates a run's fresh topics, waits until metadata shows them with a leader for every
 * partition, and deletes them afterwards. Stateless apart from the admin client it is given
 * (which it borrows, never closes); safe to call from one thread at a time.
 */
final class TopicSetup {
    private static final Logger log = LoggerFactory.getLogger(TopicSetup.class);
    /** CreateTopics requests carry this many topics at most, so 1000 topics is not one huge request. */
    private static final int BATCH = 200;
    /** How long a broker may take to answer at all, and to delete the run's topics. */
    static final Duration CONTACT_TIMEOUT = Duration.ofSeconds(20);

    private final Admin admin;
    private final Duration timeout;
    // Only what this object created is deleted, so a failed setup does not wait on deleting the rest.
    private final List<String> created = new ArrayList<>();

    TopicSetup(Admin admin, Duration timeout) {
        this.admin = admin;
        this.timeout = timeout;
    }

    /**
     * Fails fast, naming the address, when no broker answers; otherwise the first admin call would
     * retry for the client's whole API timeout with only connection warnings to show for it.
     */
    void checkReachable(String bootstrap) throws InterruptedException, ExecutionException, TimeoutException {
        try {
            admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) CONTACT_TIMEOUT.toMillis())).nodes()
                    .get(CONTACT_TIMEOUT.toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new TimeoutException("no broker answered at " + bootstrap + " within " + CONTACT_TIMEOUT.toSeconds()
                    + " s (" + e.getMessage() + ")");
        }
    }

    void create(List<String> names, int partitions, int replicationFactor, Properties topicConfig)
            throws InterruptedException, ExecutionException, TimeoutException {
        Map<String, String> configs = new HashMap<>();
        topicConfig.forEach((k, v) -> configs.put(k.toString(), v.toString()));
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int i = 0; i < names.size(); i += BATCH) {
            List<NewTopic> batch = new ArrayList<>();
            for (String name : names.subList(i, Math.min(names.size(), i + BATCH))) {
                batch.add(new NewTopic(name, partitions, (short) replicationFactor).configs(configs));
            }
            long left = remainingMillis(deadline);
            CreateTopicsResult result = admin.createTopics(batch,
                    new CreateTopicsOptions().timeoutMs((int) Math.min(Integer.MAX_VALUE, left)));
            try {
                result.all().get(left, TimeUnit.MILLISECONDS);
            } finally {
                result.values().forEach((name, f) -> {
                    if (f.isDone() && !f.isCompletedExceptionally()) {
                        created.add(name);
                    }
                });
            }
        }
        awaitLeaders(names, partitions, deadline);
        log.info("created {} topics with {} partitions each", names.size(), partitions);
    }

    private void awaitLeaders(List<String> names, int partitions, long deadline)
            throws InterruptedException, ExecutionException, TimeoutException {
        List<String> pending = new ArrayList<>(names);
        while (!pending.isEmpty()) {
            List<String> still = new ArrayList<>();
            for (int i = 0; i < pending.size(); i += BATCH) {
                List<String> batch = pending.subList(i, Math.min(pending.size(), i + BATCH));
                Map<String, TopicDescription> found;
                try {
                    found = admin.describeTopics(batch).allTopicNames()
                            .get(remainingMillis(deadline), TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    // Not yet known to the node answering: ask again.
                    still.addAll(batch);
                    continue;
                }
                for (String name : batch) {
                    TopicDescription d = found.get(name);
                    if (d == null || d.partitions().size() != partitions
                            || d.partitions().stream().map(TopicPartitionInfo::leader).anyMatch(l -> l == null)) {
                        still.add(name);
                    }
                }
            }
            pending = still;
            if (!pending.isEmpty()) {
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException(pending.size() + " topics (e.g. " + pending.get(0)
                            + ") still without leaders after " + timeout.toSeconds() + " s");
                }
                Thread.sleep(200);
            }
        }
    }

    /**
     * Deletes the topics {@link #create} created; failures are logged, not thrown, since the run's
     * figures are already taken.
     */
    void deleteCreatedQuietly() {
        List<String> names = List.copyOf(created);
        if (names.isEmpty()) {
            return;
        }
        try {
            admin.deleteTopics(names, new DeleteTopicsOptions().timeoutMs((int) CONTACT_TIMEOUT.toMillis())).all()
                    .get(CONTACT_TIMEOUT.toMillis() + 1000, TimeUnit.MILLISECONDS);
            created.clear();
            log.info("deleted {} topics", names.size());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            log.warn("interrupted while deleting {} topics (e.g. {}); they may remain", names.size(), names.get(0));
        } catch (ExecutionException | TimeoutException e) {
            log.warn("could not delete {} topics (e.g. {}); they may remain: {}", names.size(), names.get(0),
                    e.getMessage());
        }
    }

    private static long remainingMillis(long deadlineNanos) throws TimeoutException {
        long left = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        if (left <= 0) {
            throw new TimeoutException("topic setup took longer than its time limit");
        }
        return left;
    }
}
