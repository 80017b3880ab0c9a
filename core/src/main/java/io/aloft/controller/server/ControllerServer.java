package io.aloft.controller.server;

import io.aloft.controller.ControllerConfig;
import io.aloft.controller.ControllerException;
import io.aloft.controller.RaftSetup;
import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.codec.ControllerCodec;
import io.aloft.controller.codec.ControllerSchemas;
import io.aloft.controller.codec.SchemaRegistry;
import io.aloft.controller.command.FenceBroker;
import io.aloft.controller.command.ReportVoterFeatures;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.FeatureRange;
import io.aloft.controller.model.FeatureStatus;
import io.aloft.controller.model.VoterFeatures;
import io.aloft.controller.query.Queries;
import io.aloft.controller.state.ControllerSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One controller voter: a Ratis server with the controller state machine, listening on its
 * {@code controller.quorum.voters} address, plus the leader's broker liveness check. When it
 * starts, the voter reports the feature levels its build supports (a command, so the upgrade check
 * in the state knows every voter's range), unless its stored report already says so.
 *
 * <p>Lifecycle: {@link #start} returns once the server runs (a leader may not be elected yet);
 * {@link #close} stops it; {@link #failure} completes if the voter stopped itself. Thread-safe.
 */
public final class ControllerServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ControllerServer.class);

    /** Change-feed events a voter keeps for watchers that fall behind. */
    private static final int FEED_EVENTS = 10_000;
    /** The pause before the feature report is tried again (the quorum may have no leader yet). */
    private static final long REPORT_RETRY_MS = 1_000;

    /**
     * How a voter runs beyond its configuration.
     *
     * @param registry the record schemas and feature levels this voter supports (tests inject
     *     registries with versions production does not have)
     * @param reportFeatures whether it reports its supported feature levels when it starts (tests
     *     that compare a replayed state with a fixture turn it off: the report is a log entry)
     */
    public record Options(SchemaRegistry registry, boolean reportFeatures) {
        public static final Options DEFAULT = new Options(ControllerSchemas.REGISTRY, true);

        public Options {
            Objects.requireNonNull(registry, "registry");
        }
    }

    /** How long a stopping leader waits for another voter to take leadership over (see handOverLeadership). */
    static final long LEADERSHIP_TRANSFER_TIMEOUT_MS = 2_000;

    private final ControllerConfig config;
    private final RaftServer server;
    private final ControllerStateMachine stateMachine;
    private final BrokerLiveness liveness = new BrokerLiveness();
    /**
     * A leader that has not had an answer from a majority of the voters for this long may be cut
     * off (the followers elect another after 1-2 s): it fences no one meanwhile.
     */
    static final long MAJORITY_CONTACT_MS = 1_500;
    /** This leader was out of contact with a majority at its last liveness check (timer thread only). */
    private boolean outOfContact;
    /** How often the leader looks for brokers whose session lapsed. */
    private final long livenessPeriodMs;
    private final ScheduledExecutorService timer;
    private final ControllerClient client;
    private final Options options;
    private final Set<Integer> fencing = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private ControllerServer(ControllerConfig config, Options options) throws IOException {
        this.config = config;
        this.options = options;
        this.livenessPeriodMs = Math.max(50, Math.min(1_000, config.sessionTimeoutMs() / 4));
        ControllerConfig.Voter self = config.self();
        if (self == null) {
            throw new IllegalArgumentException(ControllerConfig.VOTERS_CONFIG + ": node " + config.nodeId()
                    + " is not a voter in " + config.voters());
        }
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "controller-timer-" + config.nodeId());
            t.setDaemon(true);
            return t;
        });
        this.stateMachine = new ControllerStateMachine(FEED_EVENTS, liveness, timer,
                new ControllerCodec(options.registry()));
        Path dir = config.dataDir().toAbsolutePath();
        Files.createDirectories(dir);
        RaftProperties props = RaftSetup.serverProperties(config, self);
        // A voter that has run before recovers its log; a new one formats its storage.
        boolean existing = Files.isDirectory(dir.resolve(RaftSetup.groupId().getUuid().toString()));
        DataDirFormat.check(dir, existing);
        this.server = RaftServer.newBuilder()
                .setServerId(RaftSetup.peerId(config.nodeId()))
                .setGroup(RaftSetup.group(config.voters()))
                .setProperties(props)
                .setStateMachine(stateMachine)
                .setOption(existing ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT)
                .build();
        this.client = ControllerClient.create(config, options.registry());
    }

    /** Starts a voter for {@code config.nodeId()}, which must be listed in the voters. */
    public static ControllerServer start(ControllerConfig config) throws IOException {
        return start(config, Options.DEFAULT);
    }

    /** {@link #start(ControllerConfig)} with options. */
    public static ControllerServer start(ControllerConfig config, Options options) throws IOException {
        ControllerServer s = new ControllerServer(config, options);
        s.server.start();
        s.timer.scheduleWithFixedDelay(s::fenceLapsedBrokers, s.livenessPeriodMs, s.livenessPeriodMs,
                TimeUnit.MILLISECONDS);
        if (options.reportFeatures()) {
            s.timer.execute(s::reportFeatures);
        }
        log.info("Controller voter {} started on {} (quorum {}, feature levels {})", config.nodeId(), config.self(),
                config.voters(), options.registry().supported());
        return s;
    }

    /** Reports this build's feature levels, unless the state has them already; retried until it succeeds. */
    private void reportFeatures() {
        FeatureRange supported = options.registry().supported();
        VoterFeatures mine = new VoterFeatures(config.nodeId(), supported);
        client.query(new Queries.DescribeFeatures(), FeatureStatus.class)
                .thenCompose(status -> status.voters().contains(mine) ? CompletableFuture.completedFuture(null)
                        : client.submit(new ReportVoterFeatures(config.nodeId(), supported,
                                config.voters().stream().map(v -> v.id()).toList())).thenApply(r -> {
                            log.info("Controller voter {} reported feature levels {}", config.nodeId(), supported);
                            return null;
                        }))
                .whenComplete((v, error) -> {
                    Throwable cause = error instanceof CompletionException && error.getCause() != null
                            ? error.getCause() : error;
                    if (cause == null || closed) {
                        return;
                    }
                    if (cause instanceof ControllerException ce
                            && ce.code() == ControllerException.Code.UNSUPPORTED_FEATURE_LEVEL) {
                        // The state machine stops this voter too, when it applies the level it cannot read.
                        log.error("Controller voter {} cannot follow the cluster: {}", config.nodeId(),
                                ce.getMessage());
                        return;
                    }
                    log.warn("Controller voter {} could not report its feature levels yet ({}); retrying",
                            config.nodeId(), cause.toString());
                    try {
                        timer.schedule(this::reportFeatures, REPORT_RETRY_MS, TimeUnit.MILLISECONDS);
                    } catch (RejectedExecutionException closing) {
                        // closed meanwhile: nothing left to report to
                    }
                });
    }

    private void fenceLapsedBrokers() {
        try {
            long late = Math.max(3 * livenessPeriodMs, MAJORITY_CONTACT_MS);
            if (liveness.checkedLate(System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(late))) {
                if (isLeader()) {
                    log.warn("Controller {}'s liveness check ran more than {} ms late (the process was paused or "
                            + "starved): no broker is fenced now, and every broker gets a full session", config.nodeId(),
                            late);
                }
                return;
            }
            if (!isLeader()) {
                return;
            }
            if (!inContactWithMajority()) {
                // Cut off from the other voters: no heartbeat can be applied, so every broker looks
                // silent, and a fence written now would take effect once they are back (this log is
                // then the longest): fence no one, and give every broker a full session from the
                // moment contact returns.
                if (!outOfContact) {
                    outOfContact = true;
                    log.warn("Controller leader {} has not heard from a majority of the voters for {} ms: no "
                            + "broker is fenced until it does", config.nodeId(), MAJORITY_CONTACT_MS);
                }
                return;
            }
            if (outOfContact) {
                outOfContact = false;
                liveness.becameLeader();
                log.info("Controller leader {} hears from a majority again: every broker gets a full session",
                        config.nodeId());
                return;
            }
            List<BrokerInfo> brokers = stateMachine.read(s -> s.brokers());
            for (BrokerInfo b : liveness.lapsed(brokers, TimeUnit.MILLISECONDS.toNanos(config.sessionTimeoutMs()))) {
                if (fencing.add(b.brokerId())) {
                    log.info("Fencing broker {} (epoch {}): no heartbeat for {} ms", b.brokerId(), b.brokerEpoch(),
                            config.sessionTimeoutMs());
                    client.submit(new FenceBroker(b.brokerId(), b.brokerEpoch()))
                            .whenComplete((r, e) -> fencing.remove(b.brokerId()));
                }
            }
        } catch (RuntimeException | IOException e) {
            log.warn("Broker liveness check failed", e);
        }
    }

    /**
     * A leader that stops gracefully hands leadership to another voter first (Raft's leadership
     * transfer), so the quorum has a leader again at once: otherwise the others notice only after
     * an election timeout, while every broker's requests go to a voter that is gone (a broker
     * drained on SIGTERM is often the leader of its cluster's quorum). Best effort, bounded by
     * {@link #LEADERSHIP_TRANSFER_TIMEOUT_MS}; should no voter take over, they elect one as usual.
     */
    private void handOverLeadership() {
        try {
            if (!isLeader()) {
                return;
            }
            RaftPeerId self = RaftSetup.peerId(config.nodeId());
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LEADERSHIP_TRANSFER_TIMEOUT_MS);
            for (ControllerConfig.Voter v : config.voters()) {
                if (v.id() == config.nodeId() || System.nanoTime() > deadline) {
                    continue;
                }
                try (RaftClient admin = RaftClient.newBuilder().setProperties(RaftSetup.baseProperties())
                        .setRaftGroup(RaftSetup.group(config.voters())).setLeaderId(self).build()) {
                    RaftClientReply reply = admin.admin().transferLeadership(RaftSetup.peerId(v.id()),
                            LEADERSHIP_TRANSFER_TIMEOUT_MS);
                    if (reply.isSuccess()) {
                        log.info("Controller voter {} handed leadership to voter {} before stopping", config.nodeId(),
                                v.id());
                        return;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            log.info("Controller voter {} could not hand its leadership over before stopping ({}); the others elect "
                    + "a leader", config.nodeId(), e.toString());
        }
    }

    /**
     * Whether this leader got an answer from a majority of the voters (itself included) within
     * {@link #MAJORITY_CONTACT_MS}: Ratis reports, per follower, the time since its last answer.
     */
    private boolean inContactWithMajority() throws IOException {
        RaftProtos.RoleInfoProto role = server.getDivision(RaftSetup.groupId()).getInfo().getRoleInfoProto();
        if (!role.hasLeaderInfo()) {
            return false;
        }
        return majorityAnswered(config.voters().size(), role.getLeaderInfo().getFollowerInfoList().stream()
                .map(RaftProtos.ServerRpcProto::getLastRpcElapsedTimeMs).toList(), MAJORITY_CONTACT_MS);
    }

    /**
     * Whether the leader and the followers that answered within {@code withinMs} (each follower's
     * time since its last answer given) make a majority of {@code voters}.
     */
    static boolean majorityAnswered(int voters, List<Long> followerElapsedMs, long withinMs) {
        long answered = 1 + followerElapsedMs.stream().filter(ms -> ms <= withinMs).count();
        return answered > voters / 2;
    }

    /** Whether this voter is the leader right now and ready to serve (it has committed an entry of its term). */
    public boolean isLeader() throws IOException {
        return server.getDivision(RaftSetup.groupId()).getInfo().isLeaderReady();
    }

    public int nodeId() {
        return config.nodeId();
    }

    /** Registers this voter's quorum meters ({@link ControllerMeters}) on {@code registry}. */
    public void bindMeters(io.micrometer.core.instrument.MeterRegistry registry) {
        ControllerMeters.bind(registry, server, stateMachine, config.nodeId());
    }

    /** The index of the last log entry this voter applied. */
    public long lastAppliedIndex() {
        return stateMachine.getLastAppliedTermIndex().getIndex();
    }

    /**
     * Completes with the reason if this voter stopped itself: the cluster's finalized feature level
     * left the range its build supports. Never completes otherwise.
     */
    public CompletableFuture<Throwable> failure() {
        return stateMachine.fatal();
    }

    /** The codec this voter reads and writes with. */
    public ControllerCodec codec() {
        return stateMachine.codec();
    }

    /** A copy of this voter's applied state (tests compare voters with {@link ControllerSnapshot#dump()}). */
    public ControllerSnapshot state() {
        return stateMachine.snapshotOfState();
    }

    /** Takes a snapshot now (tests and tools); returns its index. */
    public long takeSnapshot() throws IOException {
        try (RaftClient admin = RaftClient.newBuilder().setProperties(RaftSetup.baseProperties())
                .setRaftGroup(RaftSetup.group(config.voters())).build()) {
            RaftClientReply reply = admin.getSnapshotManagementApi(RaftSetup.peerId(config.nodeId()))
                    .create(true, config.requestTimeoutMs());
            if (!reply.isSuccess()) {
                throw new IOException("snapshot of voter " + config.nodeId() + " failed: " + reply.getException());
            }
            return reply.getLogIndex();
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        handOverLeadership();
        timer.shutdownNow();
        try {
            client.close();
        } finally {
            server.close();
        }
    }
}
