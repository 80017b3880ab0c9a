package io.aloft.bench.wal;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The time frame of one benchmark cell: a warm-up from {@link #start} to {@link #measureStart},
 * then the measured window up to {@link #measureEnd}. Operations count when they complete inside
 * the window. The coordinating thread also reads process CPU time and the device's counters at
 * both edges of the window.
 *
 * <p>The window fields are final and shared with the cell's threads; the counters are confined
 * to the coordinating thread (the one calling {@link #awaitWindowStart()}).
 */
final class CellClock {
    final long start;
    final long measureStart;
    final long measureEnd;
    private final String device;
    private long cpuAtStart;
    private long cpuAtEnd;
    private DiskStats diskAtStart = DiskStats.NONE;
    private DiskStats diskAtEnd = DiskStats.NONE;

    /** @param device the block device under the measured file system, e.g. {@code /dev/vda} */
    CellClock(BenchOptions.Window window, String device) {
        this.device = device;
        this.start = System.nanoTime();
        this.measureStart = start + TimeUnit.MILLISECONDS.toNanos(window.warmupMs());
        this.measureEnd = measureStart + TimeUnit.MILLISECONDS.toNanos(window.measureMs());
    }

    boolean inWindow(long nanoTime) {
        return nanoTime >= measureStart && nanoTime < measureEnd;
    }

    double windowSeconds() {
        return (measureEnd - measureStart) / 1e9;
    }

    /** Blocks until the measured window opens, then reads the counters. */
    void awaitWindowStart() {
        sleepUntil(measureStart);
        cpuAtStart = processCpuNanos();
        diskAtStart = DiskStats.read(device);
    }

    /** Blocks until the measured window closes, then reads the counters. */
    void awaitWindowEnd() {
        sleepUntil(measureEnd);
        cpuAtEnd = processCpuNanos();
        diskAtEnd = DiskStats.read(device);
    }

    /** Average cores this JVM kept busy during the window. */
    double cpuCores() {
        return cpuAtStart < 0 ? Double.NaN : (cpuAtEnd - cpuAtStart) / 1e9 / windowSeconds();
    }

    /** What the device did during the window (all processes). */
    DiskStats.Activity disk() {
        return diskAtEnd.since(diskAtStart, windowSeconds());
    }

    /** Parks until {@code deadline} (System.nanoTime); coarse, for the coordinating thread only. */
    static void sleepUntil(long deadline) {
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }

    /** CPU time consumed by this JVM so far, all threads, in nanoseconds. */
    private static long processCpuNanos() {
        var os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            return sun.getProcessCpuTime();
        }
        return -1;
    }

}
