package io.aloft.bench.wal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What the numbers were measured on: CPU count and model, memory, kernel, the file system holding
 * the benchmark directory (from {@code /proc/mounts}: longest mount point containing it), JDK and
 * load average. Immutable; fields the host does not expose read "unknown".
 */
record MachineInfo(int cpus, String cpuModel, long memoryBytes, String kernel, String fsType, String fsDevice,
        String mountPoint, String jdk, String loadAverage) {

    static MachineInfo probe(Path dir) {
        String[] mount = mountOf(dir);
        return new MachineInfo(Runtime.getRuntime().availableProcessors(), readCpuModel(), readMemTotal(),
                firstLine(Path.of("/proc/sys/kernel/osrelease")), mount[2], mount[0], mount[1],
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
                currentLoadAverage());
    }

    /** The three load averages from {@code /proc/loadavg}, read now. */
    static String currentLoadAverage() {
        String line = firstLine(Path.of("/proc/loadavg"));
        String[] f = line.split("\\s+");
        return f.length >= 3 ? f[0] + " " + f[1] + " " + f[2] : line;
    }

    private static String readCpuModel() {
        for (String line : lines(Path.of("/proc/cpuinfo"))) {
            if (line.startsWith("model name")) {
                return line.substring(line.indexOf(':') + 1).trim();
            }
        }
        return "unknown";
    }

    private static long readMemTotal() {
        for (String line : lines(Path.of("/proc/meminfo"))) {
            if (line.startsWith("MemTotal:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
            }
        }
        return -1;
    }

    /** {device, mount point, fs type} of the mount holding {@code dir}. */
    private static String[] mountOf(Path dir) {
        String[] best = {"unknown", "unknown", "unknown"};
        Path real;
        try {
            real = dir.toRealPath();
        } catch (IOException e) {
            return best;
        }
        int bestLength = -1;
        for (String line : lines(Path.of("/proc/mounts"))) {
            String[] f = line.split(" ");
            if (f.length < 3) {
                continue;
            }
            String mountPoint = f[1].replace("\\040", " ");
            if (real.startsWith(Path.of(mountPoint)) && mountPoint.length() > bestLength) {
                bestLength = mountPoint.length();
                best = new String[] {f[0], mountPoint, f[2]};
            }
        }
        return best;
    }

    private static String firstLine(Path p) {
        List<String> l = lines(p);
        return l.isEmpty() ? "unknown" : l.get(0).trim();
    }

    private static List<String> lines(Path p) {
        try {
            return Files.readAllLines(p);
        } catch (IOException e) {
            return List.of();
        }
    }
}
