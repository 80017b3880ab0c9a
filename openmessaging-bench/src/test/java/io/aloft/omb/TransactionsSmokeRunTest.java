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
 * aborts), never how fast.
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
        // The shipped workload's shape, small: 2 producers x 10 transactions/s of 20 messages.
        Workload w = Workload.load(Path.of("workloads/transactions.yaml")).withProducerRate(400)
                .withDurations(0.08, 0.03);
        DriverConfig shipped = DriverConfig.load(Path.of("drivers/kafka-transactions.yaml"));
        DriverConfig driver = new DriverConfig(shipped.name(), 1, shipped.commonConfig(), shipped.producerConfig(),
                shipped.consumerConfig(), shipped.topicConfig(), new DriverConfig.Transactions(true, 20));
        Workload small = new Workload(w.name(), 1, 4, w.messageSize(), null, 1, 1, 2, w.producerRate(), 0, 1,
                w.testDurationMinutes(), w.warmupDurationMinutes(), w.keyDistributor());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RunResult r = new WorkloadRunner(small, driver, broker.bootstrap(), new PrintStream(out, true,
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
}
