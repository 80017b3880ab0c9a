package io.aloft.wal;

import java.nio.file.Path;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The process {@link WalCrashTest} kills: appends records continuously from several threads and
 * trims behind itself, printing one line per event the moment it is durable:
 * {@code A <offset> <id>} when an append's future completed, {@code R <offset>} just before a trim
 * is requested, {@code T <offset>} when the trim's future completed.
 * It runs until the test ends it with SIGKILL, or until its standard input closes (the test JVM
 * died), so it can never outlive the test.
 *
 * <p>Arguments: WAL path, round number (makes record ids unique across rounds).
 */
public final class WalCrashChild {
    static final long CAPACITY = 4L << 20;
    static final int MAX_BATCH = 64 * 1024;
    static final int APPENDERS = 8;

    private WalCrashChild() {
    }

    static WalConfig config(Path path) {
        return WalConfig.builder().path(path).capacityBytes(CAPACITY).maxBatchBytes(MAX_BATCH).maxInflightWrites(2)
                .appendTimeoutMs(60_000).build();
    }

    /** Body size of record {@code id}: mostly small and odd-sized, sometimes larger than a batch. */
    static int sizeOf(long id) {
        return id % 97 == 0 ? 100_000 : 8 + (int) ((id * 7919) % 20_000);
    }

    public static void main(String[] args) throws Exception {
        Path path = Path.of(args[0]);
        long round = Long.parseLong(args[1]);
        Thread orphanGuard = new Thread(() -> {
            try {
                while (System.in.read() != -1) {
                    // the parent never writes; EOF means it is gone
                }
            } catch (java.io.IOException ignored) {
                // treated as EOF
            }
            Runtime.getRuntime().halt(3);
        }, "orphan-guard");
        orphanGuard.setDaemon(true);
        orphanGuard.start();
        BlockDeviceWal wal = BlockDeviceWal.open(config(path));
        AtomicLong next = new AtomicLong(round << 32);
        ConcurrentSkipListSet<Long> acked = new ConcurrentSkipListSet<>();
        // Recovered records are trim targets too, as they are for a real consumer of the log;
        // without them a run killed early leaves ever more of the ring untrimmed.
        wal.recover().forEachRemaining(r -> acked.add(r.offset()));
        System.out.println("READY");
        for (int t = 0; t < APPENDERS; t++) {
            Thread appender = new Thread(() -> {
                while (true) {
                    long id = next.incrementAndGet();
                    try {
                        long offset = wal.append(WalTestSupport.record(id, sizeOf(id))).get();
                        acked.add(offset);
                        System.out.println("A " + offset + " " + id);
                    } catch (Exception e) {
                        System.out.println("E " + e);
                        return;
                    }
                }
            }, "appender-" + t);
            appender.start();
        }
        long lastTrim = -1;
        while (true) {
            // Trim behind the writers so the ring wraps around many times per run.
            Long target = acked.floor(wal.nextOffset() - CAPACITY / 4);
            if (target != null && target > lastTrim) {
                System.out.println("R " + target);
                try {
                    wal.trim(target).get(60, TimeUnit.SECONDS);
                } catch (Exception e) {
                    System.out.println("E trim " + e);
                    throw e;
                }
                System.out.println("T " + target);
                acked.headSet(target).clear();
                lastTrim = target;
            }
            Thread.sleep(5);
        }
    }
}
