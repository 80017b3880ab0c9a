package io.aloft.omb.runner;

import io.aloft.omb.report.ProgressLine;
import io.aloft.omb.workload.ConfigFileException;
import io.aloft.omb.workload.DriverConfig;
import io.aloft.omb.workload.Workload;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one workload with kafka-clients against a bootstrap address.
 *
 * <p>A run: create fresh topics ({@code omb-<name>-<random>-<i>}); start consumers and wait until
 * every partition is assigned; start producers; warm up; measure the test phase; stop producers;
 * give consumers up to {@link RunnerOptions#finalDrainTimeout} to read the rest; close every
 * client; delete the topics. In backlog mode the test phase is: pause consumers, produce until
 * the backlog reaches {@code consumerBacklogSizeGB} (or {@code testDurationMinutes} passed),
 * resume consumers and keep producing until the backlog is drained (or
 * {@code testDurationMinutes} passed again). Every wait has a limit, so a run always ends.
 *
 * <p>With a share-group driver ({@link DriverConfig#shareGroups}) the consumers are share consumers
 * ({@link ShareConsumerWorker}): the run first checks that the broker serves share groups at all
 * ({@link ShareGroupSetup#requireShareGroups}), sets the driver's group configs on each group, and
 * waits until every consumer is a member and the partitions are assigned. Backlog mode needs
 * classic consumers (a share consumer cannot pause).
 *
 * <p>Threads: {@link #run} on the caller's thread directs everything; each producer and consumer
 * client has its own thread ({@code omb-producer-N}, {@code omb-consumer-N} or
 * {@code omb-share-consumer-N}); {@code omb-progress}
 * prints a line every report interval. {@link #stop} may be called from any thread (a shutdown
 * hook, say): it interrupts the run, which then closes its clients and deletes its topics.
 * A runner runs once.
 */
public final class WorkloadRunner {
    private static final Logger log = LoggerFactory.getLogger(WorkloadRunner.class);
    private static final Duration CLIENT_CLOSE_TIMEOUT = Duration.ofSeconds(10);
    // Fine enough to time a short drain; the checks are a few counter sums.
    private static final long POLL_MILLIS = 20;

    private final Workload workload;
    private final DriverConfig driver;
    private final String bootstrap;
    private final PrintStream progress;
    private final RunnerOptions options;
    private final RunStats stats = new RunStats();
    private final CountDownLatch finished = new CountDownLatch(1);
    private final List<ProducerWorker> producers = new ArrayList<>();
    private final List<ConsumerWorker> consumers = new ArrayList<>();
    private final List<ShareConsumerWorker> shareConsumers = new ArrayList<>();
    private final RedeliveryTracker redeliveries = new RedeliveryTracker();
    private final List<Thread> producerThreads = new ArrayList<>();
    private final List<Thread> consumerThreads = new ArrayList<>();
    private volatile Thread runThread;
    private volatile boolean stopRequested;
    private volatile String phase = "setup";
    private volatile long phaseStartNanos = System.nanoTime();
    private ScheduledExecutorService reporter;
    private volatile Window reportWindow;
    // Default transactional.id prefix: the run's topic prefix, unique per run. Set by run.
    private String transactionalIdPrefix;

    public WorkloadRunner(Workload workload, DriverConfig driver, String bootstrap, PrintStream progress) {
        this(workload, driver, bootstrap, progress, RunnerOptions.DEFAULTS);
    }

    public WorkloadRunner(Workload workload, DriverConfig driver, String bootstrap, PrintStream progress,
            RunnerOptions options) {
        this.workload = workload;
        this.driver = driver;
        this.bootstrap = bootstrap;
        this.progress = progress;
        this.options = options;
    }

    /**
     * Runs the workload to its end (warm-up, then the measured test) and deletes the topics it
     * created. Throws {@link InterruptedException} when stopped or interrupted (after cleaning up),
     * {@link ConfigFileException} for an unreadable payload file, and whatever setup failed with
     * (e.g. a {@link TimeoutException} when the broker does not create topics in time).
     */
    public RunResult run() throws Exception {
        synchronized (this) {
            if (runThread != null) {
                throw new IllegalStateException("a WorkloadRunner runs once");
            }
            runThread = Thread.currentThread();
        }
        try {
            byte[] payload = payload();
            String prefix = "omb-" + slug(workload.name()) + "-" + randomId();
            transactionalIdPrefix = prefix;
            List<String> topics = new ArrayList<>();
            for (int i = 0; i < workload.topics(); i++) {
                topics.add(String.format(Locale.ROOT, "%s-%04d", prefix, i));
            }
            ClientLayout layout = ClientLayout.of(workload, options.maxClients(), prefix);
            progress.printf(Locale.ROOT, "workload %s on %s: %d topics x %d partitions, %d B messages, rate %s, "
                    + "%d producer clients, %d consumer clients, topics %s-*%n", workload.name(), bootstrap,
                    workload.topics(), workload.partitionsPerTopic(), payload.length,
                    workload.producerRate() == 0 ? "unlimited" : workload.producerRate() + " msg/s",
                    layout.producers().size(), layout.consumers().size(), prefix);
            boolean share = driver.shareGroups().enabled();
            if (share && workload.backlogMode()) {
                throw new ConfigFileException("workload field 'consumerBacklogSizeGB' needs classic consumers: "
                        + "share consumers (driver useShareGroups) cannot pause");
            }
            if (share) {
                progress.printf(Locale.ROOT, "share groups: explicit acknowledgement, release fraction %s, group "
                        + "configs %s%n", driver.shareGroups().releaseFraction(),
                        driver.shareGroups().effectiveGroupConfig());
            }
            if (driver.transactions().enabled()) {
                progress.printf(Locale.ROOT, "transactions: %d messages each, consumers %s%n",
                        driver.transactions().messagesPerTransaction(),
                        driver.consumerProperties(bootstrap).getProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG));
            }
            Admin admin = Admin.create(driver.adminProperties(bootstrap));
            TopicSetup setup = new TopicSetup(admin, options.setupTimeout());
            try {
                setup.checkReachable(bootstrap);
                if (share) {
                    ShareGroupSetup.requireShareGroups(bootstrap, driver.adminProperties(bootstrap),
                            options.setupTimeout());
                }
                setup.create(topics, workload.partitionsPerTopic(), driver.replicationFactor(),
                        driver.topicConfig());
                return runOn(topics, layout, payload, admin);
            } finally {
                // Cleanup must not be cut short by the interrupt that stopped the run.
                boolean interrupted = Thread.interrupted();
                stopClients();
                setup.deleteCreatedQuietly();
                admin.close(CLIENT_CLOSE_TIMEOUT);
                if (interrupted || stopRequested) {
                    Thread.currentThread().interrupt();
                }
            }
        } finally {
            finished.countDown();
        }
    }

    /**
     * Asks a running {@link #run} to stop early and clean up; returns at once. Use
     * {@link #awaitFinished} to wait for the cleanup.
     */
    public void stop() {
        stopRequested = true;
        Thread t = runThread;
        if (t != null) {
            t.interrupt();
        }
    }

    /** Waits until {@link #run} returned or threw; true if it did within the timeout. */
    public boolean awaitFinished(Duration timeout) throws InterruptedException {
        return runThread == null || finished.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private RunResult runOn(List<String> topics, ClientLayout layout, byte[] payload, Admin admin) throws Exception {
        if (driver.shareGroups().enabled()) {
            ShareGroupSetup shares = new ShareGroupSetup(admin, options.setupTimeout());
            ShareGroupSetup.Groups groups = ShareGroupSetup.Groups.of(layout, topics, workload.partitionsPerTopic());
            shares.configure(groups.members().keySet(), driver.shareGroups().effectiveGroupConfig());
            startShareConsumers(topics, layout);
            enterPhase("join");
            shares.awaitMembers(groups, this::failIfShareConsumerFailed);
            log.info("share consumers joined: {}", groups.members());
        } else {
            startConsumers(topics, layout);
            awaitAssignments();
        }
        startReporter();
        startProducers(topics, layout, payload);

        enterPhase("warmup");
        sleepChecked(minutes(workload.warmupDurationMinutes()));

        Window test = stats.open();
        enterPhase("test");
        ResultFigures.Backlog backlog = null;
        if (workload.backlogMode()) {
            backlog = buildAndDrain(payload.length);
        } else {
            sleepChecked(minutes(workload.testDurationMinutes()));
        }
        stats.close(test);

        enterPhase("finish");
        stopProducers();
        long expected = workload.subscriptionsPerTopic() * stats.totalSent();
        if (!waitUntil(() -> stats.totalReceived() >= expected, options.finalDrainTimeout().toNanos())) {
            progress.printf(Locale.ROOT, "consumers did not read %d of %d messages within %d s%n",
                    expected - stats.totalReceived(), expected, options.finalDrainTimeout().toSeconds());
        }
        stopReporter();
        ResultFigures.Totals totals = new ResultFigures.Totals(stats.totalSent(), stats.totalReceived(), expected,
                stats.totalErrors(), layout.producers().size(), layout.consumers().size(), workload.producerRate());
        ResultFigures.Transactions txn = driver.transactions().enabled() ? new ResultFigures.Transactions(
                driver.transactions().messagesPerTransaction(), stats.totalCommittedTxns(),
                stats.totalAbortedTxns()) : null;
        ResultFigures.Share share = driver.shareGroups().enabled() ? new ResultFigures.Share(
                driver.shareGroups().releaseFraction(), stats.totalReleased(), stats.totalRedelivered(),
                redeliveries.pending()) : null;
        return new RunResult(workload.name(), ResultFigures.of(test, backlog, totals, txn, share, payload.length));
    }

    /** The backlog part of the test phase; see the class comment. */
    private ResultFigures.Backlog buildAndDrain(int messageBytes) throws InterruptedException {
        long cap = minutes(workload.testDurationMinutes());
        long targetBytes = workload.backlogBytes();
        consumers.forEach(ConsumerWorker::pause);
        enterPhase("build");
        Window build = stats.open();
        boolean built = waitUntil(() -> backlogMsgs() * messageBytes >= targetBytes, cap);
        stats.close(build);
        long atDrainStart = backlogMsgs();
        progress.printf(Locale.ROOT, "backlog %.1f MB %s after %.0f s; draining while producing%n",
                atDrainStart * (double) messageBytes / RunStats.MB, built ? "built" : "(target not reached)",
                build.seconds());

        // OMB's end of drain: the backlog is down to (1 - backlogDrainRatio) of its target size,
        // but never asks for fewer than 1000 messages left (consumers lag producers by a little).
        long emptyLevel = (long) ((1.0 - workload.backlogDrainRatio()) * (targetBytes / messageBytes));
        long minBacklog = Math.max(1000L, emptyLevel);
        consumers.forEach(ConsumerWorker::resume);
        enterPhase("drain");
        Window drain = stats.open();
        boolean drained = waitUntil(() -> backlogMsgs() <= minBacklog, cap);
        stats.close(drain);
        progress.printf(Locale.ROOT, "backlog %s after %.0f s%n", drained ? "drained" : "NOT drained (time cap)",
                drain.seconds());
        return new ResultFigures.Backlog(targetBytes, build, built, atDrainStart, drain, drained);
    }

    private long backlogMsgs() {
        return workload.subscriptionsPerTopic() * stats.totalSent() - stats.totalReceived();
    }

    private void startConsumers(List<String> topics, ClientLayout layout) {
        int i = 0;
        for (ClientLayout.ConsumerPlan plan : layout.consumers()) {
            Properties props = driver.consumerProperties(bootstrap);
            props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
            props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
            props.put(ConsumerConfig.GROUP_ID_CONFIG, plan.groupId());
            props.put(ConsumerConfig.CLIENT_ID_CONFIG, plan.groupId() + "-c" + i);
            boolean autoCommit = Boolean.parseBoolean(
                    props.getProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "true").trim());
            ConsumerWorker worker = new ConsumerWorker(new KafkaConsumer<>(props), names(topics, plan.topicIndexes()),
                    !autoCommit, stats);
            consumers.add(worker);
            consumerThreads.add(start(worker, "omb-consumer-" + i++));
        }
    }

    private void startShareConsumers(List<String> topics, ClientLayout layout) {
        int i = 0;
        for (ClientLayout.ConsumerPlan plan : layout.consumers()) {
            Properties props = driver.shareConsumerProperties(bootstrap);
            props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
            props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
            props.put(ConsumerConfig.GROUP_ID_CONFIG, plan.groupId());
            props.put(ConsumerConfig.CLIENT_ID_CONFIG, plan.groupId() + "-c" + i);
            ShareConsumerWorker worker = new ShareConsumerWorker(new KafkaShareConsumer<>(props),
                    names(topics, plan.topicIndexes()), driver.shareGroups(), redeliveries, stats);
            shareConsumers.add(worker);
            consumerThreads.add(start(worker, "omb-share-consumer-" + i++));
        }
    }

    private void failIfShareConsumerFailed() {
        for (ShareConsumerWorker c : shareConsumers) {
            if (c.failure() != null) {
                throw new IllegalStateException("a share consumer failed while joining: " + c.failure(), c.failure());
            }
        }
    }

    private void awaitAssignments() throws InterruptedException, TimeoutException {
        if (consumers.isEmpty()) {
            return;
        }
        enterPhase("join");
        long expected = (long) workload.subscriptionsPerTopic() * workload.topics() * workload.partitionsPerTopic();
        boolean ready = waitUntil(() -> {
            long assigned = 0;
            for (ConsumerWorker c : consumers) {
                if (c.failure() != null) {
                    return true;
                }
                assigned += c.assignedPartitions();
            }
            return assigned == expected;
        }, options.setupTimeout().toNanos());
        for (ConsumerWorker c : consumers) {
            if (c.failure() != null) {
                throw new IllegalStateException("a consumer failed while joining: " + c.failure(), c.failure());
            }
        }
        if (!ready) {
            throw new TimeoutException("consumers were not assigned all " + expected + " partitions within "
                    + options.setupTimeout().toSeconds() + " s");
        }
        log.info("consumers assigned all {} partitions", expected);
    }

    private void startProducers(List<String> topics, ClientLayout layout, byte[] payload) {
        byte[][] keys = MessageRouter.keySet(new Random().nextLong());
        int i = 0;
        for (ClientLayout.ProducerPlan plan : layout.producers()) {
            Properties props = driver.producerProperties(bootstrap, transactionalIdPrefix, i);
            props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            props.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "omb-producer-" + i);
            MessageRouter router = new MessageRouter(workload.keyDistributorType(), keys,
                    workload.hotPartitionShare(), workload.partitionsPerTopic(), new Random().nextLong());
            ProducerWorker worker = new ProducerWorker(sender(props), names(topics, plan.topicIndexes()),
                    payload, router, plan.ratePerSecond(), stats);
            producers.add(worker);
            producerThreads.add(start(worker, "omb-producer-" + i++));
        }
    }

    /** One by one, or in transactions when the driver says so; the client is made here (plain) or on first send. */
    private MessageSender sender(Properties props) {
        DriverConfig.Transactions txn = driver.transactions();
        if (!txn.enabled()) {
            return new PlainSender(new KafkaProducer<>(props), stats);
        }
        return new TransactionalSender(() -> new KafkaProducer<>(props), txn.messagesPerTransaction(), stats);
    }

    private void stopProducers() {
        producers.forEach(ProducerWorker::stop);
        joinAll(producerThreads);
        // Close in order; each close waits for its own sends in flight, which meanwhile complete
        // in the other clients' I/O threads too, so the total stays near one timeout.
        producers.forEach(p -> p.close(CLIENT_CLOSE_TIMEOUT));
        producers.clear();
        producerThreads.clear();
    }

    /** Stops whatever is still running; safe to call more than once. */
    private void stopClients() {
        stopReporter();
        stopProducers();
        consumers.forEach(ConsumerWorker::stop);
        shareConsumers.forEach(ShareConsumerWorker::stop);
        joinAll(consumerThreads);
        consumers.clear();
        shareConsumers.clear();
        consumerThreads.clear();
    }

    private static void joinAll(List<Thread> threads) {
        long deadline = System.nanoTime() + CLIENT_CLOSE_TIMEOUT.toNanos();
        for (Thread t : threads) {
            try {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (t.isAlive()) {
                log.warn("thread {} did not end within {} s; leaving it (it is a daemon)", t.getName(),
                        CLIENT_CLOSE_TIMEOUT.toSeconds());
            }
        }
    }

    private static Thread start(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private void startReporter() {
        reportWindow = stats.open();
        reporter = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "omb-progress");
            t.setDaemon(true);
            return t;
        });
        long every = options.reportInterval().toMillis();
        reporter.scheduleAtFixedRate(this::report, every, every, TimeUnit.MILLISECONDS);
    }

    private void stopReporter() {
        if (reporter == null) {
            return;
        }
        reporter.shutdownNow();
        try {
            reporter.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        reporter = null;
        stats.close(reportWindow);
    }

    /** Runs on omb-progress. */
    private void report() {
        Window w = reportWindow;
        reportWindow = stats.roll(w);
        double elapsed = (System.nanoTime() - phaseStartNanos) / 1e9;
        progress.println(new ProgressLine(phase, elapsed, w.publishRate(), w.publishMBps(), w.consumeRate(),
                w.consumeMBps(), backlogMsgs(), w.publishMs(50), w.publishMs(99), w.e2eMs(50), w.e2eMs(99),
                w.sendErrors).format());
    }

    private void enterPhase(String name) {
        phaseStartNanos = System.nanoTime();
        phase = name;
        log.info("phase {} of workload {}", name, workload.name());
    }

    /** Sleeps, waking early only to throw when the run is stopped. */
    private void sleepChecked(long nanos) throws InterruptedException {
        waitUntil(() -> false, nanos);
    }

    /**
     * Polls {@code done} every {@link #POLL_MILLIS} ms for up to {@code limitNanos}; true when it held. Throws
     * {@link InterruptedException} when the run is stopped.
     */
    private boolean waitUntil(BooleanSupplier done, long limitNanos) throws InterruptedException {
        long deadline = System.nanoTime() + limitNanos;
        while (true) {
            if (stopRequested) {
                throw new InterruptedException("run stopped");
            }
            if (done.getAsBoolean()) {
                return true;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            Thread.sleep(Math.min(POLL_MILLIS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left))));
        }
    }

    private static long minutes(double m) {
        return (long) (m * 60e9);
    }

    private static List<String> names(List<String> topics, List<Integer> indexes) {
        List<String> out = new ArrayList<>(indexes.size());
        for (int i : indexes) {
            out.add(topics.get(i));
        }
        return out;
    }

    /** The payload file's bytes, or messageSize random bytes (random so compression cannot shrink it). */
    private byte[] payload() {
        if (workload.payloadFile() == null) {
            byte[] b = new byte[workload.messageSize()];
            new Random().nextBytes(b);
            return b;
        }
        try {
            byte[] b = Files.readAllBytes(Path.of(workload.payloadFile()));
            if (b.length != workload.messageSize()) {
                log.warn("payload file {} has {} bytes, not messageSize {}; sending the file's bytes",
                        workload.payloadFile(), b.length, workload.messageSize());
            }
            return b;
        } catch (IOException e) {
            throw new ConfigFileException("workload field 'payloadFile': cannot read " + workload.payloadFile()
                    + ": " + e.getMessage(), e);
        }
    }

    /** Lower-case letters, digits and single dashes; at most 40 characters. */
    static String slug(String name) {
        String s = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-+|-+$", "");
        if (s.length() > 40) {
            s = s.substring(0, 40).replaceAll("-+$", "");
        }
        return s.isEmpty() ? "workload" : s;
    }

    private static String randomId() {
        String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
        Random r = new Random();
        StringBuilder sb = new StringBuilder(6);
        for (int i = 0; i < 6; i++) {
            sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return sb.toString();
    }
}
