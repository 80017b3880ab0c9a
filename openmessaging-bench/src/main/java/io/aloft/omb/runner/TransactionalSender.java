package io.aloft.omb.runner;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Groups a producer's records into transactions of a fixed size: begin, send
 * {@code messagesPerTransaction} records, commit, begin the next. Confined to the worker's thread
 * (see {@link MessageSender}).
 *
 * <p>What counts: a transaction's messages count as published when its commit returns (that is
 * when a read_committed consumer can see them), with the commit call's duration as commit latency;
 * publish latency is still each send's acknowledgement, as without transactions. A transaction
 * that does not commit (a failed send, a fenced producer, a commit that times out) is aborted and
 * its messages count as send errors; the run goes on.
 *
 * <p>Recovery: after a failure the transaction is aborted; if even the abort fails (the client is
 * in a fatal state, e.g. fenced, or a commit timed out and may only be retried), the client is
 * closed and a new one with the same {@code transactional.id} takes over at the next send, its
 * {@code initTransactions} fencing whatever the old one left open. If {@code initTransactions}
 * fails, one error is counted and the next attempt waits {@link #RETRY_BACKOFF}, so a broker
 * without transactions gives a run full of errors rather than a crash or a busy loop.
 */
final class TransactionalSender implements MessageSender {
    static final Duration RETRY_BACKOFF = Duration.ofSeconds(1);
    /** At most one WARN per sender this often: a broker failing every transaction must not flood the log. */
    private static final long WARN_INTERVAL_NANOS = Duration.ofSeconds(10).toNanos();
    private static final Logger log = LoggerFactory.getLogger(TransactionalSender.class);

    private final Supplier<Producer<byte[], byte[]>> factory;
    private final int messagesPerTransaction;
    private final RunStats stats;
    private Producer<byte[], byte[]> producer; // null before the first send and after a discarded client
    private int inTransaction; // records sent in the open transaction; 0 = none open
    private long bytesInTransaction;
    private long clientsCreated;
    private long lastWarnNanos;
    private boolean warnedOnce;
    private long failuresSinceWarn;

    /** @param factory makes a client with this worker's {@code transactional.id} (called again after a fatal error) */
    TransactionalSender(Supplier<Producer<byte[], byte[]>> factory, int messagesPerTransaction, RunStats stats) {
        if (messagesPerTransaction < 1) {
            throw new IllegalArgumentException("messagesPerTransaction must be at least 1, got "
                    + messagesPerTransaction);
        }
        this.factory = factory;
        this.messagesPerTransaction = messagesPerTransaction;
        this.stats = stats;
    }

    @Override
    public void send(ProducerRecord<byte[], byte[]> record, int bytes, long sendNanos) {
        if (producer == null && !initClient()) {
            stats.sendFailed();
            return;
        }
        try {
            if (inTransaction == 0) {
                producer.beginTransaction();
            }
            // Counted before the call: if send throws, this record belongs to the aborted transaction.
            inTransaction++;
            bytesInTransaction += bytes;
            producer.send(record, (metadata, exception) -> {
                if (exception == null) {
                    stats.acked((System.nanoTime() - sendNanos) / 1000);
                } else {
                    // The commit fails for it and counts the whole transaction.
                    log.debug("transactional send to {} failed", record.topic(), exception);
                }
            });
        } catch (KafkaException | IllegalStateException e) {
            abort("send", e);
            return;
        }
        if (inTransaction >= messagesPerTransaction) {
            commit();
        }
    }

    @Override
    public void finish() {
        if (producer != null && inTransaction > 0) {
            commit();
        }
    }

    @Override
    public void close(Duration timeout) {
        if (producer != null) {
            producer.close(timeout);
            producer = null;
        }
    }

    /** Clients made so far, for tests: 1 unless some were discarded after a fatal error. */
    long clientsCreated() {
        return clientsCreated;
    }

    private void commit() {
        long start = System.nanoTime();
        try {
            producer.commitTransaction();
            stats.committed(inTransaction, bytesInTransaction, (System.nanoTime() - start) / 1000);
            inTransaction = 0;
            bytesInTransaction = 0;
        } catch (KafkaException | IllegalStateException e) {
            abort("commit", e);
        }
    }

    /** Counts the open transaction as failed and aborts it, or discards the client if it cannot. */
    private void abort(String what, RuntimeException cause) {
        stats.aborted(inTransaction);
        warn("{} failed in a transaction of {} messages; aborting it: {}", what, inTransaction, cause.toString());
        log.debug("{} failure", what, cause);
        inTransaction = 0;
        bytesInTransaction = 0;
        try {
            producer.abortTransaction();
        } catch (KafkaException | IllegalStateException e) {
            log.debug("abort failed too; closing this client, a new one with the same transactional.id takes over",
                    e);
            discardClient();
        }
    }

    /** Makes and initialises a client; false (after backing off) when that failed. */
    private boolean initClient() {
        Producer<byte[], byte[]> p = null;
        try {
            p = factory.get();
            clientsCreated++;
            p.initTransactions();
            producer = p;
            return true;
        } catch (KafkaException | IllegalStateException e) {
            warn("initTransactions failed ({}); retrying in {} ms", e.toString(), RETRY_BACKOFF.toMillis());
            if (p != null) {
                closeQuietly(p);
            }
            // Short enough for the runner's wait on a stopping worker; the thread is not interrupted.
            LockSupport.parkNanos(RETRY_BACKOFF.toNanos());
            return false;
        }
    }

    /** A WARN, unless one was logged less than 10 s ago: then it is only counted for the next one. */
    private void warn(String format, Object... args) {
        failuresSinceWarn++;
        long now = System.nanoTime();
        if (warnedOnce && now - lastWarnNanos < WARN_INTERVAL_NANOS) {
            return;
        }
        if (failuresSinceWarn > 1) {
            log.warn("{} more transaction failures since the last warning", failuresSinceWarn - 1);
        }
        log.warn(format, args);
        warnedOnce = true;
        lastWarnNanos = now;
        failuresSinceWarn = 0;
    }

    private void discardClient() {
        closeQuietly(producer);
        producer = null;
    }

    private static void closeQuietly(Producer<byte[], byte[]> p) {
        try {
            // Nothing in flight is worth waiting for: its transaction is already counted as failed.
            p.close(Duration.ZERO);
        } catch (RuntimeException e) {
            log.debug("closing a failed transactional client", e);
        }
    }
}
