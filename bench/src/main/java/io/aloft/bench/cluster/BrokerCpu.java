package io.aloft.bench.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time of another process, from Linux's {@code /proc/<pid>/stat}: user plus system time of all
 * its threads, in seconds: the broker-CPU figure of the fetch and CPU-per-byte benchmarks. Stateless.
 */
public final class BrokerCpu {
    /** Clock ticks per second ({@code getconf CLK_TCK}), read once. */
    private static final long TICKS_PER_SECOND = ticksPerSecond();

    private BrokerCpu() {
    }

    public static double seconds(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
        // The command name (field 2) is in parentheses and may hold spaces: fields count from after it.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long utime = Long.parseLong(f[11]); // field 14
        long stime = Long.parseLong(f[12]); // field 15
        return (utime + stime) / (double) TICKS_PER_SECOND;
    }

    private static long ticksPerSecond() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            try (InputStream in = p.getInputStream()) {
                String out = new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
                p.waitFor();
                return Long.parseLong(out);
            }
        } catch (IOException | NumberFormatException e) {
            return 100; // Linux's USER_HZ on every common architecture
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}
