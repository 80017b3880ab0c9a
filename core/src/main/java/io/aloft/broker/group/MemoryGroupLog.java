package io.aloft.broker.group;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * A {@link GroupLog} in memory, for tests and for a broker not yet wired to the partition log.
 * It stores the encoded bytes, not the record objects, so a replay goes through
 * {@link GroupRecordCodec} exactly as one from a real log would. Appends complete at once.
 * Thread-safe: each partition's list is guarded by its own monitor.
 */
public final class MemoryGroupLog implements GroupLog {

    private record Entry(byte[] key, byte[] value) {
    }

    private final Map<Integer, List<Entry>> partitions = new ConcurrentHashMap<>();

    @Override
    public CompletableFuture<Void> append(int partition, List<GroupRecord> records) {
        List<Entry> encoded = new ArrayList<>(records.size());
        for (GroupRecord r : records) {
            encoded.add(new Entry(GroupRecordCodec.key(r), GroupRecordCodec.value(r)));
        }
        List<Entry> log = partitions.computeIfAbsent(partition, p -> new ArrayList<>());
        synchronized (log) {
            log.addAll(encoded);
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void replay(int partition, Consumer<GroupRecord> sink) {
        List<Entry> log = partitions.get(partition);
        if (log == null) {
            return;
        }
        List<Entry> copy;
        synchronized (log) {
            copy = new ArrayList<>(log);
        }
        for (Entry e : copy) {
            sink.accept(GroupRecordCodec.decode(e.key(), e.value()));
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
