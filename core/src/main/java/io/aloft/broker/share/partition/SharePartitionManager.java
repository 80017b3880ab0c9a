package io.aloft.broker.share.partition;

import io.aloft.broker.coordinator.CoordinatorTimer;
import io.aloft.broker.log.PartitionErrors;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.share.ShareGroupSettingsSource;
import io.aloft.broker.share.state.SharePartitionKey;
import io.aloft.broker.share.state.ShareStatePersister;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * The share partitions of this broker ({@link SharePartitions}): one {@link SharePartition} per
 * share group and topic partition this broker leads, made on first use from the partition's log
 * ({@link ShareLogLookup}), the group's settings and the durable state, and dropped when it closes:
 * when its log closes or fails (leadership moved; the share partition watches its log), when the
 * persister reports another leader or a reset state, when its last member is released with
 * nothing in flight (it retires, so state reset while the group was empty is loaded afresh), or
 * at {@link #close}. The next use after a
 * drop makes a new one, which loads the durable state again (or fails as the log lookup does).
 *
 * <p>Wiring (the broker's): {@code new SharePartitionManager(ShareLogLookup.of(partitionManager,
 * metadataCache), persister, settingsSource, coordinatorTimer)}; a member gone from its group
 * ({@code ShareGroupListener.memberLeft}) or whose share session ended is released with
 * {@link #releaseMember}; {@link #close} at shutdown.
 *
 * <p>Thread-safe: the map is concurrent; each share partition guards itself. Lock timers run on
 * {@code timer}, whose tasks must not block (they take one share partition's lock briefly). The
 * wake-ups given to {@link #wakeOnAvailable} run on the thread that made records available (the
 * log's acknowledgement thread, the timer's thread, or an acknowledging request's): they must be
 * quick and hand any work on.
 */
public final class SharePartitionManager implements SharePartitions, AutoCloseable {

    private final ShareLogLookup logs;
    private final ShareStatePersister persister;
    private final ShareGroupSettingsSource settings;
    private final CoordinatorTimer timer;
    private final ConcurrentHashMap<Id, SharePartition> partitions = new ConcurrentHashMap<>();

    private record Id(String groupId, TopicIdPartition tp) {
    }

    /**
     * @param logs the logs of the partitions this broker leads ({@link ShareLogLookup#of})
     * @param timer the clock of lock deadlines and the scheduler of their expiries (the broker's
     *     {@code SystemCoordinatorTimer})
     */
    public SharePartitionManager(ShareLogLookup logs, ShareStatePersister persister, ShareGroupSettingsSource settings,
            CoordinatorTimer timer) {
        this.logs = logs;
        this.persister = persister;
        this.settings = settings;
        this.timer = timer;
    }

    @Override
    public CompletableFuture<Acquired> acquire(String groupId, String memberId, TopicIdPartition tp, int maxBytes,
            int maxRecords, boolean recordLimit) {
        return partition(groupId, tp).thenCompose(sp -> sp.acquire(memberId, maxBytes, maxRecords, recordLimit)
                .thenCompose(a -> !sp.isRetired() || a.error() == Errors.NONE ? CompletableFuture.completedFuture(a)
                        // It retired under this call: its successor answers.
                        : partition(groupId, tp).thenCompose(next -> next.acquire(memberId, maxBytes, maxRecords,
                                recordLimit))))
                .exceptionally(e -> Acquired.failed(ShareErrors.toKafka(e), PartitionErrors.message(e)));
    }

    @Override
    public CompletableFuture<AcknowledgeResult> acknowledge(String groupId, String memberId, TopicIdPartition tp,
            List<Acknowledgement> acknowledgements) {
        return partition(groupId, tp).thenCompose(sp -> sp.acknowledge(memberId, acknowledgements)
                .thenCompose(r -> !sp.isRetired() || r.error() == Errors.NONE ? CompletableFuture.completedFuture(r)
                        : partition(groupId, tp).thenCompose(next -> next.acknowledge(memberId, acknowledgements))))
                .exceptionally(e -> new AcknowledgeResult(ShareErrors.toKafka(e), PartitionErrors.message(e)));
    }

    @Override
    public CompletableFuture<Void> releaseMember(String groupId, String memberId) {
        List<CompletableFuture<Void>> releases = new ArrayList<>();
        partitions.forEach((id, sp) -> {
            if (id.groupId().equals(groupId)) {
                releases.add(sp.releaseMember(memberId));
            }
        });
        return CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new));
    }

    @Override
    public boolean wakeOnAvailable(String groupId, TopicIdPartition tp, Runnable wake) {
        SharePartition sp = partitions.get(new Id(groupId, tp));
        // None here yet: the caller acquires at once, which makes it.
        return sp != null && sp.wakeOnAvailable(wake);
    }

    @Override
    public void cancelWake(String groupId, TopicIdPartition tp, Runnable wake) {
        SharePartition sp = partitions.get(new Id(groupId, tp));
        if (sp != null) {
            sp.cancelWake(wake);
        }
    }

    /** The share partition, made (and its state loaded) if there is none open for the log the lookup gives. */
    private CompletableFuture<SharePartition> partition(String groupId, TopicIdPartition tp) {
        Id id = new Id(groupId, tp);
        SharePartition current = partitions.get(id);
        if (current != null && !current.isClosed()) {
            return CompletableFuture.completedFuture(current);
        }
        return logs.leaderLog(tp).thenApply(log -> opened(id, log));
    }

    private SharePartition opened(Id id, PartitionLog log) {
        SharePartition made = new SharePartition(new SharePartitionKey(id.groupId(), id.tp().topicId(),
                id.tp().partition()), id.tp(), log, persister, settings, timer, closed -> partitions.remove(id, closed));
        SharePartition[] replaced = new SharePartition[1];
        SharePartition winner = partitions.compute(id, (k, existing) -> {
            if (existing != null && !existing.isClosed() && existing.partitionLog() == log) {
                return existing;
            }
            replaced[0] = existing;
            return made;
        });
        if (winner == made) {
            if (replaced[0] != null) {
                replaced[0].close(Errors.NOT_LEADER_OR_FOLLOWER, null);
            }
            made.start();
        }
        return winner;
    }

    /** How many share partitions are open (tests). */
    int openCount() {
        return (int) partitions.values().stream().filter(sp -> !sp.isClosed()).count();
    }

    /** The open share partition, or null (tests). */
    SharePartition openPartition(String groupId, TopicIdPartition tp) {
        return partitions.get(new Id(groupId, tp));
    }

    /** Closes every share partition (broker shutdown): waiters are woken, later calls find none. */
    @Override
    public void close() {
        new ArrayList<>(partitions.values()).forEach(sp -> sp.close(Errors.NOT_LEADER_OR_FOLLOWER,
                "the broker is shutting down"));
    }
}
