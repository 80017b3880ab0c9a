package io.aloft.bench.wal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Counters of one block device from {@code /proc/diskstats}, so each cell can say how busy the
 * device was and how much it wrote. They count every process's I/O: a device writing much more
 * than the benchmark did means another job shared it. Immutable; {@link #NONE} where unavailable.
 *
 * @param ioTicksMs time the device had at least one request in flight
 * @param flushes cache flushes completed (O_DSYNC on a write-back cache without FUA costs one per write)
 */
record DiskStats(boolean known, long writes, long sectorsWritten, long ioTicksMs, long flushes) {
    static final DiskStats NONE = new DiskStats(false, 0, 0, 0, 0);

    /** Reads the counters of {@code device} (e.g. {@code /dev/vda}); {@link #NONE} if not listed. */
    static DiskStats read(String device) {
        String name = device.startsWith("/dev/") ? device.substring(5) : device;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/diskstats"))) {
                String[] f = line.trim().split("\\s+");
                if (f.length >= 14 && f[2].equals(name)) {
                    return new DiskStats(true, Long.parseLong(f[7]), Long.parseLong(f[9]), Long.parseLong(f[12]),
                            f.length >= 19 ? Long.parseLong(f[18]) : 0);
                }
            }
        } catch (IOException | RuntimeException e) {
            return NONE;
        }
        return NONE;
    }

    /** What the device did over {@code seconds}, from {@code before} to this reading. */
    Activity since(DiskStats before, double seconds) {
        if (!known || !before.known) {
            return Activity.UNKNOWN;
        }
        return new Activity((ioTicksMs - before.ioTicksMs) / 1000.0 / seconds,
                (sectorsWritten - before.sectorsWritten) * 512.0 / seconds / 1e6,
                (writes - before.writes) / seconds, (flushes - before.flushes) / seconds);
    }

    /**
     * Device activity over a window (all processes).
     *
     * @param utilization fraction of the window with a request in flight (1.0 = never idle)
     */
    record Activity(double utilization, double mbPerSec, double writesPerSec, double flushesPerSec) {
        static final Activity UNKNOWN = new Activity(Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }
}
