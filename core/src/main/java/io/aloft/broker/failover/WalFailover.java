package io.aloft.broker.failover;

import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.command.PutKv;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.query.Queries;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.store.StreamStore;
import io.aloft.stream.store.WalTakeOverReplay;
import io.aloft.stream.wal.ObjectStorageWal;
import io.aloft.stream.wal.ObjectWalConfig;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recovers the WAL of a broker that failed, when WALs live in object storage ({@code wal.url}):
 * what it acknowledged but had not uploaded yet goes into object storage through a live broker,
 * and only then do the new owners of its partitions open them (see {@link #recovered}).
 *
 * <p>When the controller fences a broker (its session lapsed) it moves the broker's partitions at
 * once. The lowest-id active broker then takes the fenced broker's WAL over
 * ({@link ObjectStorageWal#takeOver}: fences it, so a broker that was only paused acknowledges
 * nothing more and stops when it resumes), replays what continues the streams the fenced broker
 * still holds open ({@link WalTakeOverReplay}), records in the controller's key-value space that
 * this incarnation's WAL is recovered ({@value #RECOVERED_PREFIX}&lt;id&gt; = its broker epoch), and
 * deletes the WAL objects it no longer needs. Every step can be repeated: a recovering broker that
 * dies midway leaves the WAL fenced and unreleased, and whoever is lowest active next does it
 * again; a replay finds committed data already committed and commits nothing twice.
 *
 * <p>A fenced broker that registers again (a restart) recovered its own WAL before registering, so
 * it needs no one else.
 *
 * <p>Thread-safe. Works on one thread of its own (a replay blocks for uploads and commits); the
 * partition opens ask {@link #recovered} from theirs.
 */
public final class WalFailover implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WalFailover.class);
    /** Key prefix of the recovery markers in the controller's key-value space. */
    public static final String RECOVERED_PREFIX = "wal.recovered/";
    static final long CHECK_INTERVAL_MS = 200;
    /** After a failed recovery (object storage or the controller unavailable), the pause before the next try. */
    static final long RETRY_BACKOFF_MS = 2_000;

    private final int nodeId;
    private final MetadataCache cache;
    private final ControllerClient controller;
    private final ObjectStorage walStorage;
    private final StreamStore store;
    private final ScheduledExecutorService thread;
    /** The broker epoch whose WAL is known recovered, by broker id (from the markers). */
    private final Map<Integer, Long> recoveredEpochs = new ConcurrentHashMap<>();
    /** No recovery is tried before this (System.nanoTime); only the failover thread uses it. */
    private long retryAfterNanos = System.nanoTime();

    public WalFailover(int nodeId, MetadataCache cache, ControllerClient controller, ObjectStorage walStorage,
            StreamStore store, Thread.UncaughtExceptionHandler uncaught) {
        this.nodeId = nodeId;
        this.cache = cache;
        this.controller = controller;
        this.walStorage = walStorage;
        this.store = store;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "aloft-wal-failover");
            t.setDaemon(true);
            t.setUncaughtExceptionHandler(uncaught);
            return t;
        });
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
            for (BrokerInfo b : brokers.values()) {
                if (b.state() == BrokerState.FENCED && b.brokerId() != nodeId && !recovered(b.brokerId())) {
                    recover(b);
                }
            }
        } catch (RuntimeException e) {
            retryAfterNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RETRY_BACKOFF_MS);
            log.warn("WAL failover pass failed; trying again in {} ms", RETRY_BACKOFF_MS, e);
        }
    }

    private void readMarkers() {
        @SuppressWarnings("unchecked")
        Map<String, byte[]> markers = controller.query(new Queries.GetKvPrefix(RECOVERED_PREFIX), Map.class)
                .join();
        markers.forEach((key, value) -> {
            try {
                int id = Integer.parseInt(key.substring(RECOVERED_PREFIX.length()));
                long epoch = Long.parseLong(new String(value, StandardCharsets.UTF_8));
                recoveredEpochs.merge(id, epoch, Math::max);
            } catch (NumberFormatException | IndexOutOfBoundsException e) {
                log.warn("Ignoring malformed WAL recovery marker {}", key);
            }
        });
    }

    private void recover(BrokerInfo dead) {
        BrokerInfo now = cache.view().brokers().get(dead.brokerId());
        if (now == null || now.state() != BrokerState.FENCED || now.brokerEpoch() != dead.brokerEpoch()) {
            return; // it came back (and recovered its own WAL) or left meanwhile: taking over would fence a live broker
        }
        long started = System.nanoTime();
        String prefix = ObjectWalConfig.prefix(dead.brokerId());
        ObjectStorageWal.TakenOver taken = ObjectStorageWal.takeOver(walStorage, prefix);
        int streams = WalTakeOverReplay.replay(store, dead.brokerId(), taken.records().iterator());
        String epoch = Long.toString(dead.brokerEpoch());
        controller.submit(new PutKv(RECOVERED_PREFIX + dead.brokerId(), epoch.getBytes(StandardCharsets.UTF_8)))
                .join();
        recoveredEpochs.merge(dead.brokerId(), dead.brokerEpoch(), Math::max);
        ObjectStorageWal.release(walStorage, prefix, taken.fenceOffset());
        log.info("Recovered the WAL of fenced broker {} (epoch {}): {} records, data of {} streams committed, in {} ms",
                dead.brokerId(), dead.brokerEpoch(), taken.records().size(), streams,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
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
