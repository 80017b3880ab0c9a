package io.aloft.omb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.omb.runner.RunResult;
import io.aloft.omb.runner.RunnerOptions;
import io.aloft.omb.runner.WorkloadRunner;
import io.aloft.omb.workload.DriverConfig;
import io.aloft.omb.workload.Workload;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped transactional driver end to end against a real Aloft broker in this JVM with
 * transactions enabled: a few seconds of two transactional producers and a read_committed
 * consumer. Checks what was measured (committed transactions, every committed message read, no
 * aborts), never how fast; and that against a broker without transactions the run still ends,
 * with the refusals counted as errors.
 */
@Timeout(120)
class TransactionsSmokeRunTest {
    @TempDir
    static Path dir;
    private static InProcessBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = new InProcessBroker(dir.resolve("broker"), Map.of("aloft.transactions.enable", "true",
                "transaction.state.log.num.partitions", "2"));
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void run_transactionalDriver_commitsAndConsumersReadEveryCommittedMessage() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RunResult r = new WorkloadRunner(small(), driver(), broker.bootstrap(), new PrintStream(out, true,
                StandardCharsets.UTF_8), RunnerOptions.DEFAULTS.withReportInterval(Duration.ofSeconds(1))).run();
        String printed = out.toString(StandardCharsets.UTF_8);
        System.out.println(printed);
        System.out.println(r.toTable());

        assertTrue(printed.contains("transactions: 20 messages each, consumers read_committed"), printed);
        assertTrue(r.figure(RunResult.COMMIT_RATE_TXNS) > 0, "transactions committed in the test phase");
        assertTrue(r.figure(RunResult.COMMIT_LATENCY_P99_MS) >= 0);
        assertTrue(r.figure(RunResult.E2E_LATENCY_P99_MS) >= 0, "read_committed consumers received messages");
        assertEquals(0.0, r.figure("runAbortedTransactions"));
        assertEquals(0.0, r.figure("runPublishErrors"));
        // Full transactions of 20, except each producer's last one, committed partly filled at the stop.
        double committed = r.figure("runCommittedTransactions");
        double published = r.figure("runPublishedMsgs");
        assertTrue(published <= committed * 20 && published > (committed - 2) * 20,
                published + " messages published in " + committed + " transactions of at most 20");
        assertEquals(r.figure("runPublishedMsgs"), r.figure("runConsumedMsgs"), "every committed message consumed");
    }

    @Test
    void run_brokerWithoutTransactions_countsErrorsAndFinishes() throws Exception {
        try (InProcessBroker plain = new InProcessBroker(dir.resolve("plain"),
                Map.of("aloft.transactions.enable", "false"))) {
            RunResult r = new WorkloadRunner(small(), driver(), plain.bootstrap(), System.out,
                    RunnerOptions.DEFAULTS.withReportInterval(Duration.ofSeconds(1))).run();
            System.out.println(r.toTable());
            assertTrue(r.figure("runPublishErrors") > 0, "refused initTransactions calls count as errors");
            assertEquals(0.0, r.figure("runPublishedMsgs"));
            assertEquals(0.0, r.figure("runCommittedTransactions"));
        }
    }

    /** The shipped workload's shape, small: 2 producers x 10 transactions/s of 20 messages, a few seconds. */
    private static Workload small() {
        Workload w = Workload.load(Path.of("workloads/transactions.yaml"));
        return new Workload(w.name(), 1, 4, w.messageSize(), null, 1, 1, 2, 400, 0, 1, 0.08, 0.03,
                w.keyDistributor());
    }

    /** The shipped transactional driver with 20 messages per transaction. */
    private static DriverConfig driver() {
        DriverConfig shipped = DriverConfig.load(Path.of("drivers/kafka-transactions.yaml"));
        return new DriverConfig(shipped.name(), 1, shipped.commonConfig(), shipped.producerConfig(),
                shipped.consumerConfig(), shipped.topicConfig(), new DriverConfig.Transactions(true, 20));
    }
}
