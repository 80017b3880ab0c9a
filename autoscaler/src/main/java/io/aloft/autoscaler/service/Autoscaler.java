package io.aloft.autoscaler.service;

import io.aloft.autoscaler.backend.KubernetesBackend;
import io.aloft.autoscaler.backend.LocalBackend;
import io.aloft.autoscaler.backend.ScalingBackend;
import io.aloft.autoscaler.balance.Balancer;
import io.aloft.autoscaler.balance.Plan;
import io.aloft.autoscaler.collect.MetricsLocator;
import io.aloft.autoscaler.collect.SnapshotCollector;
import io.aloft.autoscaler.execute.ExecutionLimits;
import io.aloft.autoscaler.execute.ExecutionResult;
import io.aloft.autoscaler.execute.ReassignmentExecutor;
import io.aloft.autoscaler.model.ClusterSnapshot;
import io.aloft.autoscaler.policy.BackendPolicy;
import io.aloft.autoscaler.policy.ExecutionPolicy;
import io.aloft.autoscaler.policy.MetricsPolicy;
import io.aloft.autoscaler.policy.Policy;
import io.aloft.autoscaler.scaling.Decision;
import io.aloft.autoscaler.scaling.ScalingDecider;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * One autoscaler for one cluster, put together from a {@link Policy}: the Admin client, the
 * snapshot collector, the scaling decider, the balancer, the reassignment executor, the backend
 * and the control loop. {@link #run} is the service; {@link #plan} the {@code plan} command.
 *
 * <p>Owned by one thread (the one that runs it); {@link #close} from that thread after {@link #run} returns.
 */
public final class Autoscaler implements AutoCloseable {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Autoscaler.class);
    /** How long a started broker may take to register before the loop stops waiting for it. */
    static final Duration BROKER_START_TIMEOUT = Duration.ofSeconds(120);
    /** Evaluations without balancing after moves (rates measured across a move describe no placement). */
    static final int SETTLE_EVALUATIONS = 1;

    private final Policy policy;
    private final Admin admin;
    private final SnapshotCollector collector;
    private final Balancer balancer;
    private final ReassignmentExecutor executor;
    private final ScalingBackend backend;
    private final ControlLoop loop;

    private Autoscaler(Policy policy, Admin admin, ScalingBackend backend, AutoscalerMetrics metrics,
            boolean dryRun, Consumer<String> planPrinter) {
        this.policy = policy;
        this.admin = admin;
        MetricsPolicy m = policy.metrics();
        MetricsLocator locator = m.discovery() == MetricsPolicy.Discovery.URL_TEMPLATE
                ? MetricsLocator.fromTemplate(m.urlTemplate().orElse(MetricsLocator.DEFAULT_TEMPLATE))
                : MetricsLocator.fromBrokerConfigs(admin, m.urlTemplate().orElse(MetricsLocator.DEFAULT_TEMPLATE));
        // Rates over at least half an interval, at most 5 s: a short interval still sees its load.
        Duration window = policy.interval().dividedBy(2).compareTo(SnapshotCollector.DEFAULT_MIN_WINDOW) < 0
                ? policy.interval().dividedBy(2) : SnapshotCollector.DEFAULT_MIN_WINDOW;
        this.collector = new SnapshotCollector(admin, locator, window.isZero() ? Duration.ofMillis(500) : window);
        this.balancer = new Balancer(policy.balancing().toBalancerConfig());
        this.executor = new ReassignmentExecutor(admin, limits(policy.execution()), planPrinter);
        this.backend = backend;
        ScalingDecider decider = new ScalingDecider(policy);
        ControlLoop.Decider loopDecider = new ControlLoop.Decider() {
            @Override
            public Decision decide(ClusterSnapshot snapshot, int currentBrokers, int voterFloor, Instant now) {
                return decider.decide(snapshot, currentBrokers, voterFloor, now);
            }

            @Override
            public void scaled(Decision done, Instant at) {
                decider.scaled(done, at);
            }
        };
        boolean dry = dryRun || policy.balancing().dryRun();
        this.loop = new ControlLoop(collector::sample, loopDecider, balancer::plan, this::execute, backend,
                this::registered, new ControlLoop.Settings(policy.interval(), policy.balancing().enabled(), dry,
                        SETTLE_EVALUATIONS, BROKER_START_TIMEOUT), metrics, Clock.systemUTC());
    }

    /**
     * An autoscaler for the cluster at {@code bootstrap}.
     *
     * @param adminConfig extra Admin client settings (security, timeouts), may be empty
     * @param dryRun print plans and decisions, change nothing
     * @param planPrinter where dry-run plans go (the log, or stdout for the {@code plan} command)
     */
    public static Autoscaler create(Policy policy, String bootstrap, Map<String, Object> adminConfig,
            AutoscalerMetrics metrics, boolean dryRun, Consumer<String> planPrinter) throws IOException {
        return create(policy, bootstrap, adminConfig, metrics, dryRun, planPrinter, Map.of());
    }

    /**
     * As above, with variables for the local backend's script on top of this process's environment
     * (tests pass {@code ALOFT_CLASSPATH}: the classes new brokers run).
     */
    public static Autoscaler create(Policy policy, String bootstrap, Map<String, Object> adminConfig,
            AutoscalerMetrics metrics, boolean dryRun, Consumer<String> planPrinter, Map<String, String> localEnvironment)
            throws IOException {
        Map<String, Object> config = new HashMap<>(adminConfig);
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.putIfAbsent(AdminClientConfig.CLIENT_ID_CONFIG, "aloft-autoscaler");
        Admin admin = Admin.create(config);
        try {
            return new Autoscaler(policy, admin, backend(policy, admin, localEnvironment), metrics, dryRun,
                    planPrinter);
        } catch (IOException | RuntimeException e) {
            admin.close();
            throw e;
        }
    }

    /** The service: evaluates every interval until {@code stop} answers true. */
    public void run(BooleanSupplier stop) throws InterruptedException {
        loop.run(stop);
    }

    /** One evaluation (tests). */
    void evaluate() throws IOException, InterruptedException {
        loop.evaluate();
    }

    /** The balancing plan for the cluster now, draining {@code draining}; changes nothing. */
    public Plan plan(Set<Integer> draining) throws IOException, InterruptedException {
        return balancer.plan(collector.sample(), draining);
    }

    /** Prints {@code plan} as its batches would run (the executor's dry run). */
    public void print(Plan plan) throws InterruptedException {
        executor.execute(plan, true);
    }

    /**
     * Drains broker {@code id} now (an operator marking it for removal): its partitions move to the
     * other brokers by the balancer's drain goal, in the policy's batches, until a fresh snapshot
     * shows it serving nothing (at most {@code rounds} plans, as deferred moves wait for the next).
     * The broker keeps running; {@link #remove} also stops it.
     *
     * @return the partitions still on it (0: drained)
     */
    public int drain(int id, int rounds) throws IOException, InterruptedException {
        for (int round = 0; round < rounds; round++) {
            ClusterSnapshot snapshot = collector.sample();
            if (snapshot.broker(id).isEmpty()) {
                throw new IOException("broker " + id + " is not registered");
            }
            // Only the drain's moves: the other goals wait for the service's next evaluation.
            Plan all = balancer.plan(snapshot, Set.of(id));
            Plan plan = new Plan(all.moves().stream().filter(m -> m.fromBroker() == id).toList(), all.findings());
            if (plan.isEmpty()) {
                break;
            }
            plan.findings().forEach(f -> log.info("Drain: {}", f));
            executor.execute(plan, false);
        }
        return collector.sample().partitionsByBroker().getOrDefault(id, java.util.List.of()).size();
    }

    /**
     * Drains broker {@code id} and then removes it through the backend (which must allow it: the
     * local backend refuses voters, the Kubernetes one anything but the highest ordinal).
     *
     * @throws IOException if the drain leaves partitions on it (nothing is stopped then)
     */
    public void remove(int id) throws IOException, InterruptedException {
        if (backend.removalCandidate() != id) {
            throw new IOException("the " + backend.name() + " backend cannot remove broker " + id + " (it would remove "
                    + backend.removalCandidate() + "; voters and, on Kubernetes, all but the highest ordinal stay)");
        }
        int left = drain(id, 5);
        if (left > 0) {
            throw new IOException("broker " + id + " still serves " + left + " partitions; not removed");
        }
        backend.removeBroker(id);
        log.info("Broker {} drained and removed", id);
    }

    public Policy policy() {
        return policy;
    }

    private ControlLoop.Outcome execute(Plan plan, boolean dryRun) throws InterruptedException {
        ExecutionResult r = executor.execute(plan, dryRun);
        return new ControlLoop.Outcome(r.done().size(), r.failed().size(), r.deferred().size());
    }

    private boolean registered(int id) throws IOException, InterruptedException {
        try {
            return admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).stream().anyMatch(n -> n.id() == id);
        } catch (ExecutionException | TimeoutException e) {
            return false; // asked again until the start timeout
        }
    }

    /** The executor's limits for the policy's {@code execution} section. */
    public static ExecutionLimits limits(ExecutionPolicy e) {
        return new ExecutionLimits(e.maxConcurrentMovesPerBroker(), e.pauseBetweenBatches(), e.maxMovesPerRun(),
                e.moveTimeout());
    }

    private static ScalingBackend backend(Policy policy, Admin admin, Map<String, String> localEnvironment)
            throws IOException {
        if (policy.backend().isEmpty()) {
            return new AdminOnlyBackend(admin);
        }
        BackendPolicy b = policy.backend().get();
        if (b instanceof BackendPolicy.Local local) {
            return new LocalBackend(new LocalBackend.Config(local.clusterDir(), local.script(), localEnvironment,
                    LocalBackend.Config.DEFAULT_COMMAND_TIMEOUT));
        }
        BackendPolicy.Kubernetes k = (BackendPolicy.Kubernetes) b;
        KubernetesBackend.Config config = new KubernetesBackend.Config(k.namespace(), k.statefulSet(),
                k.nodeIdOffset(), KubernetesBackend.Config.DEFAULT_VOTERS);
        if (k.kubeconfig().isEmpty()) {
            return KubernetesBackend.connect(config);
        }
        Config client = Config.fromKubeconfig(Files.readString(k.kubeconfig().get()));
        return KubernetesBackend.connect(config, new KubernetesClientBuilder().withConfig(client).build());
    }

    @Override
    public void close() throws IOException {
        try {
            collector.close();
            backend.close();
        } finally {
            admin.close();
        }
    }
}
