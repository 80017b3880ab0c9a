package io.aloft.broker.security;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * STAND-IN for the lead's controller-backed security metadata (see the "Security metadata on the
 * change feed" commit, which replaces this file): the same API over a broker-local map, so the ACL
 * code can be written and tested on one broker before the replicated store lands. Entries do not
 * survive a restart and are not shared between brokers.
 *
 * <p>Thread-safe: the map is guarded by {@code this}; listeners are called on the writer's thread
 * after each change (the real one calls them on the metadata watcher thread).
 */
public final class SecurityMetadata {
    private final TreeMap<String, byte[]> entries = new TreeMap<>();
    private final List<Map.Entry<String, Consumer<SortedMap<String, byte[]>>>> listeners =
            new CopyOnWriteArrayList<>();

    /** One change of {@link #apply}: a put (value non-null) or a delete. */
    public record Change(String key, byte[] value) {
        public static Change put(String key, byte[] value) {
            return new Change(key, value.clone());
        }

        public static Change delete(String key) {
            return new Change(key, null);
        }
    }

    /** An immutable snapshot of the entries under {@code prefix}, with full keys. */
    public synchronized SortedMap<String, byte[]> entries(String prefix) {
        return Collections.unmodifiableSortedMap(new TreeMap<>(entries.subMap(prefix, prefix + Character.MAX_VALUE)));
    }

    /** Calls {@code listener} now and after every change under {@code prefix}. */
    public void subscribe(String prefix, Consumer<SortedMap<String, byte[]>> listener) {
        listeners.add(Map.entry(prefix, listener));
        listener.accept(entries(prefix));
    }

    public CompletableFuture<Void> put(String key, byte[] value) {
        return apply(List.of(Change.put(key, value)));
    }

    public CompletableFuture<Void> delete(String key) {
        return apply(List.of(Change.delete(key)));
    }

    public CompletableFuture<Void> apply(List<Change> changes) {
        List<String> changed = new ArrayList<>();
        synchronized (this) {
            for (Change c : changes) {
                if (c.value() == null) {
                    entries.remove(c.key());
                } else {
                    entries.put(c.key(), c.value());
                }
                changed.add(c.key());
            }
        }
        for (Map.Entry<String, Consumer<SortedMap<String, byte[]>>> l : listeners) {
            if (changed.stream().anyMatch(k -> k.startsWith(l.getKey()))) {
                l.getValue().accept(entries(l.getKey()));
            }
        }
        return CompletableFuture.completedFuture(null);
    }
}
