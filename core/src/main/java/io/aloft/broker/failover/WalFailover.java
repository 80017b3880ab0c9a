package io.aloft.broker.failover;

import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.command.PutKv;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.WalMarkers;
import io.aloft.controller.query.Queries;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorages;
import io.aloft.stream.store.StreamStore;
import io.aloft.stream.store.WalTakeOverReplay;
import io.aloft.stream.wal.ObjectStorageWal;
import io.aloft.stream.wal.ObjectWalConfig;
import io.aloft.wal.BlockWalTakeOver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recovers the WAL of a broker that failed: what it acknowledged but had not uploaded yet goes
 * into object storage through a live broker, and only then do the new owners of its partitions
 * open them (see {@link #recovered}). Both placements: a WAL in object storage ({@code wal.url},
 * {@link ObjectStorageWal#takeOver}) and a block WAL on a volume another broker can open (here, a
 * path: {@link BlockWalTakeOver}). Each broker publishes where its WAL lives before it registers
 * ({@link WalMarkers#LOCATION_PREFIX}).
 *
 * <p>When the controller fences a broker (its session lapsed) it moves the broker's partitions at
 * once. The lowest-id active broker then, for each fenced broker whose WAL is not known recovered:
 * <ol>
 *   <li>announces the take-over ({@link WalMarkers#TAKEOVER_PREFIX}): from then on the controller
 *       refuses that incarnation's heartbeats, so a broker that was only paused cannot be unfenced
 *       and acknowledge into a WAL being read; it reads the broker's state back and goes on only if
 *       it is still fenced at that epoch (it did not come back first);
 *   <li>takes the WAL over: fences it (the paused broker fails its next WAL write or header check,
 *       and stops), reads what it had not trimmed;
 *   <li>replays what continues the streams the fenced broker still holds open
 *       ({@link WalTakeOverReplay}), uploading and committing it;
 *   <li>records this incarnation's WAL recovered ({@link WalMarkers#RECOVERED_PREFIX}) and releases
 *       what it read.
 * </ol>
 * Every step can be repeated: a recovering broker that dies midway leaves the WAL fenced and not
 * released, and whoever is lowest active next does it again; a replay finds committed data already
 * committed and commits nothing twice. A block WAL whose header lock is held (its owner restarting,
 * which recovers it itself) is tried again later, as is one not reachable from here.
 *
 * <p>Thread-safe. Works on one thread of its own (a replay blocks for uploads and commits); the
 * partition opens ask {@link #recovered} from theirs.
 */
public final class WalFailover implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WalFailover.class);
    static final long CHECK_INTERVAL_MS = 200;
    /** After a failed recovery (object storage or the controller unavailable), the pause before the next try. */
    static final long RETRY_BACKOFF_MS = 2_000;

    private final int nodeId;
    private final MetadataCache cache;
    private final ControllerClient controller;
    /** This broker's WAL object storage and its URL, or nulls with a block WAL. */
    private final ObjectStorage walStorage;
    private final String walUrl;
    private final StreamStore store;
    private final ScheduledExecutorService thread;
    /** The broker epoch whose WAL is known recovered, by broker id (from the markers). */
    private final Map<Integer, Long> recoveredEpochs = new ConcurrentHashMap<>();
    /** Where each broker's WAL lives, as published (failover thread only). */
    private Map<Integer, String> locations = Map.of();
    /** Brokers whose WAL cannot be recovered from here, already logged (failover thread only). */
    private final Set<String> unreachableLogged = new HashSet<>();
    private final java.util.concurrent.atomic.LongAdder recoveries = new java.util.concurrent.atomic.LongAdder();
    /** Told each recovery's duration in nanoseconds (see {@link #recordRecoveryTimeTo}). */
    private volatile java.util.function.LongConsumer recoveryTime = nanos -> { };
    /** No recovery is tried before this (System.nanoTime); only the failover thread uses it. */
    private long retryAfterNanos = System.nanoTime();

    /**
     * @param walStorage this broker's WAL object storage, or null with a block WAL
     * @param walUrl its {@code wal.url}, or null
     */
    public WalFailover(int nodeId, MetadataCache cache, ControllerClient controller, ObjectStorage walStorage,
            String walUrl, StreamStore store, Thread.UncaughtExceptionHandler uncaught) {
        this.nodeId = nodeId;
        this.cache = cache;
        this.controller = controller;
        this.walStorage = walStorage;
        this.walUrl = walUrl;
        this.store = store;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "aloft-wal-failover");
            t.setDaemon(true);
            t.setUncaughtExceptionHandler(uncaught);
            return t;
        });
    }

    /** The {@link WalMarkers#LOCATION_PREFIX} value of a block WAL at {@code path}. */
    public static String blockLocation(Path path) {
        return WalMarkers.BLOCK + path.toAbsolutePath().normalize();
    }

    /** The {@link WalMarkers#LOCATION_PREFIX} value of a WAL in object storage at {@code url}. */
    public static String objectLocation(String url) {
        return WalMarkers.OBJECT + url;
    }

    /** WALs of fenced brokers this broker recovered (replayed, committed and marked recovered). */
    public long recoveries() {
        return recoveries.sum();
    }

    /**
     * Sends each recovery's duration (take-over, replay, commit and marker, in nanoseconds) to
     * {@code recorder}, on the failover thread. Replaces any earlier one.
     */
    public void recordRecoveryTimeTo(java.util.function.LongConsumer recorder) {
        this.recoveryTime = recorder;
    }

    public WalFailover start() {
        thread.scheduleWithFixedDelay(this::check, CHECK_INTERVAL_MS, CHECK_INTERVAL_MS, TimeUnit.MILLISECONDS);
        return this;
    }

    /**
     * Whether a partition held open by broker {@code brokerId} may be opened here without losing
     * what only that broker's WAL holds: it is live (it closes the partition itself), gone from the
     * cluster (it left after a drain, or an operator removed it: there is nothing left to wait for),
     * or fenced with its WAL recovered.
     */
    public boolean recovered(int brokerId) {
        BrokerInfo b = cache.view().brokers().get(brokerId);
        if (b == null || b.state() != BrokerState.FENCED) {
            return true;
        }
        Long epoch = recoveredEpochs.get(brokerId);
        return epoch != null && epoch >= b.brokerEpoch();
    }

    /** The periodic pass: learns the markers while a broker is fenced, and recovers what falls to this broker. */
    private void check() {
        try {
            Map<Integer, BrokerInfo> brokers = cache.view().brokers();
            boolean waiting = brokers.values().stream()
                    .anyMatch(b -> b.state() == BrokerState.FENCED && !recovered(b.brokerId()));
            if (!waiting) {
                return; // no fenced broker, or every one's WAL known recovered: nothing to ask the controller
            }
            readMarkers();
            int recoverer = brokers.values().stream().filter(b -> b.state() == BrokerState.ACTIVE)
                    .mapToInt(BrokerInfo::brokerId).min().orElse(-1);
            if (recoverer != nodeId || System.nanoTime() - retryAfterNanos < 0) {
                return;
            }
            readLocations(); // only the recoverer needs them
            for (BrokerInfo b : brokers.values()) {
                if (b.state() == BrokerState.FENCED && b.brokerId() != nodeId && !recovered(b.brokerId())) {
                    recover(b);
                }
            }
        } catch (RuntimeException e) {
            retryAfterNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RETRY_BACKOFF_MS);
            if (e instanceof NotNow) {
                log.info("WAL failover: {}; trying again in {} ms", e.getMessage(), RETRY_BACKOFF_MS);
            } else {
                log.warn("WAL failover pass failed; trying again in {} ms", RETRY_BACKOFF_MS, e);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private void readMarkers() {
        Map<String, byte[]> markers = controller.query(new Queries.GetKvPrefix(WalMarkers.RECOVERED_PREFIX), Map.class)
                .join();
        markers.forEach((key, value) -> {
            int id = WalMarkers.brokerId(WalMarkers.RECOVERED_PREFIX, key);
            long epoch = WalMarkers.epoch(value);
            if (id < 0 || epoch < 0) {
                log.warn("Ignoring malformed WAL recovery marker {}", key);
                return;
            }
            recoveredEpochs.merge(id, epoch, Math::max);
        });
    }

    @SuppressWarnings("unchecked")
    private void readLocations() {
        Map<String, byte[]> published = controller.query(new Queries.GetKvPrefix(WalMarkers.LOCATION_PREFIX),
                Map.class).join();
        Map<Integer, String> found = new java.util.HashMap<>();
        published.forEach((key, value) -> {
            int id = WalMarkers.brokerId(WalMarkers.LOCATION_PREFIX, key);
            if (id >= 0) {
                found.put(id, new String(value, StandardCharsets.UTF_8));
            }
        });
        locations = found;
    }

    private void recover(BrokerInfo dead) {
        BrokerInfo now = cache.view().brokers().get(dead.brokerId());
        if (now == null || now.state() != BrokerState.FENCED || now.brokerEpoch() != dead.brokerEpoch()) {
            return; // it came back (and recovered its own WAL) or left meanwhile: taking over would fence a live broker
        }
        String location = locations.get(dead.brokerId());
        if (location == null && walUrl != null) {
            location = objectLocation(walUrl); // a broker of a build that published nothing: object WALs only then
        }
        if (location == null || !reachable(location)) {
            if (unreachableLogged.add(dead.brokerId() + " " + location)) {
                log.warn("The WAL of fenced broker {} ({}) cannot be recovered from broker {}; its partitions wait "
                        + "until it comes back", dead.brokerId(), location == null ? "location not published" : location,
                        nodeId);
            }
            return;
        }
        String epoch = Long.toString(dead.brokerEpoch());
        controller.submit(new PutKv(WalMarkers.key(WalMarkers.TAKEOVER_PREFIX, dead.brokerId()),
                epoch.getBytes(StandardCharsets.UTF_8))).join();
        if (!stillFenced(dead)) {
            return; // it was unfenced before the announcement: it serves on, and closes what it holds itself
        }
        long started = System.nanoTime();
        int records;
        int streams;
        if (location.startsWith(WalMarkers.BLOCK)) {
            Path path = Path.of(location.substring(WalMarkers.BLOCK.length()));
            try (BlockWalTakeOver taken = takeOverBlock(path)) {
                records = taken.records().size();
                streams = WalTakeOverReplay.replay(store, dead.brokerId(), taken.records().iterator());
                markRecovered(dead);
                taken.release();
            }
        } else {
            String url = location.substring(WalMarkers.OBJECT.length());
            ObjectStorage storage = url.equals(walUrl) ? walStorage : ObjectStorages.open(url);
            try {
                String prefix = ObjectWalConfig.prefix(dead.brokerId());
                ObjectStorageWal.TakenOver taken = ObjectStorageWal.takeOver(storage, prefix);
                records = taken.records().size();
                streams = WalTakeOverReplay.replay(store, dead.brokerId(), taken.records().iterator());
                markRecovered(dead);
                ObjectStorageWal.release(storage, prefix, taken.fenceOffset());
            } finally {
                if (storage != walStorage) {
                    storage.close();
                }
            }
        }
        long took = System.nanoTime() - started;
        recoveries.increment();
        recoveryTime.accept(took);
        log.info("Recovered the WAL of fenced broker {} (epoch {}, {}): {} records, data of {} streams committed, "
                + "in {} ms", dead.brokerId(), dead.brokerEpoch(), location, records, streams,
                TimeUnit.NANOSECONDS.toMillis(took));
    }

    /** A block WAL must be a path this broker can open; a WAL in object storage, any URL. */
    private static boolean reachable(String location) {
        if (location.startsWith(WalMarkers.BLOCK)) {
            return java.nio.file.Files.exists(Path.of(location.substring(WalMarkers.BLOCK.length())));
        }
        return location.startsWith(WalMarkers.OBJECT);
    }

    /** The broker's state read back from the controller after the announcement (reads see this broker's writes). */
    private boolean stillFenced(BrokerInfo dead) {
        ClusterImage image = controller.query(new Queries.DescribeCluster(), ClusterImage.class).join();
        return image.brokers().stream().anyMatch(b -> b.brokerId() == dead.brokerId()
                && b.state() == BrokerState.FENCED && b.brokerEpoch() == dead.brokerEpoch());
    }

    private static BlockWalTakeOver takeOverBlock(Path path) {
        BlockWalTakeOver taken;
        try {
            taken = BlockWalTakeOver.tryTakeOver(path, true);
        } catch (IOException e) {
            throw new UncheckedIOException("taking over WAL " + path, e);
        }
        if (taken == null) {
            throw new NotNow("WAL " + path + " is locked (its broker is opening it, or another broker recovers it)");
        }
        return taken;
    }

    private void markRecovered(BrokerInfo dead) {
        controller.submit(new PutKv(WalMarkers.key(WalMarkers.RECOVERED_PREFIX, dead.brokerId()),
                WalMarkers.epochValue(dead.brokerEpoch()))).join();
        recoveredEpochs.merge(dead.brokerId(), dead.brokerEpoch(), Math::max);
    }

    /** A recovery that cannot happen yet for an expected reason: tried again after the backoff, logged without a trace. */
    private static final class NotNow extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotNow(String message) {
            super(message, null, false, false);
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
        try {
            thread.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
