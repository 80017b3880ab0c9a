package io.aloft.broker.coordinator;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * A {@link CoordinatorLog} in memory, for tests. It stores the encoded key and value bytes, not the
 * record objects, so a replay goes through the serde exactly as one from a real log would.
 * Appends complete at once, on the calling thread. Thread-safe: each partition's list is guarded
 * by its own monitor. Transactional records and markers are kept as such (what the batch would
 * say), without the partition log's producer checks.
 *
 * @param <R> the record type
 */
public class MemoryCoordinatorLog<R> implements CoordinatorLog<R> {

    /** One stored record: a key and value (of {@code producer}'s transaction, if set), or a marker. */
    private record Entry(byte[] key, byte[] value, TransactionalProducer producer, TransactionMarker marker) {
    }

    private final CoordinatorRecordSerde<R> serde;
    private final Map<Integer, List<Entry>> partitions = new ConcurrentHashMap<>();

    public MemoryCoordinatorLog(CoordinatorRecordSerde<R> serde) {
        this.serde = serde;
    }

    @Override
    public CompletableFuture<Void> append(int partition, List<R> records) {
        List<Entry> encoded = new ArrayList<>(records.size());
        for (R r : records) {
            TransactionMarker marker = serde.markerOf(r);
            encoded.add(marker != null ? new Entry(null, null, null, marker)
                    : new Entry(serde.key(r), serde.value(r), serde.producerOf(r), null));
        }
        List<Entry> log = partitions.computeIfAbsent(partition, p -> new ArrayList<>());
        synchronized (log) {
            log.addAll(encoded);
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void replay(int partition, Consumer<R> sink) {
        List<Entry> log = partitions.get(partition);
        if (log == null) {
            return;
        }
        List<Entry> copy;
        synchronized (log) {
            copy = new ArrayList<>(log);
        }
        for (Entry e : copy) {
            R r = e.marker() != null ? serde.decodeMarker(e.marker())
                    : e.producer() != null ? serde.decodeTransactional(e.producer(), e.key(), e.value())
                    : serde.decode(e.key(), e.value());
            if (r != null) {
                sink.accept(r);
            }
        }
    }

    /** Records appended to {@code partition} so far (for tests that look at what was written). */
    public int size(int partition) {
        List<Entry> log = partitions.get(partition);
        if (log == null) {
            return 0;
        }
        synchronized (log) {
            return log.size();
        }
    }
}
