package io.aloft.controller.server;

import io.aloft.controller.codec.Codecs;
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
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
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
 * <p>Threads: Ratis applies entries and takes snapshots on one thread; queries arrive on others
 * and read under the read lock. The lifecycle moves through pause/reinitialize when the leader
 * installs a snapshot on a follower that fell behind a purged log (BaseStateMachine does not do it
 * itself, and a follower left RUNNING through a snapshot install fails an assertion and stops).
 */
final class ControllerStateMachine extends BaseStateMachine {
    private static final Logger log = LoggerFactory.getLogger(ControllerStateMachine.class);

    /** Snapshot file content starts with this, then a format version, then the encoded state. */
    private static final byte[] SNAPSHOT_MAGIC = {'A', 'L', 'F', 'T', 'S', 'N', 'A', 'P'};
    private static final byte SNAPSHOT_VERSION = 1;

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
    private volatile RaftPeerId leaderId;
    // Guarded by lock (written on the apply thread only).
    private ControllerState state = new ControllerState();

    ControllerStateMachine(int feedEvents, BrokerLiveness liveness, ScheduledExecutorService timer) {
        this.feed = new ChangeFeed(feedEvents);
        this.liveness = liveness;
        this.timer = timer;
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
        Reply reply;
        List<MetadataEvent> events = new ArrayList<>();
        List<Object> heard = new ArrayList<>();
        lock.writeLock().lock();
        try {
            Object decoded;
            try {
                decoded = Codecs.CODEC.decode(entry.getStateMachineLogEntry().getLogData().toByteArray());
            } catch (MalformedDataException e) {
                // Clients encode with the same codec, so this is a bug or a newer client: reject, never half-apply.
                decoded = e;
            }
            if (decoded instanceof Request request) {
                reply = applyOne(index, request, events, heard);
            } else if (decoded instanceof RequestBatch batch) {
                List<Reply> replies = new ArrayList<>(batch.requests().size());
                for (Request request : batch.requests()) {
                    replies.add(applyOne(index, request, events, heard));
                }
                reply = Reply.of(replies);
            } else {
                reply = Reply.failed(new Failure(Failure.CONTROLLER, "INVALID_REQUEST", "undecodable command: "
                        + (decoded instanceof MalformedDataException e ? e.getMessage() : "not a request")));
            }
            updateLastAppliedTermIndex(entry.getTerm(), index);
        } finally {
            lock.writeLock().unlock();
        }
        for (Object command : heard) {
            if (command instanceof RegisterBroker c) {
                liveness.heard(c.brokerId());
            } else if (command instanceof BrokerHeartbeat c) {
                liveness.heard(c.brokerId());
            }
        }
        feed.publish(events);
        return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(Codecs.CODEC.encode(reply))));
    }

    private Reply applyOne(long index, Request request, List<MetadataEvent> events, List<Object> heard) {
        Reply reply = state.apply(index, request, events::add);
        if (reply.failure() == null) {
            heard.add(request.command());
        }
        return reply;
    }

    // ---- queries ----

    @Override
    public CompletableFuture<Message> query(Message request) {
        Object query;
        try {
            query = Codecs.CODEC.decode(request.getContent().toByteArray());
        } catch (MalformedDataException e) {
            return reply(Reply.failed(new Failure(Failure.CONTROLLER, "INVALID_REQUEST", "undecodable query: "
                    + e.getMessage())));
        }
        if (query instanceof Queries.Watch w) {
            return watch(w);
        }
        lock.readLock().lock();
        try {
            return reply(state.query(query, getLastAppliedTermIndex().getIndex()));
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
                return Message.valueOf(ByteString.copyFrom(Codecs.CODEC.encode(Reply.of(result))));
            } finally {
                lock.readLock().unlock();
            }
        });
    }

    private static CompletableFuture<Message> reply(Reply reply) {
        return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(Codecs.CODEC.encode(reply))));
    }

    // ---- snapshots ----

    @Override
    public long takeSnapshot() throws IOException {
        ControllerSnapshot snapshot;
        TermIndex last;
        lock.readLock().lock();
        try {
            last = getLastAppliedTermIndex();
            snapshot = state.snapshot();
        } finally {
            lock.readLock().unlock();
        }
        if (last == null || last.getIndex() < 0) {
            return -1;
        }
        File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
        Path tmp = file.toPath().resolveSibling(file.getName() + ".tmp");
        byte[] body = Codecs.CODEC.encode(snapshot);
        try (OutputStream out = Files.newOutputStream(tmp, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE, StandardOpenOption.SYNC)) {
            out.write(SNAPSHOT_MAGIC);
            out.write(SNAPSHOT_VERSION);
            out.write(body);
        }
        Files.move(tmp, file.toPath(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
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
        byte[] bytes = Files.readAllBytes(file.toPath());
        if (bytes.length < SNAPSHOT_MAGIC.length + 1
                || !java.util.Arrays.equals(bytes, 0, SNAPSHOT_MAGIC.length, SNAPSHOT_MAGIC, 0, SNAPSHOT_MAGIC.length)) {
            throw new IOException("snapshot " + file + " is not an Aloft controller snapshot");
        }
        if (bytes[SNAPSHOT_MAGIC.length] != SNAPSHOT_VERSION) {
            throw new IOException("snapshot " + file + " has format version " + bytes[SNAPSHOT_MAGIC.length]
                    + "; this build reads " + SNAPSHOT_VERSION);
        }
        ControllerSnapshot loaded;
        try {
            loaded = Codecs.CODEC.decode(java.util.Arrays.copyOfRange(bytes, SNAPSHOT_MAGIC.length + 1, bytes.length),
                    ControllerSnapshot.class);
        } catch (MalformedDataException e) {
            throw new IOException("snapshot " + file + " does not decode: " + e.getMessage(), e);
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
        log.info("Loaded snapshot at index {} ({} bytes)", snapshot.getIndex(), bytes.length);
    }

    // ---- leadership ----

    @Override
    public void notifyLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
        leaderId = newLeaderId;
        if (newLeaderId != null && newLeaderId.equals(groupMemberId.getPeerId())) {
            liveness.becameLeader();
        }
    }

    RaftPeerId leaderId() {
        return leaderId;
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
