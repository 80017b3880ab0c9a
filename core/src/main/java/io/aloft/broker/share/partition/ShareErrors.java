package io.aloft.broker.share.partition;

import io.aloft.broker.log.PartitionErrors;
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.protocol.Errors;

/**
 * Maps a failure inside a share partition to the partition's Kafka error: the handlers' mapping of
 * partition failures ({@link PartitionErrors}), plus one rule: a persister's FENCED_LEADER_EPOCH
 * (another leader wrote the state since) is NOT_LEADER_OR_FOLLOWER, so the client looks the leader up
 * again. Stateless.
 */
final class ShareErrors {
    private ShareErrors() {
    }

    static Errors toKafka(Throwable failure) {
        if (PartitionErrors.unwrap(failure) instanceof FencedLeaderEpochException) {
            return Errors.NOT_LEADER_OR_FOLLOWER;
        }
        return PartitionErrors.toKafka(failure);
    }
}
