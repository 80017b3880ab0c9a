package io.aloft.omb.runner;

import static io.aloft.omb.runner.RunResult.BACKLOG_BUILD_MBPS;
import static io.aloft.omb.runner.RunResult.COMMIT_LATENCY_P99_MS;
import static io.aloft.omb.runner.RunResult.COMMIT_RATE_TXNS;
import static io.aloft.omb.runner.RunResult.CONSUME_MBPS;
import static io.aloft.omb.runner.RunResult.CONSUME_RATE_MSGS;
import static io.aloft.omb.runner.RunResult.DRAIN_MBPS;
import static io.aloft.omb.runner.RunResult.E2E_LATENCY_MAX_MS;
import static io.aloft.omb.runner.RunResult.E2E_LATENCY_P50_MS;
import static io.aloft.omb.runner.RunResult.E2E_LATENCY_P999_MS;
import static io.aloft.omb.runner.RunResult.E2E_LATENCY_P99_MS;
import static io.aloft.omb.runner.RunResult.PUBLISH_ERRORS;
import static io.aloft.omb.runner.RunResult.PUBLISH_LATENCY_MAX_MS;
import static io.aloft.omb.runner.RunResult.PUBLISH_LATENCY_P50_MS;
import static io.aloft.omb.runner.RunResult.PUBLISH_LATENCY_P999_MS;
import static io.aloft.omb.runner.RunResult.PUBLISH_LATENCY_P99_DURING_DRAIN_MS;
import static io.aloft.omb.runner.RunResult.PUBLISH_LATENCY_P99_BEFORE_DRAIN_MS;
import static io.aloft.omb.runner.RunResult.PUBLISH_LATENCY_P99_MS;
import static io.aloft.omb.runner.RunResult.PUBLISH_MBPS;
import static io.aloft.omb.runner.RunResult.PUBLISH_RATE_MSGS;
import static io.aloft.omb.runner.RunResult.REDELIVERY_LATENCY_P50_MS;
import static io.aloft.omb.runner.RunResult.REDELIVERY_LATENCY_P99_MS;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Turns a run's windows into the ordered figures of a {@link RunResult}. Stateless.
 *
 * <p>Order: throughput, (transactional drivers only) transaction rate and commit latency, publish
 * latency, end-to-end latency, (share groups only) redelivery, errors, counts, then (backlog mode
 * only) the backlog figures. With share groups, consumed messages are those accepted (each record
 * once, whether on its first delivery or a later one), and end-to-end latency covers first
 * deliveries only. With
 * transactions, published messages are those of committed transactions and errors those of
 * transactions that did not commit; consumers read committed data only, so end-to-end latency
 * includes the wait for the commit. All throughput and latency figures cover the test phase (after
 * warm-up); the {@code run...} counts cover the whole run including warm-up and the final drain.
 */
final class ResultFigures {
    private ResultFigures() {
    }

    /** What the backlog part of a test phase measured. */
    record Backlog(double targetBytes, Window build, boolean built, long msgsAtDrainStart, Window drain,
            boolean drained) {
    }

    /** Counts over the whole run and the run's shape. */
    record Totals(long runPublishedMsgs, long runConsumedMsgs, long expectedConsumedMsgs, long runErrors,
            int producerClients, int consumerClients, double targetRateMsgs) {
    }

    /** A transactional run's shape and counts over the whole run. */
    record Transactions(int messagesPerTransaction, long runCommitted, long runAborted) {
    }

    /**
     * A share-group run's shape and counts over the whole run.
     *
     * @param pendingAtEnd records released but not delivered again by the end of the run
     */
    record Share(double releaseFraction, long runReleased, long runRedelivered, long pendingAtEnd) {
    }

    /** Without share groups. */
    static Map<String, Double> of(Window test, Backlog backlog, Totals totals, Transactions txn, int messageBytes) {
        return of(test, backlog, totals, txn, null, messageBytes);
    }

    /**
     * @param txn null unless the driver uses transactions
     * @param share null unless the consumers are share consumers
     */
    static Map<String, Double> of(Window test, Backlog backlog, Totals totals, Transactions txn, Share share,
            int messageBytes) {
        Map<String, Double> f = new LinkedHashMap<>();
        f.put(PUBLISH_RATE_MSGS, test.publishRate());
        f.put(PUBLISH_MBPS, test.publishMBps());
        f.put(CONSUME_RATE_MSGS, test.consumeRate());
        f.put(CONSUME_MBPS, test.consumeMBps());
        if (txn != null) {
            f.put(COMMIT_RATE_TXNS, test.commitRate());
            f.put("messagesPerTransaction", (double) txn.messagesPerTransaction());
            // The commitTransaction call: flushing the transaction's last sends, then EndTxn
            // until the coordinator has written the commit markers.
            f.put("commitLatencyP50Ms", test.commitMs(50));
            f.put(COMMIT_LATENCY_P99_MS, test.commitMs(99));
            f.put("commitLatencyMaxMs", test.commitMs(100));
            f.put("abortedTransactions", (double) test.abortedTxns);
        }
        f.put(PUBLISH_LATENCY_P50_MS, test.publishMs(50));
        f.put("publishLatencyP75Ms", test.publishMs(75));
        f.put("publishLatencyP95Ms", test.publishMs(95));
        f.put(PUBLISH_LATENCY_P99_MS, test.publishMs(99));
        f.put(PUBLISH_LATENCY_P999_MS, test.publishMs(99.9));
        f.put(PUBLISH_LATENCY_MAX_MS, test.publishMs(100));
        f.put("publishLatencyAvgMs", mean(test.publishLatencyMicros.getTotalCount(),
                test.publishLatencyMicros.getMean() / 1000.0));
        f.put(E2E_LATENCY_P50_MS, test.e2eMs(50));
        f.put("e2eLatencyP75Ms", test.e2eMs(75));
        f.put("e2eLatencyP95Ms", test.e2eMs(95));
        f.put(E2E_LATENCY_P99_MS, test.e2eMs(99));
        f.put(E2E_LATENCY_P999_MS, test.e2eMs(99.9));
        f.put(E2E_LATENCY_MAX_MS, test.e2eMs(100));
        f.put("e2eLatencyAvgMs", mean(test.e2eLatencyMillis.getTotalCount(), test.e2eLatencyMillis.getMean()));
        if (share != null) {
            // From the consumer's RELEASE acknowledgement (sent with its next poll, at once) to
            // the record's arrival again at any consumer of the group.
            f.put("releaseFraction", share.releaseFraction());
            f.put(REDELIVERY_LATENCY_P50_MS, test.redeliveryMs(50));
            f.put(REDELIVERY_LATENCY_P99_MS, test.redeliveryMs(99));
            f.put("redeliveryLatencyMaxMs", test.redeliveryMs(100));
            f.put("releasedMsgs", (double) test.releasedMsgs);
            f.put("redeliveredMsgs", (double) test.redeliveredMsgs);
            // Deliveries after the first that no consumer asked for: a lock that timed out or a
            // member that left; 0 in a healthy run.
            f.put("unreleasedRedeliveries", (double) test.otherRedeliveries);
        }
        // Lateness of send calls against the pacer's schedule (NaN when the rate is unlimited):
        // a large value means the producers could not keep the requested rate.
        f.put("publishDelayP99Ms", test.publishDelayMs(99));
        f.put("publishDelayMaxMs", test.publishDelayMs(100));
        f.put(PUBLISH_ERRORS, (double) test.sendErrors);
        f.put("publishedMsgs", (double) test.sentMsgs);
        f.put("consumedMsgs", (double) test.receivedMsgs);
        f.put("testSeconds", test.seconds());
        f.put("targetRateMsgs", totals.targetRateMsgs());
        f.put("runPublishedMsgs", (double) totals.runPublishedMsgs());
        f.put("runConsumedMsgs", (double) totals.runConsumedMsgs());
        // Published (times subscriptions) but never consumed by the end; negative if some were
        // delivered twice (a consumer rebalance re-reading uncommitted offsets).
        f.put("unconsumedMsgsAtEnd", (double) (totals.expectedConsumedMsgs() - totals.runConsumedMsgs()));
        f.put("runPublishErrors", (double) totals.runErrors());
        f.put("producerClients", (double) totals.producerClients());
        f.put("consumerClients", (double) totals.consumerClients());
        if (txn != null) {
            f.put("runCommittedTransactions", (double) txn.runCommitted());
            f.put("runAbortedTransactions", (double) txn.runAborted());
        }
        if (share != null) {
            f.put("runReleasedMsgs", (double) share.runReleased());
            f.put("runRedeliveredMsgs", (double) share.runRedelivered());
            f.put("releasedNotRedeliveredAtEnd", (double) share.pendingAtEnd());
        }
        if (backlog != null) {
            putBacklog(f, backlog, messageBytes);
        }
        return f;
    }

    private static void putBacklog(Map<String, Double> f, Backlog b, int messageBytes) {
        f.put("backlogTargetMB", b.targetBytes() / RunStats.MB);
        f.put("backlogAtDrainStartMB", b.msgsAtDrainStart() * (double) messageBytes / RunStats.MB);
        // 1 when the backlog reached its target size; 0 when the build stopped at the cap
        // (testDurationMinutes) and the drain started from what was there.
        f.put("backlogBuilt", b.built() ? 1.0 : 0.0);
        f.put("backlogBuildSeconds", b.build().seconds());
        f.put(BACKLOG_BUILD_MBPS, b.build().publishMBps());
        // 1 when consumers caught up (backlog down to OMB's level: max(1000 messages,
        // (1 - backlogDrainRatio) of the target)); 0 when the drain stopped at the cap.
        f.put("backlogDrained", b.drained() ? 1.0 : 0.0);
        f.put("drainSeconds", b.drain().seconds());
        f.put(DRAIN_MBPS, b.drain().consumeMBps());
        f.put("publishMBpsDuringDrain", b.drain().publishMBps());
        f.put("publishLatencyP50BeforeDrainMs", b.build().publishMs(50));
        f.put(PUBLISH_LATENCY_P99_BEFORE_DRAIN_MS, b.build().publishMs(99));
        f.put("publishLatencyP50DuringDrainMs", b.drain().publishMs(50));
        f.put(PUBLISH_LATENCY_P99_DURING_DRAIN_MS, b.drain().publishMs(99));
        f.put("publishLatencyMaxDuringDrainMs", b.drain().publishMs(100));
    }

    private static double mean(long count, double mean) {
        return count == 0 ? Double.NaN : mean;
    }
}
