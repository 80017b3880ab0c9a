package io.aloft.broker.security;

import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.client.MetadataWatcher;
import io.aloft.controller.command.DeleteKv;
import io.aloft.controller.command.PutKv;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.FeatureLevel;
import io.aloft.controller.model.MetadataEvent;
import io.aloft.controller.model.SecurityKeys;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * The cluster's security entries (SCRAM credentials, ACL bindings, client quotas) as this broker
 * last saw them: the controller's key-value entries under {@link SecurityKeys#PREFIX}, kept current
 * by the change feed (a full set with each image, one entry per event), and the way a handler
 * changes them (through the controller, so every broker and every restart sees the change).
 *
 * <p>Each feature owns a sub-prefix ({@code security/scram/}, {@code security/acl/},
 * {@code security/quota/}) and {@link #subscribe subscribes} to it to rebuild its own immutable
 * index when something under it changes. A change made here is applied to the local view as soon as
 * the controller has committed it (read your writes on this broker); other brokers see it one watch
 * round later (about {@code 100} ms). Until the feed delivers this broker's own write, events older
 * than it do not undo it locally (a write shows at once and stays shown).
 *
 * <p>Thread-safe: the view is one immutable map swapped under this object's lock. Listeners run
 * under that lock too, so they see views in the order they were made, on the thread that changed
 * the view (the metadata watcher's, or the controller client's completing a write): they must be
 * quick and must not write here.
 */
public final class SecurityMetadata implements MetadataWatcher.Listener {

    /** One change of a {@link #apply batch}: a put ({@code value} non-null) or a delete. */
    public record Change(String key, byte[] value) {
        public Change {
            Objects.requireNonNull(key, "key");
            if (!SecurityKeys.isSecurityKey(key)) {
                throw new IllegalArgumentException("not a security key: " + key);
            }
        }

        public static Change put(String key, byte[] value) {
            return new Change(key, Objects.requireNonNull(value, "value").clone());
        }

        public static Change delete(String key) {
            return new Change(key, null);
        }
    }

    private record Subscription(String prefix, Consumer<SortedMap<String, byte[]>> listener) {
    }

    private final ControllerClient controller;
    private final IntSupplier featureLevel;
    private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
    private final LongSupplier nanoTime;
    /** What the change feed says, as of its last image and events. Under the lock. */
    private TreeMap<String, byte[]> fromFeed = new TreeMap<>();
    /** Our committed writes the feed has not delivered yet, by key. Under the lock. */
    private final Map<String, Pending> pending = new HashMap<>();
    /** How many changes of each key the feed has delivered (to tell whether one came after a write was sent). Under the lock. */
    private final Map<String, Long> feedEvents = new HashMap<>();
    /** {@link #fromFeed} with {@link #pending} over it. */
    private volatile SortedMap<String, byte[]> entries = Collections.emptySortedMap();

    /**
     * A committed write of this broker not yet seen on the feed: an event older than it (for the
     * same key) must not undo it locally. The feed delivers every committed write within a watch
     * round; the timeout only bounds how long a write whose event was skipped (a new image that
     * already held it, then a later change by another broker) could mask that change.
     */
    private record Pending(byte[] value, long expiresAtNanos) {
    }

    private static final long PENDING_TIMEOUT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(30);

    /** Entries written through {@code controller}, refused while its known feature level is too low. */
    public SecurityMetadata(ControllerClient controller) {
        this(controller, controller::featureLevel);
    }

    SecurityMetadata(ControllerClient controller, IntSupplier featureLevel) {
        this(controller, featureLevel, System::nanoTime);
    }

    SecurityMetadata(ControllerClient controller, IntSupplier featureLevel, LongSupplier nanoTime) {
        this.controller = controller;
        this.featureLevel = featureLevel;
        this.nanoTime = nanoTime;
    }

    /** The entries under {@code prefix} (full keys), an immutable snapshot. */
    public SortedMap<String, byte[]> entries(String prefix) {
        return under(entries, prefix);
    }

    /**
     * Calls {@code listener} with the entries under {@code prefix} now, and again after every change
     * under it.
     */
    public void subscribe(String prefix, Consumer<SortedMap<String, byte[]>> listener) {
        Subscription s = new Subscription(prefix, listener);
        synchronized (this) {
            subscriptions.add(s);
            listener.accept(under(entries, prefix));
        }
    }

    /** Puts {@code value} under {@code key}; completes once the controller has committed it. */
    public CompletableFuture<Void> put(String key, byte[] value) {
        return apply(List.of(Change.put(key, value)));
    }

    /** Removes {@code key} (a missing key is a no-op); completes once the controller has committed it. */
    public CompletableFuture<Void> delete(String key) {
        return apply(List.of(Change.delete(key)));
    }

    /**
     * Submits {@code changes} together (one controller round when they can share it; each applies on
     * its own, so a failure leaves the others applied) and applies them to the local view once all
     * are committed.
     */
    public CompletableFuture<Void> apply(List<Change> changes) {
        if (featureLevel.getAsInt() < FeatureLevel.SECURITY_METADATA) {
            return CompletableFuture.failedFuture(new UnsupportedVersionException("The cluster's feature level is "
                    + featureLevel.getAsInt() + "; credentials, ACLs and quotas need level "
                    + FeatureLevel.SECURITY_METADATA + " (finish upgrading every controller voter and broker first)"));
        }
        Map<String, Long> seenAtSubmit = new HashMap<>();
        synchronized (this) {
            for (Change c : changes) {
                seenAtSubmit.put(c.key(), feedEvents.getOrDefault(c.key(), 0L));
            }
        }
        List<CompletableFuture<Object>> writes = new ArrayList<>(changes.size());
        for (Change c : changes) {
            writes.add(controller.submit(c.value() == null ? new DeleteKv(c.key()) : new PutKv(c.key(), c.value())));
        }
        return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new))
                .thenRun(() -> committed(changes, seenAtSubmit));
    }

    @Override
    public void onImage(ClusterImage image) {
        synchronized (this) {
            TreeMap<String, byte[]> next = new TreeMap<>(image.securityEntries());
            java.util.Set<String> keys = new java.util.HashSet<>(fromFeed.keySet());
            keys.addAll(next.keySet());
            for (String key : keys) {
                if (!java.util.Arrays.equals(fromFeed.get(key), next.get(key))) {
                    feedEvents.merge(key, 1L, Long::sum);
                }
            }
            fromFeed = next;
            // The image may already hold a write of ours whose event this watcher will never see.
            pending.entrySet().removeIf(e -> java.util.Arrays.equals(e.getValue().value(), fromFeed.get(e.getKey())));
            rebuild();
        }
    }

    @Override
    public void onEvent(MetadataEvent event) {
        if (event.kvKey() == null || !SecurityKeys.isSecurityKey(event.kvKey())) {
            return;
        }
        synchronized (this) {
            feedEvents.merge(event.kvKey(), 1L, Long::sum);
            if (event.kvValue() == null) {
                fromFeed.remove(event.kvKey());
            } else {
                fromFeed.put(event.kvKey(), event.kvValue());
            }
            Pending mine = pending.get(event.kvKey());
            if (mine != null && java.util.Arrays.equals(mine.value(), event.kvValue())) {
                pending.remove(event.kvKey()); // the feed has caught up with our write
            }
            rebuild();
        }
    }

    /** {@link #committed(List, Map)} of writes the feed has delivered nothing for since they were sent. */
    void committed(List<Change> changes) {
        Map<String, Long> now = new HashMap<>();
        synchronized (this) {
            changes.forEach(c -> now.put(c.key(), feedEvents.getOrDefault(c.key(), 0L)));
        }
        committed(changes, now);
    }

    /**
     * Our committed writes, shown at once and kept over older events until the feed delivers them.
     * A key the feed has changed since the write was sent ({@code seenAtSubmit}: its count of feed
     * changes then) gets no overlay: the feed may have delivered this very write already (the
     * watcher can be faster than the commit's answer), and an overlay no event would ever clear
     * would hide later changes by other brokers until it expires.
     */
    void committed(List<Change> changes, Map<String, Long> seenAtSubmit) {
        synchronized (this) {
            long expires = nanoTime.getAsLong() + PENDING_TIMEOUT_NANOS;
            for (Change c : changes) {
                if (feedEvents.getOrDefault(c.key(), 0L).equals(seenAtSubmit.getOrDefault(c.key(), 0L))) {
                    pending.put(c.key(), new Pending(c.value(), expires));
                } else {
                    pending.remove(c.key());
                }
            }
            rebuild();
        }
    }

    /** The view: the feed's entries with our pending writes over them. Under the lock. */
    private void rebuild() {
        long now = nanoTime.getAsLong();
        pending.values().removeIf(p -> now - p.expiresAtNanos() > 0);
        TreeMap<String, byte[]> next = new TreeMap<>(fromFeed);
        pending.forEach((key, p) -> {
            if (p.value() == null) {
                next.remove(key);
            } else {
                next.put(key, p.value());
            }
        });
        SortedMap<String, byte[]> old = entries;
        SortedMap<String, byte[]> view = Collections.unmodifiableSortedMap(next);
        entries = view;
        tell(changed(old, view), view);
    }

    /** Subscriptions whose part differs between {@code old} and {@code next}. */
    private List<Subscription> changed(SortedMap<String, byte[]> old, SortedMap<String, byte[]> next) {
        List<Subscription> out = new ArrayList<>();
        for (Subscription s : subscriptions) {
            if (!sameEntries(under(old, s.prefix()), under(next, s.prefix()))) {
                out.add(s);
            }
        }
        return out;
    }

    /** Called under the lock (see the class comment). */
    private void tell(List<Subscription> notify, SortedMap<String, byte[]> view) {
        for (Subscription s : notify) {
            s.listener().accept(under(view, s.prefix()));
        }
    }

    private static SortedMap<String, byte[]> under(SortedMap<String, byte[]> map, String prefix) {
        // Every key under prefix sorts between prefix and prefix + U+FFFF.
        return Collections.unmodifiableSortedMap(map.subMap(prefix, prefix + Character.MAX_VALUE));
    }

    private static boolean sameEntries(SortedMap<String, byte[]> a, SortedMap<String, byte[]> b) {
        if (!a.keySet().equals(b.keySet())) {
            return false;
        }
        for (var e : a.entrySet()) {
            if (!java.util.Arrays.equals(e.getValue(), b.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }
}
