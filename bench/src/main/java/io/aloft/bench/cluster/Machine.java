package io.aloft.bench.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** The machine facts a cluster benchmark's report opens with, read from {@code /proc}. Stateless. */
public final class Machine {
    private Machine() {
    }

    /** The three load averages (1 / 5 / 15 min), read now; "unknown" off Linux. */
    public static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " / " + f[1] + " / " + f[2];
        } catch (Exception e) {
            return "unknown";
        }
    }

    /** CPUs, CPU model, memory, OS, JVM and the scratch directory's parent, on one line. */
    public static String describe(Path work) {
        String cpu = "unknown CPU";
        long memKb = 0;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    cpu = line.substring(line.indexOf(':') + 1).trim();
                    break;
                }
            }
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    memKb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (Exception e) {
            // Not Linux: the report says less.
        }
        return String.format(Locale.ROOT, "%d CPUs (%s), %.1f GiB RAM, %s %s, %s %s, scratch on %s",
                Runtime.getRuntime().availableProcessors(), cpu, memKb / 1048576.0, System.getProperty("os.name"),
                System.getProperty("os.version"), System.getProperty("java.vm.name"),
                System.getProperty("java.runtime.version"), work.getParent());
    }
}
