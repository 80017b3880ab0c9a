package io.aloft.broker.share.partition;

import io.aloft.broker.log.PartitionLogException;
import io.aloft.stream.StreamFencedException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.protocol.Errors;

/**
 * Maps a failure inside a share partition to the partition's Kafka error, the same rules as the
 * handlers' mapping of partition failures: a {@link PartitionLogException} carries its code, a
 * stream fenced by a newer owner and a persister's FENCED_LEADER_EPOCH (another leader wrote the
 * state since) are NOT_LEADER_OR_FOLLOWER (the client looks the leader up again), Kafka's own
 * exceptions map to their codes, anything else is UNKNOWN_SERVER_ERROR. Stateless.
 */
final class ShareErrors {
    private ShareErrors() {
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    static Errors toKafka(Throwable failure) {
        Throwable e = unwrap(failure);
        if (e instanceof PartitionLogException p) {
            return p.error();
        }
        if (e instanceof StreamFencedException || e instanceof FencedLeaderEpochException) {
            return Errors.NOT_LEADER_OR_FOLLOWER;
        }
        return Errors.forException(e);
    }

    static String message(Throwable failure) {
        return unwrap(failure).getMessage();
    }
}
