package io.aloft.compat;

import static org.junit.jupiter.api.Assertions.fail;

import io.aloft.servers.ChildBroker;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The client families of the default suite, each running the same scenario against one broker that
 * a subclass starts once for all of them: {@link ApacheKafkaClientsTest} proves every scenario
 * against Apache Kafka 4.3.1, {@link AloftClientsTest} runs them against Aloft.
 *
 * <p>A client run passes when the client prints its OK line (it checked every step itself: see
 * {@code compat/src/scenario}, {@code compat/python}, {@code compat/go}) and the harness's own
 * {@link BrokerCheck} agrees. A failure quotes the client's output and the broker's log lines
 * written during the run; a client that hangs is killed at a hard limit of seconds.
 *
 * <p>Confined to JUnit's test thread; the broker is per instance (one instance per class).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ClientCompatibilityTests {
    /** Records per partition per transaction of the transactions scenario. */
    static final int TRANSACTION_RECORDS = 5;
    /** Small enough to keep the harness within a few minutes, big enough for several batches per partition. */
    static final int PARTITIONS = 3;
    static final int RECORDS = 300;
    /** Hard limits: a JVM client needs its start-up on a busy 2-core machine; the others start in milliseconds. */
    static final Duration JVM_LIMIT = Duration.ofSeconds(45);
    static final Duration NATIVE_LIMIT = Duration.ofSeconds(30);
    /** kcat runs once per step, each with its own hard limit. */
    static final Duration KCAT_STEP_LIMIT = Duration.ofSeconds(20);
    /** A client gives up on its own this long before the hard limit, naming the step it was stuck in. */
    private static final Duration OWN_LIMIT_MARGIN = Duration.ofSeconds(8);
    private static final int BROKER_LOG_LINES = 60;

    private final CompatLayout layout = CompatLayout.fromSystemProperties();
    private ChildBroker broker;

    /** A broker not yet started, with its data under {@code scratch}. */
    abstract ChildBroker newBroker(Path scratch) throws IOException;

    /** Short name for directories: "kafka", "aloft". */
    abstract String brokerName();

    @BeforeAll
    void startBroker() throws Exception {
        broker = newBroker(layout.workDir().resolve("brokers"));
        broker.start();
    }

    @AfterAll
    void stopBroker() {
        if (broker != null) {
            broker.stop();
        }
    }

    // ---- kafka-clients generations (child JVMs) -----------------------------------------------

    @Test
    void kafkaClients_2_8_2_passesScenario() throws Exception {
        java("2.8.2");
    }

    @Test
    void kafkaClients_3_0_2_passesScenario() throws Exception {
        java("3.0.2");
    }

    @Test
    void kafkaClients_3_6_2_passesScenario() throws Exception {
        java("3.6.2");
    }

    @Test
    void kafkaClients_4_3_1_passesScenario() throws Exception {
        java("4.3.1");
    }

    /** The KIP-848 consumer group protocol (ConsumerGroupHeartbeat), which 4.x consumers can opt into. */
    @Test
    void kafkaClients_4_3_1_consumerGroupProtocol_passesScenario() throws Exception {
        Scenario s = scenario("java-4.3.1-kip848", JVM_LIMIT);
        check(s, new JavaClients(layout).command("4.3.1", s, List.of("group.protocol=consumer")), JVM_LIMIT);
    }

    // ---- librdkafka through confluent-kafka (Python) -------------------------------------------

    @Test
    void librdkafka_2_16_confluentKafkaPython_passesScenario() throws Exception {
        python("2.16.1");
    }

    /** The KIP-848 consumer group protocol through librdkafka ({@code group.protocol=consumer}). */
    @Test
    void librdkafka_2_16_confluentKafkaPython_consumerGroupProtocol_passesScenario() throws Exception {
        Scenario s = scenario("librdkafka-confluent-kafka-2.16.1-kip848", NATIVE_LIMIT);
        check(s, new PythonClients(layout).command("2.16.1", s, "consumer"), NATIVE_LIMIT);
    }

    /** librdkafka 2.0.x: the generation of the kcat that found the ListOffsets bug (issue 11). */
    @Test
    void librdkafka_2_0_confluentKafkaPython_passesScenario() throws Exception {
        python("2.0.2");
    }

    // ---- kcat (Debian's package: librdkafka 2.0.2) --------------------------------------------

    /** The tool that found the ListOffsets bug (issue 11): kcat 1.7.1 on librdkafka 2.0.2, from Debian 12. */
    @Test
    void kcat_passesScenario() throws Exception {
        Kcat kcat = Kcat.find();
        Scenario s = scenario("kcat", NATIVE_LIMIT);
        check(s, () -> kcat.run(s, layout.workDir().resolve(brokerName()), KCAT_STEP_LIMIT));
    }

    // ---- Go -------------------------------------------------------------------------------------

    @Test
    void franzGo_passesScenario() throws Exception {
        Scenario s = scenario("franz-go", NATIVE_LIMIT);
        check(s, new GoClients(layout).franz(s), NATIVE_LIMIT);
    }

    /** Sarama speaking Kafka 0.11's protocol versions, as old Go services still configure it. */
    @Test
    void sarama_v0_11_0_0_passesScenario() throws Exception {
        sarama("0.11.0.0");
    }

    /** Sarama's DefaultVersion (2.8.0 in Sarama 1.61). */
    @Test
    void sarama_defaultVersion_passesScenario() throws Exception {
        sarama("default");
    }

    /** Sarama's MaxVersion (4.3.1 in Sarama 1.61): the newest request versions it knows. */
    @Test
    void sarama_maxVersion_passesScenario() throws Exception {
        sarama("max");
    }

    // ---- transactions (issue 16): the transactions scenario of compat/python and compat/go ---------

    /** Commits, an abort and fencing by a transactional librdkafka producer, read back at both isolation levels. */
    @Test
    void librdkafka_2_16_confluentKafkaPython_transactions() throws Exception {
        Scenario s = transactionsScenario("txn-librdkafka-2.16.1");
        transactions(s, new PythonClients(layout).transactions("2.16.1", s));
    }

    /** librdkafka 2.0.x: a transactional producer of the generation Debian 12 ships. */
    @Test
    void librdkafka_2_0_confluentKafkaPython_transactions() throws Exception {
        Scenario s = transactionsScenario("txn-librdkafka-2.0.2");
        transactions(s, new PythonClients(layout).transactions("2.0.2", s));
    }

    /** The same with franz-go's transactional client. */
    @Test
    void franzGo_transactions() throws Exception {
        Scenario s = transactionsScenario("txn-franz-go");
        transactions(s, new GoClients(layout).franzTransactions(s));
    }

    /** {@link #TRANSACTION_RECORDS} records per partition per transaction. */
    private Scenario transactionsScenario(String client) {
        return new Scenario(broker.bootstrap(), "compat-" + client, "compat-" + client + "-group", PARTITIONS,
                TRANSACTION_RECORDS, NATIVE_LIMIT.minus(OWN_LIMIT_MARGIN));
    }

    /**
     * Runs a transactions client; the harness then checks with kafka-clients' read_committed consumer
     * that the scenario's committed transactions (first, third, and the successor's after the fencing;
     * not the aborted second) are what each partition holds.
     */
    private void transactions(Scenario s, ClientCommand client) throws Exception {
        check(s, client, NATIVE_LIMIT, () -> BrokerCheck.readCommitted(s, List.of("first", "third", "successor"),
                TRANSACTION_RECORDS));
    }

    // ---- running one client ---------------------------------------------------------------------

    private void java(String version) throws Exception {
        Scenario s = scenario("java-" + version, JVM_LIMIT);
        check(s, new JavaClients(layout).command(version, s, List.of()), JVM_LIMIT);
    }

    private void python(String version) throws Exception {
        Scenario s = scenario("librdkafka-confluent-kafka-" + version, NATIVE_LIMIT);
        check(s, new PythonClients(layout).command(version, s), NATIVE_LIMIT);
    }

    private void sarama(String version) throws Exception {
        Scenario s = scenario("sarama-" + version, NATIVE_LIMIT);
        check(s, new GoClients(layout).sarama(version, s), NATIVE_LIMIT);
    }

    private Scenario scenario(String client, Duration limit) {
        return new Scenario(broker.bootstrap(), "compat-" + client, "compat-" + client + "-group", PARTITIONS,
                RECORDS, limit.minus(OWN_LIMIT_MARGIN));
    }

    /** Runs one client program, which checks every step itself, then the harness's own check. */
    private void check(Scenario s, ClientCommand client, Duration limit) throws Exception {
        check(s, client, limit, () -> BrokerCheck.committedEverything(s));
    }

    /** As above, with the harness's own check of the broker afterwards. */
    private void check(Scenario s, ClientCommand client, Duration limit, HarnessCheck harness) throws Exception {
        check(s, () -> {
            ClientRun run = ClientRun.run(s.topic().substring("compat-".length()), client.command(),
                    client.environment(), layout.workDir().resolve(brokerName()), limit);
            return new Outcome(run.succeeded() && run.output().lines().anyMatch(l -> l.startsWith("OK ")),
                    run.describe());
        }, harness);
    }

    /**
     * How a client's steps went. Immutable.
     *
     * @param report what failed, if anything, and the client's output
     */
    record Outcome(boolean passed, String report) {
    }

    /** Runs one client's steps, on the test thread. */
    @FunctionalInterface
    interface ClientSteps {
        Outcome run() throws Exception;
    }

    private void check(Scenario s, ClientSteps client) throws Exception {
        check(s, client, () -> BrokerCheck.committedEverything(s));
    }

    /** What the harness finds on the broker after a passing run: null if all holds, else what does not. */
    @FunctionalInterface
    interface HarnessCheck {
        String run() throws Exception;
    }

    private void check(Scenario s, ClientSteps client, HarnessCheck harness) throws Exception {
        BrokerLog brokerLog = BrokerLog.mark(broker, brokerName());
        Outcome outcome = client.run();
        String failure = outcome.passed() ? null : outcome.report();
        if (failure == null) {
            String brokerSide = harness.run();
            if (brokerSide != null) {
                failure = "the client passed its own checks, but the harness finds: " + brokerSide + "\n"
                        + outcome.report();
            }
        }
        if (failure != null) {
            fail("against " + broker.description() + ":\n" + failure + "\n\nbroker log during the run (last "
                    + BROKER_LOG_LINES + " lines):\n" + brokerLog.since(BROKER_LOG_LINES));
        }
    }
}
