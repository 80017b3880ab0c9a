package io.aloft.autoscaler.execute;

import io.aloft.autoscaler.balance.Move;
import io.aloft.autoscaler.balance.Plan;
import io.aloft.autoscaler.execute.ExecutionResult.Batch;
import io.aloft.autoscaler.execute.ExecutionResult.Failure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out a balancing {@link Plan} through the Kafka Admin API, within {@link ExecutionLimits}:
 * the first {@code maxMovesPerRun} moves are split into batches ({@link Batches}: no broker in more
 * than {@code maxConcurrentMovesPerBroker} moves of one batch); each batch is one {@code
 * alterPartitionReassignments} call with one-broker targets (Aloft serves a partition from exactly
 * one broker), after which the executor polls {@code describeTopics} until every accepted move's
 * partition is led by its target, for at most {@code moveTimeout}; then it pauses before the next.
 *
 * <p>Before a batch, each move is checked against the partition's current leader: one already on
 * its target is done; one no longer on its source (moved by someone else, its broker drained) is
 * failed as stale rather than applied to a cluster the plan was not made for. A move the Admin call
 * refuses is recorded with Kafka's error and not retried: the next run plans again from fresh
 * metrics. A dry run changes nothing and prints each move of each batch with its reason.
 *
 * <p>Logs one INFO line per batch, one per failure and a summary. Confined to the caller's single
 * thread; the {@link Admin} belongs to the caller.
 */
public final class ReassignmentExecutor {
    private static final Logger log = LoggerFactory.getLogger(ReassignmentExecutor.class);
    private static final long POLL_MS = 200;
    private static final long ADMIN_TIMEOUT_MS = 30_000;

    private final Admin admin;
    private final ExecutionLimits limits;
    private final Consumer<String> planPrinter;

    /** Dry runs print the plan to the log (INFO). */
    public ReassignmentExecutor(Admin admin, ExecutionLimits limits) {
        this(admin, limits, line -> log.info("{}", line));
    }

    /**
     * @param admin the cluster's Admin client (the caller owns and closes it)
     * @param limits how fast moves may run
     * @param planPrinter receives a dry run's lines (a header per batch, one line per move), e.g.
     *     {@code System.out::println} for the {@code plan} command
     */
    public ReassignmentExecutor(Admin admin, ExecutionLimits limits, Consumer<String> planPrinter) {
        this.admin = Objects.requireNonNull(admin, "admin");
        this.limits = Objects.requireNonNull(limits, "limits");
        this.planPrinter = Objects.requireNonNull(planPrinter, "planPrinter");
    }

    /**
     * Runs (or with {@code dryRun}, prints) {@code plan}'s moves in batches.
     *
     * @throws InterruptedException if interrupted; the batch under way keeps going in the cluster
     */
    public ExecutionResult execute(Plan plan, boolean dryRun) throws InterruptedException {
        long start = System.nanoTime();
        List<Move> moves = plan.moves();
        int budget = Math.min(limits.maxMovesPerRun(), moves.size());
        List<Move> deferred = moves.subList(budget, moves.size());
        List<List<Move>> split = Batches.split(moves.subList(0, budget), limits.maxConcurrentMovesPerBroker());
        List<Batch> batches = new ArrayList<>();
        List<Move> done = new ArrayList<>();
        List<Failure> failed = new ArrayList<>();
        if (dryRun) {
            for (int i = 0; i < split.size(); i++) {
                planPrinter.accept("Batch " + (i + 1) + "/" + split.size() + " (" + split.get(i).size() + " moves):");
                split.get(i).forEach(m -> planPrinter.accept("  " + describe(m)));
                batches.add(new Batch(i + 1, split.get(i), Duration.ZERO));
            }
            deferred.forEach(m -> planPrinter.accept("Deferred (beyond " + limits.maxMovesPerRun() + " moves a run): "
                    + describe(m)));
        } else {
            for (int i = 0; i < split.size(); i++) {
                if (i > 0 && !limits.pauseBetweenBatches().isZero()) {
                    Thread.sleep(limits.pauseBetweenBatches().toMillis());
                }
                batches.add(runBatch(i + 1, split.size(), split.get(i), done, failed));
            }
        }
        ExecutionResult result = new ExecutionResult(dryRun, batches, done, failed, deferred,
                Duration.ofNanos(System.nanoTime() - start));
        log.info("{}", result.summary());
        return result;
    }

    /** {@code move t-3 from broker 1 to broker 3 (in 1.20 MB/s, out 0.50 MB/s): reason}. */
    public static String describe(Move m) {
        return String.format("move %s from broker %d to broker %d (in %s, out %s): %s", m.name(), m.fromBroker(),
                m.toBroker(), rate(m.bytesInPerSec()), rate(m.bytesOutPerSec()), m.reason());
    }

    private static String rate(double bytesPerSec) {
        return Double.isNaN(bytesPerSec) ? "unknown" : String.format("%.2f MB/s", bytesPerSec / 1e6);
    }

    private Batch runBatch(int index, int count, List<Move> moves, List<Move> done, List<Failure> failed)
            throws InterruptedException {
        long start = System.nanoTime();
        Map<String, String> topicErrors = new HashMap<>();
        Map<TopicPartition, Integer> before = leaders(moves, topicErrors);
        Map<TopicPartition, Move> toMove = new HashMap<>();
        int failedBefore = failed.size();
        for (Move m : moves) {
            TopicPartition tp = new TopicPartition(m.topic(), m.partition());
            Integer leader = before.get(tp);
            if (leader == null) {
                fail(failed, m, topicErrors.getOrDefault(m.topic(),
                        "UnknownTopicOrPartitionException: topic " + m.topic() + " has no partition " + m.partition()));
            } else if (leader == m.toBroker()) {
                done.add(m); // already there: nothing to do
            } else if (leader != m.fromBroker()) {
                fail(failed, m, "stale plan: " + tp + " is led by " + (leader < 0 ? "no broker" : "broker " + leader)
                        + ", not by broker " + m.fromBroker());
            } else {
                toMove.put(tp, m);
            }
        }
        if (!toMove.isEmpty()) {
            Map<TopicPartition, Optional<NewPartitionReassignment>> request = new HashMap<>();
            toMove.forEach((tp, m) -> request.put(tp, Optional.of(new NewPartitionReassignment(List.of(m.toBroker())))));
            Map<TopicPartition, KafkaFuture<Void>> results = admin.alterPartitionReassignments(request).values();
            for (Move m : moves) {
                TopicPartition tp = new TopicPartition(m.topic(), m.partition());
                if (!toMove.containsKey(tp)) {
                    continue;
                }
                try {
                    // The call's own bound, not moveTimeout: a short moveTimeout must not report
                    // as failed a move the controller accepted.
                    results.get(tp).get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    toMove.remove(tp);
                    fail(failed, m, error(e.getCause()));
                } catch (TimeoutException e) {
                    toMove.remove(tp);
                    fail(failed, m, "alterPartitionReassignments did not answer in " + ADMIN_TIMEOUT_MS + " ms");
                }
            }
            awaitLeaders(toMove, System.nanoTime() + limits.moveTimeout().toNanos(), done, failed);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        log.info("Batch {}/{}: {} moves, {} failed, in {} ms: {}", index, count, moves.size(),
                failed.size() - failedBefore, took.toMillis(), moves.stream()
                        .map(m -> m.name() + " " + m.fromBroker() + "->" + m.toBroker()).collect(Collectors.joining(", ")));
        return new Batch(index, moves, took);
    }

    /** Polls until every partition of {@code pending} is led by its move's target, or the deadline. */
    private void awaitLeaders(Map<TopicPartition, Move> pending, long deadline, List<Move> done, List<Failure> failed)
            throws InterruptedException {
        Map<TopicPartition, Integer> last = Map.of();
        while (!pending.isEmpty()) {
            last = leaders(pending.values(), new HashMap<>());
            for (Map.Entry<TopicPartition, Integer> e : last.entrySet()) {
                Move m = pending.get(e.getKey());
                if (m != null && e.getValue() == m.toBroker()) {
                    pending.remove(e.getKey());
                    done.add(m);
                }
            }
            if (pending.isEmpty() || System.nanoTime() > deadline) {
                break;
            }
            Thread.sleep(POLL_MS);
        }
        // Sorted, so that the failure lines come in a stable order (TopicPartition is not Comparable).
        Map<TopicPartition, Move> late = new TreeMap<>(Comparator.comparing(TopicPartition::topic)
                .thenComparingInt(TopicPartition::partition));
        late.putAll(pending);
        for (Map.Entry<TopicPartition, Move> e : late.entrySet()) {
            Integer leader = last.get(e.getKey());
            fail(failed, e.getValue(), "not led by broker " + e.getValue().toBroker() + " after "
                    + limits.moveTimeout().toSeconds() + " s (led by " + (leader == null || leader < 0 ? "no broker"
                            : "broker " + leader) + ")");
        }
    }

    /**
     * Leaders of the moves' partitions (-1: none); absent when the topic or partition is unknown or
     * the call failed, in which case {@code topicErrors} gets the topic's error as Kafka reported it.
     */
    private Map<TopicPartition, Integer> leaders(Collection<Move> moves, Map<String, String> topicErrors)
            throws InterruptedException {
        TreeSet<String> topics = moves.stream().map(Move::topic).collect(Collectors.toCollection(TreeSet::new));
        Map<TopicPartition, Integer> out = new HashMap<>();
        for (Map.Entry<String, KafkaFuture<TopicDescription>> e : admin.describeTopics(topics).topicNameValues()
                .entrySet()) {
            try {
                for (TopicPartitionInfo p : e.getValue().get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS).partitions()) {
                    out.put(new TopicPartition(e.getKey(), p.partition()),
                            p.leader() == null || p.leader().isEmpty() ? -1 : p.leader().id());
                }
            } catch (ExecutionException ex) {
                topicErrors.put(e.getKey(), error(ex.getCause()));
            } catch (TimeoutException ex) {
                topicErrors.put(e.getKey(), "describeTopics did not answer in " + ADMIN_TIMEOUT_MS + " ms");
            }
        }
        return out;
    }

    private static String error(Throwable t) {
        return t.getClass().getSimpleName() + ": " + t.getMessage();
    }

    private static void fail(List<Failure> failed, Move m, String error) {
        failed.add(new Failure(m, error));
        log.info("Move {} from broker {} to broker {} failed: {}", m.name(), m.fromBroker(), m.toBroker(), error);
    }
}
