package io.aloft.broker.metrics;

import io.aloft.stream.storage.ObjectStorageStats;
import io.aloft.stream.store.StreamStoreStats;
import io.aloft.wal.WalStats;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The storage troubles an operator must see in the log, one line per interval while they last
 * rather than one per failed request: appends that waited for WAL space (uploads behind ingest),
 * object-storage requests that failed after their retries or needed retries, and failed uploads;
 * and one line when a trouble has cleared. Each line starts with a stable tag ({@code WAL full},
 * {@code Object storage (data)}, ...) followed by {@code key=value} counts for the interval, so log
 * searches and alerts can match it. Reads the same lock-free counters as the meters; never fails
 * the broker (a scheduled task here must not throw: the broker's scheduler treats that as critical).
 *
 * <p>Confined to the scheduler thread that runs {@link #check}.
 */
public final class StorageWarnings {
    private static final Logger log = LoggerFactory.getLogger(StorageWarnings.class);

    /** How often the counters are looked at, and so the longest a trouble goes unlogged. */
    public static final long INTERVAL_MS = 10_000;

    private final WalStats wal;
    private final StreamStoreStats store;
    private final List<Storage> storages = new ArrayList<>();
    private long walWaits;
    private long walTimeouts;
    private long uploadFailures;
    private boolean walTrouble;
    private boolean uploadTrouble;

    /** One object store's counters and what was last seen of them. */
    private static final class Storage {
        final String name;
        final ObjectStorageStats stats;
        long failures;
        long retries;
        boolean trouble;

        Storage(String name, ObjectStorageStats stats) {
            this.name = name;
            this.stats = stats;
            this.failures = total(stats, true);
            this.retries = total(stats, false);
        }
    }

    /**
     * @param walStorage the WAL's object store, or null for a block-device WAL
     */
    public StorageWarnings(WalStats wal, StreamStoreStats store, ObjectStorageStats storage,
            ObjectStorageStats walStorage) {
        this.wal = wal;
        this.store = store;
        walWaits = wal.fullWaits();
        walTimeouts = wal.fullTimeouts();
        uploadFailures = store.uploadFailures();
        storages.add(new Storage("data", storage));
        if (walStorage != null) {
            storages.add(new Storage("wal", walStorage));
        }
    }

    /** Checks every {@link #INTERVAL_MS} on {@code scheduler}. */
    public void start(ScheduledExecutorService scheduler) {
        scheduler.scheduleWithFixedDelay(() -> {
            try {
                check();
            } catch (RuntimeException e) {
                log.debug("Storage warnings check failed", e);
            }
        }, INTERVAL_MS, INTERVAL_MS, TimeUnit.MILLISECONDS);
    }

    /** Logs what changed since the last check; returns the lines logged (level first), for tests. */
    List<String> check() {
        List<String> lines = new ArrayList<>();
        long waits = wal.fullWaits();
        long timeouts = wal.fullTimeouts();
        long newWaits = waits - walWaits;
        long newTimeouts = timeouts - walTimeouts;
        walWaits = waits;
        walTimeouts = timeouts;
        if (newWaits > 0 || newTimeouts > 0) {
            warn(lines, "WAL full: waits=" + newWaits + " timeouts=" + newTimeouts + " interval_s=" + INTERVAL_MS / 1000
                    + " (appends waited for WAL space: uploads to object storage are behind ingest)");
            walTrouble = true;
        } else if (walTrouble) {
            info(lines, "WAL full: cleared (no append waited for space in the last " + INTERVAL_MS / 1000 + " s)");
            walTrouble = false;
        }
        long failures = store.uploadFailures();
        long newUploadFailures = failures - uploadFailures;
        uploadFailures = failures;
        if (newUploadFailures > 0) {
            warn(lines, "Upload failed: failures=" + newUploadFailures + " interval_s=" + INTERVAL_MS / 1000
                    + " (data stays in the WAL and is uploaded again)");
            uploadTrouble = true;
        } else if (uploadTrouble) {
            info(lines, "Upload failed: cleared (uploads succeed again)");
            uploadTrouble = false;
        }
        for (Storage s : storages) {
            checkStorage(s, lines);
        }
        return lines;
    }

    private static void warn(List<String> lines, String line) {
        log.warn(line);
        lines.add("WARN " + line);
    }

    private static void info(List<String> lines, String line) {
        log.info(line);
        lines.add("INFO " + line);
    }

    private void checkStorage(Storage s, List<String> lines) {
        long failures = total(s.stats, true);
        long retries = total(s.stats, false);
        long newFailures = failures - s.failures;
        long newRetries = retries - s.retries;
        if (newFailures > 0 || newRetries > 0) {
            StringBuilder byOperation = new StringBuilder();
            for (ObjectStorageStats.Operation op : ObjectStorageStats.Operation.values()) {
                // Per-operation deltas are not kept; the totals so far tell which operations are involved.
                if (s.stats.failures(op) + s.stats.retries(op) > 0) {
                    byOperation.append(byOperation.isEmpty() ? "" : ",").append(op.name());
                }
            }
            warn(lines, "Object storage (" + s.name + "): failed=" + newFailures + " retried=" + newRetries
                    + " interval_s=" + INTERVAL_MS / 1000 + " operations=" + byOperation
                    + " (requests failed after their retries, or needed retries)");
            s.trouble = true;
        } else if (s.trouble) {
            info(lines, "Object storage (" + s.name + "): cleared (no failed or retried request in the last "
                    + INTERVAL_MS / 1000 + " s)");
            s.trouble = false;
        }
        s.failures = failures;
        s.retries = retries;
    }

    private static long total(ObjectStorageStats stats, boolean failures) {
        long sum = 0;
        for (ObjectStorageStats.Operation op : ObjectStorageStats.Operation.values()) {
            sum += failures ? stats.failures(op) : stats.retries(op);
        }
        return sum;
    }
}
