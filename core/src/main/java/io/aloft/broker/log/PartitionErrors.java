package io.aloft.broker.log;

import io.aloft.stream.StreamFencedException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.protocol.Errors;

/**
 * Maps a failed partition operation to the per-partition Kafka error (one place for every handler, and
 * for the share partitions, which add one rule of their own in share.partition.ShareErrors).
 * Storage and ownership failures arrive as {@link PartitionLogException}s carrying their code
 * (KAFKA_STORAGE_ERROR, NOT_LEADER_OR_FOLLOWER, ...); Kafka's own exceptions map to their codes;
 * anything else is a fault of this broker and answers UNKNOWN_SERVER_ERROR, which clients do not
 * retry (a retriable code for a request that can never succeed would make them retry forever).
 *
 * <p>Stateless.
 */
public final class PartitionErrors {
    private PartitionErrors() {
    }

    public static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    public static Errors toKafka(Throwable failure) {
        Throwable e = unwrap(failure);
        if (e instanceof PartitionLogException p) {
            return p.error();
        }
        if (e instanceof StreamFencedException) {
            return Errors.NOT_LEADER_OR_FOLLOWER; // another broker took the partition over
        }
        return Errors.forException(e);
    }

    public static String message(Throwable failure) {
        return unwrap(failure).getMessage();
    }
}
