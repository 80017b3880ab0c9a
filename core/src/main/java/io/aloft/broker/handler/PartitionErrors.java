package io.aloft.broker.handler;

import io.aloft.broker.log.PartitionLogException;
import io.aloft.stream.StreamFencedException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.protocol.Errors;

/** Maps a failed partition operation to the per-partition Kafka error (one place for every handler). */
final class PartitionErrors {
    private PartitionErrors() {
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
        if (e instanceof StreamFencedException) {
            return Errors.NOT_LEADER_OR_FOLLOWER; // another broker took the partition over
        }
        Errors mapped = Errors.forException(e);
        return mapped == Errors.UNKNOWN_SERVER_ERROR ? Errors.KAFKA_STORAGE_ERROR : mapped;
    }

    static String message(Throwable failure) {
        return unwrap(failure).getMessage();
    }
}
