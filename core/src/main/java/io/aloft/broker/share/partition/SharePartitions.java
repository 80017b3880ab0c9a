package io.aloft.broker.share.partition;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicIdPartition;

/**
 * The share partitions this broker leads (KIP-932): for each share group and topic partition whose
 * leader this broker is, which records are available, acquired (by which member, until when, how
 * often delivered), acknowledged or archived. ShareFetch acquires through it, ShareAcknowledge
 * and ShareFetch's piggybacked acknowledgements acknowledge through it, and the share session
 * cache releases a member's records when its session ends.
 *
 * <p>A share partition is created on first use on the partition's leader, loads its state through
 * the {@link io.aloft.broker.share.state.ShareStatePersister}, and is dropped when this broker
 * stops leading the partition (its acquisitions die with it; the new leader loads the durable
 * state, in which they are AVAILABLE again).
 *
 * <p>Thread-safe; no method blocks.
 */
public interface SharePartitions {

    /**
     * Acquires records of {@code tp} for {@code memberId}: reads the partition from the first
     * available offset and locks up to {@code maxRecords} records (and never beyond the group's
     * {@code share.partition.max.record.locks} in flight) for the group's lock duration. Completes
     * with nothing acquired, at once, when there is nothing to acquire now; the caller may wait
     * with {@link #wakeOnAvailable}.
     *
     * @param maxBytes bound on the record batches returned (whole batches; the first goes out whole
     *     even if larger)
     * @param recordLimit ShareFetch v2 share acquire mode {@code record_limit} (1): acquire no more
     *     than {@code maxRecords} records even within a batch; {@code batch_optimized} (0, v1's
     *     behaviour) may round up to whole batches
     */
    CompletableFuture<Acquired> acquire(String groupId, String memberId, TopicIdPartition tp, int maxBytes,
            int maxRecords, boolean recordLimit);

    /**
     * Applies a member's acknowledgements of records it acquired in {@code tp}. Completes once the
     * resulting state is durable, with NONE or the partition's error (INVALID_RECORD_STATE when a
     * range is not acquired by this member, NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION...).
     */
    CompletableFuture<AcknowledgeResult> acknowledge(String groupId, String memberId, TopicIdPartition tp,
            List<Acknowledgement> acknowledgements);

    /**
     * Makes AVAILABLE again everything {@code memberId} holds in {@code groupId} (its share session
     * closed, or it left or was fenced from the group), without counting a delivery back.
     */
    CompletableFuture<Void> releaseMember(String groupId, String memberId);

    /**
     * Registers {@code wake} to run once when {@code tp} may have records to acquire for
     * {@code groupId} again (new data below the high watermark or LSO, a lock expired, records
     * released), or the share partition closes.
     *
     * @return false, registering nothing, if records may be acquired now (the caller acquires at once)
     */
    boolean wakeOnAvailable(String groupId, TopicIdPartition tp, Runnable wake);

    /** Removes a {@link #wakeOnAvailable} registration that has not run; nothing if it has. */
    void cancelWake(String groupId, TopicIdPartition tp, Runnable wake);
}
