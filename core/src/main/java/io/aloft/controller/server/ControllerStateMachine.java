package io.aloft.controller.server;

import io.aloft.controller.RaftSetup;
import io.aloft.controller.ControllerException;
import io.aloft.controller.codec.ControllerCodec;
import io.aloft.controller.codec.MalformedDataException;
import io.aloft.controller.command.BrokerHeartbeat;
import io.aloft.controller.command.Failure;
import io.aloft.controller.command.RegisterBroker;
import io.aloft.controller.command.Reply;
import io.aloft.controller.command.Request;
import io.aloft.controller.command.RequestBatch;
import io.aloft.controller.model.MetadataEvent;
import io.aloft.controller.model.WatchResult;
import io.aloft.controller.query.Queries;
import io.aloft.controller.state.ControllerSnapshot;
import io.aloft.controller.state.ControllerState;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.StaleReadException;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the replicated log to a {@link ControllerState}, answers queries from it, writes and
 * loads snapshots, and feeds watchers.
 *
 * <p>Feature levels: an entry whose frame declares a feature level above the state's finalized
 * level is refused before it is decoded, identically on every voter whatever its build (a voter of
 * the previous build could not decode it). Replies, query answers and snapshots are written at the
 * finalized level. When the finalized level leaves the range this build supports (an upgrade this
 * voter was not asked about, or a binary downgrade), the voter stops: applying entries it cannot
 * read would make it diverge from the others.
 *
 * <p>Threads: Ratis applies entries and takes snapshots on one thread; queries arrive on others
 * and read under the read lock. The lifecycle moves through pause/reinitialize when the leader
 * installs a snapshot on a follower that fell behind a purged log (BaseStateMachine does not do it
 * itself, and a follower left RUNNING through a snapshot install fails an assertion and stops).
 */
final class ControllerStateMachine extends BaseStateMachine {
    private static final Logger log = LoggerFactory.getLogger(ControllerStateMachine.class);

    /**
     * How long a watch may wait for changes: not at all. Ratis's netty server handles each request
     * on one of its few I/O threads and blocks that thread until the reply is ready, so a parked
     * watch stalled every connection sharing the thread (writes were measured waiting 3 to 10 s
     * behind 3 s watches). Watchers poll instead.
     */
    static final long MAX_WATCH_WAIT_MS = 0;

    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final ReadWriteLock lock = new ReentrantReadWriteLock();
    private final ChangeFeed feed;
    private final BrokerLiveness liveness;
    private final ScheduledExecutorService timer;
    private final ControllerCodec codec;
    /** Completes when this voter stopped itself (it cannot follow the cluster's feature level). */
    private final CompletableFuture<Throwable> fatal = new CompletableFuture<>();
    private volatile RaftPeerId leaderId;
    // Guarded by lock (written on the apply thread only).
    private ControllerState state = new ControllerState();

    ControllerStateMachine(int feedEvents, BrokerLiveness liveness, ScheduledExecutorService timer,
            ControllerCodec codec) {
        this.feed = new ChangeFeed(feedEvents);
        this.liveness = liveness;
        this.timer = timer;
        this.codec = codec;
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        super.initialize(server, groupId, raftStorage);
        storage.init(raftStorage);
        getLifeCycle().startAndTransition(() -> loadSnapshot(storage.loadLatestSnapshot()));
    }

    @Override
    public void pause() {
        getLifeCycle().transition(LifeCycle.State.PAUSING);
        getLifeCycle().transition(LifeCycle.State.PAUSED);
    }

    @Override
    public void reinitialize() throws IOException {
        loadSnapshot(storage.loadLatestSnapshot());
        getLifeCycle().transition(LifeCycle.State.STARTING);
        getLifeCycle().transition(LifeCycle.State.RUNNING);
    }

    @Override
    public SimpleStateMachineStorage getStateMachineStorage() {
        return storage;
    }

    // ---- commands ----

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        long index = entry.getIndex();
        byte[] data = entry.getStateMachineLogEntry().getLogData().toByteArray();
        Reply reply;
        int level;
        List<MetadataEvent> events = new ArrayList<>();
        List<Object> heard = new ArrayList<>();
        lock.writeLock().lock();
        try {
            reply = applyEntry(index, data, events, heard);
            updateLastAppliedTermIndex(entry.getTerm(), index);
            level = state.finalizedFeatureLevel();
            // Before the new state is visible: the leader's liveness check reads the brokers, then
            // their last heartbeat. A registration seen before it was counted as heard looked as
            // silent as the dead incarnation it replaces, and the new run was fenced as it registered.
            for (Object command : heard) {
                if (command instanceof RegisterBroker c) {
                    liveness.heard(c.brokerId());
                } else if (command instanceof BrokerHeartbeat c) {
                    liveness.heard(c.brokerId());
                }
            }
        } finally {
            lock.writeLock().unlock();
        }
        if (!codec.registry().supported().contains(level)) {
            // Thrown on the apply thread, Ratis stops this voter (the others carry on).
            String message = "log index " + index + " made the cluster's finalized feature level " + level
                    + "; this voter's build supports " + codec.registry().supported()
                    + ": stopping it, run a build that supports the level";
            log.error(message);
            IllegalStateException failure = new IllegalStateException(message);
            fatal.complete(failure);
            throw failure;
        }
        feed.publish(events);
        return CompletableFuture.completedFuture(message(reply, level));
    }

    /** Checks the entry's feature level, decodes and applies it; never throws for bad input. */
    private Reply applyEntry(long index, byte[] data, List<MetadataEvent> events, List<Object> heard) {
        ControllerCodec.Header header;
        Object decoded;
        try {
            header = codec.header(data);
            int finalized = state.finalizedFeatureLevel();
            if (header.level() > finalized) {
                // Decided on the header alone, so voters that cannot decode the entry decide the same.
                return Reply.failed(new Failure(Failure.CONTROLLER,
                        ControllerException.Code.FEATURE_LEVEL_NOT_FINALIZED.name(), "the entry holds records of "
                                + "feature level " + header.level() + "; the cluster's finalized level is "
                                + finalized));
            }
            decoded = codec.decode(data).value();
        } catch (MalformedDataException e) {
            // Not a request of a client of this format: reject it, never half-apply.
            return invalid("undecodable command: " + e.getMessage());
        }
        if (decoded instanceof Request request) {
            return applyOne(index, request, events, heard);
        } else if (decoded instanceof RequestBatch batch) {
            List<Reply> replies = new ArrayList<>(batch.requests().size());
            for (Request request : batch.requests()) {
                replies.add(applyOne(index, request, events, heard));
            }
            return Reply.of(replies);
        }
        return invalid("not a request: " + (decoded == null ? "null" : decoded.getClass().getSimpleName()));
    }

    private static Reply invalid(String message) {
        return Reply.failed(new Failure(Failure.CONTROLLER, ControllerException.Code.INVALID_REQUEST.name(), message));
    }

    /** A reply frame at {@code level}; a reply that cannot be encoded (a bug) becomes a failure reply. */
    private Message message(Reply reply, int level) {
        byte[] bytes;
        try {
            bytes = codec.encode(reply, level, level);
        } catch (IllegalArgumentException e) {
            log.error("A reply is not encodable at feature level {}: {}", level, reply, e);
            bytes = codec.encode(invalid("the reply is not encodable: " + e.getMessage()), level, level);
        }
        return Message.valueOf(ByteString.copyFrom(bytes));
    }

    private Reply applyOne(long index, Request request, List<MetadataEvent> events, List<Object> heard) {
        Reply reply = state.apply(index, request, events::add);
        if (reply.failure() == null) {
            heard.add(request.command());
        }
        return reply;
    }

    // ---- queries ----

    /**
     * A stale read (ControllerClient's reads, with the index of what its broker has seen) is
     * answered at once: by this voter once it has applied {@code minIndex}, else refused with
     * StaleReadException, which the client retries (elsewhere, or a moment later). Ratis's own
     * version waits for the index on the netty I/O thread that received the read, and in Ratis
     * 3.3.0 that wait ends only when an entry without a state-machine command is applied (its
     * waiters are woken when the applied index is set again unchanged): a restarted voter behind
     * the leader kept the thread, and with it the leader's appendEntries pinned to that thread,
     * forever, so it never caught up and a second voter's loss stalled the quorum for minutes.
     */
    @Override
    public CompletableFuture<Message> queryStale(Message request, long minIndex) {
        TermIndex last = getLastAppliedTermIndex();
        long applied = last == null ? -1 : last.getIndex();
        if (applied < minIndex) {
            return CompletableFuture.failedFuture(new StateMachineException("Voter " + getId() + " has applied index "
                    + applied + ", not yet " + minIndex + ": " + new StaleReadException("ask again or elsewhere")));
        }
        return query(request);
    }

    @Override
    public CompletableFuture<Message> query(Message request) {
        Object query;
        try {
            query = codec.decode(request.getContent().toByteArray()).value();
        } catch (MalformedDataException e) {
            return reply(invalid("undecodable query: " + e.getMessage()));
        }
        if (query instanceof Queries.Watch w) {
            return watch(w);
        }
        lock.readLock().lock();
        try {
            return CompletableFuture.completedFuture(message(state.query(query, getLastAppliedTermIndex().getIndex()),
                    state.finalizedFeatureLevel()));
        } finally {
            lock.readLock().unlock();
        }
    }

    private CompletableFuture<Message> watch(Queries.Watch w) {
        long maxWaitMs = Math.max(0, Math.min(w.maxWaitMs(), MAX_WATCH_WAIT_MS));
        CompletableFuture<ChangeFeed.Poll> poll = feed.watch(w.fromIndex());
        if (!poll.isDone()) {
            // An empty answer (at once, or after the wait); the watcher just asks again.
            ChangeFeed.Poll empty = new ChangeFeed.Poll(false, List.of());
            if (maxWaitMs == 0) {
                poll.complete(empty);
            } else {
                timer.schedule(() -> poll.complete(empty), maxWaitMs, TimeUnit.MILLISECONDS);
            }
        }
        return poll.thenApply(p -> {
            lock.readLock().lock();
            try {
                long applied = getLastAppliedTermIndex().getIndex();
                WatchResult result;
                if (p.needsImage()) {
                    result = new WatchResult(state.image(applied), List.of(), applied + 1);
                } else {
                    long next = p.events().isEmpty() ? Math.max(w.fromIndex(), 0)
                            : p.events().get(p.events().size() - 1).index() + 1;
                    result = new WatchResult(null, p.events(), next);
                }
                return message(Reply.of(result), state.finalizedFeatureLevel());
            } finally {
                lock.readLock().unlock();
            }
        });
    }

    private CompletableFuture<Message> reply(Reply reply) {
        int level;
        lock.readLock().lock();
        try {
            level = state.finalizedFeatureLevel();
        } finally {
            lock.readLock().unlock();
        }
        return CompletableFuture.completedFuture(message(reply, level));
    }

    // ---- snapshots ----

    @Override
    public long takeSnapshot() throws IOException {
        ControllerSnapshot snapshot;
        TermIndex last;
        int level;
        lock.readLock().lock();
        try {
            last = getLastAppliedTermIndex();
            snapshot = state.snapshot();
            level = state.finalizedFeatureLevel();
        } finally {
            lock.readLock().unlock();
        }
        if (last == null || last.getIndex() < 0) {
            return -1;
        }
        File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
        SnapshotFile.write(file.toPath(), codec, snapshot, level);
        MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), last));
        log.info("Snapshot at index {} (term {}): {} bytes", last.getIndex(), last.getTerm(), file.length());
        return last.getIndex();
    }

    private void loadSnapshot(SingleFileSnapshotInfo snapshot) throws IOException {
        if (snapshot == null) {
            return;
        }
        File file = snapshot.getFile().getPath().toFile();
        MD5Hash stored = MD5FileUtil.readStoredMd5ForFile(file);
        if (stored != null && !stored.equals(MD5FileUtil.computeMd5ForFile(file))) {
            throw new IOException("snapshot " + file + " does not match its MD5 file: corrupted");
        }
        ControllerSnapshot loaded = SnapshotFile.read(file.toPath(), codec);
        if (!codec.registry().supported().contains(loaded.finalizedFeatureLevel())) {
            throw new IOException("snapshot " + file + " is of a cluster at feature level "
                    + loaded.finalizedFeatureLevel() + "; this build supports " + codec.registry().supported()
                    + ": run a build that supports the level");
        }
        ControllerState restored = new ControllerState();
        restored.restore(loaded);
        lock.writeLock().lock();
        try {
            state = restored;
            setLastAppliedTermIndex(snapshot.getTermIndex());
        } finally {
            lock.writeLock().unlock();
        }
        feed.reset(snapshot.getIndex());
        log.info("Loaded snapshot at index {} ({} bytes)", snapshot.getIndex(), file.length());
    }

    // ---- leadership ----

    @Override
    public void notifyLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
        RaftPeerId previous = leaderId;
        leaderId = newLeaderId;
        // One line per change, on every voter: when the quorum moved and who leads it now.
        log.info("Controller voter {}: leader {} -> {}", RaftSetup.nodeId(groupMemberId.getPeerId()),
                previous == null ? "none" : RaftSetup.nodeId(previous),
                newLeaderId == null ? "none" : RaftSetup.nodeId(newLeaderId));
        if (newLeaderId != null && newLeaderId.equals(groupMemberId.getPeerId())) {
            liveness.becameLeader();
        }
    }

    RaftPeerId leaderId() {
        return leaderId;
    }

    /** Completes with the reason when this voter stopped itself (see the class comment on feature levels). */
    CompletableFuture<Throwable> fatal() {
        return fatal;
    }

    ControllerCodec codec() {
        return codec;
    }

    /** A copy of the applied state (tests and tools). */
    ControllerSnapshot snapshotOfState() {
        lock.readLock().lock();
        try {
            return state.snapshot();
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Runs {@code reader} on the applied state under the read lock. */
    <T> T read(java.util.function.Function<ControllerState, T> reader) {
        lock.readLock().lock();
        try {
            return reader.apply(state);
        } finally {
            lock.readLock().unlock();
        }
    }
}
