package io.aloft.controller.server;

import io.aloft.controller.ControllerConfig;
import io.aloft.controller.RaftSetup;
import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.command.FenceBroker;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.state.ControllerSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One controller voter: a Ratis server with the controller state machine, listening on its
 * {@code controller.quorum.voters} address, plus the leader's broker liveness check.
 *
 * <p>Lifecycle: {@link #start} returns once the server runs (a leader may not be elected yet);
 * {@link #close} stops it. Thread-safe.
 */
public final class ControllerServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ControllerServer.class);

    /** Change-feed events a voter keeps for watchers that fall behind. */
    private static final int FEED_EVENTS = 10_000;

    private final ControllerConfig config;
    private final RaftServer server;
    private final ControllerStateMachine stateMachine;
    private final BrokerLiveness liveness = new BrokerLiveness();
    private final ScheduledExecutorService timer;
    private final ControllerClient fencingClient;
    private final Set<Integer> fencing = ConcurrentHashMap.newKeySet();

    private ControllerServer(ControllerConfig config) throws IOException {
        this.config = config;
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
        this.stateMachine = new ControllerStateMachine(FEED_EVENTS, liveness, timer);
        Path dir = config.dataDir().toAbsolutePath();
        Files.createDirectories(dir);
        RaftProperties props = RaftSetup.serverProperties(config, self);
        // A voter that has run before recovers its log; a new one formats its storage.
        boolean existing = Files.isDirectory(dir.resolve(RaftSetup.groupId().getUuid().toString()));
        this.server = RaftServer.newBuilder()
                .setServerId(RaftSetup.peerId(config.nodeId()))
                .setGroup(RaftSetup.group(config.voters()))
                .setProperties(props)
                .setStateMachine(stateMachine)
                .setOption(existing ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT)
                .build();
        this.fencingClient = ControllerClient.create(config);
    }

    /** Starts a voter for {@code config.nodeId()}, which must be listed in the voters. */
    public static ControllerServer start(ControllerConfig config) throws IOException {
        ControllerServer s = new ControllerServer(config);
        s.server.start();
        long period = Math.max(50, Math.min(1_000, config.sessionTimeoutMs() / 4));
        s.timer.scheduleWithFixedDelay(s::fenceLapsedBrokers, period, period, TimeUnit.MILLISECONDS);
        log.info("Controller voter {} started on {} (quorum {})", config.nodeId(), config.self(), config.voters());
        return s;
    }

    private void fenceLapsedBrokers() {
        try {
            if (!isLeader()) {
                return;
            }
            List<BrokerInfo> brokers = stateMachine.read(s -> s.brokers());
            for (BrokerInfo b : liveness.lapsed(brokers, TimeUnit.MILLISECONDS.toNanos(config.sessionTimeoutMs()))) {
                if (fencing.add(b.brokerId())) {
                    log.info("Fencing broker {} (epoch {}): no heartbeat for {} ms", b.brokerId(), b.brokerEpoch(),
                            config.sessionTimeoutMs());
                    fencingClient.submit(new FenceBroker(b.brokerId(), b.brokerEpoch()))
                            .whenComplete((r, e) -> fencing.remove(b.brokerId()));
                }
            }
        } catch (RuntimeException | IOException e) {
            log.warn("Broker liveness check failed", e);
        }
    }

    /** Whether this voter is the leader right now and ready to serve (it has committed an entry of its term). */
    public boolean isLeader() throws IOException {
        return server.getDivision(RaftSetup.groupId()).getInfo().isLeaderReady();
    }

    public int nodeId() {
        return config.nodeId();
    }

    /** The index of the last log entry this voter applied. */
    public long lastAppliedIndex() {
        return stateMachine.getLastAppliedTermIndex().getIndex();
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
        timer.shutdownNow();
        try {
            fencingClient.close();
        } finally {
            server.close();
        }
    }
}
