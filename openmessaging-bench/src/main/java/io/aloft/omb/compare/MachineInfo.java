package io.aloft.omb.compare;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The machine a comparison ran on, for the report: figures from two machines do not compare.
 * Read from {@code /proc} on Linux; "unknown" where a source is missing. Immutable.
 *
 * @param disk the file system holding the brokers' data (device, type)
 * @param gitRev {@code ALOFT_GIT_REV} (the script sets it, with {@code +dirty}), else {@code git rev-parse}
 */
public record MachineInfo(String cpuModel, int cpus, String memory, String os, String jdk, String disk,
        String date, String gitRev) {

    /** Describes this machine, with {@code dataDir} as the brokers' disk. */
    public static MachineInfo detect(Path dataDir) {
        List<String> cpuinfo = lines(Path.of("/proc/cpuinfo"));
        String model = cpuinfo.stream().filter(l -> l.startsWith("model name")).findFirst()
                .map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse("unknown");
        long cpus = cpuinfo.stream().filter(l -> l.startsWith("processor")).count();
        String memory = lines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal:")).findFirst()
                .map(l -> String.format("%.1f GiB", Long.parseLong(l.replaceAll("[^0-9]", "")) / 1024.0 / 1024.0))
                .orElse("unknown");
        String os = System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch");
        String jdk = System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");
        return new MachineInfo(model, cpus > 0 ? (int) cpus : Runtime.getRuntime().availableProcessors(), memory, os,
                jdk, describeDisk(dataDir), ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME),
                detectGitRev());
    }

    /** Markdown lines for the report's header. */
    public String toMarkdown() {
        return "- CPU: " + cpuModel + ", " + cpus + " logical CPUs (brokers and clients share them)\n"
                + "- Memory: " + memory + "\n"
                + "- OS: " + os + "\n"
                + "- JDK: " + jdk + "\n"
                + "- Broker data on: " + disk + "\n"
                + "- Date: " + date + "\n"
                + "- Aloft revision: " + gitRev + "\n";
    }

    private static String describeDisk(Path dir) {
        try {
            Path existing = dir.toAbsolutePath();
            while (existing != null && !Files.exists(existing)) {
                existing = existing.getParent();
            }
            if (existing == null) {
                return "unknown";
            }
            FileStore store = Files.getFileStore(existing);
            return dir.toAbsolutePath() + " (" + store.name() + ", " + store.type() + ")";
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    private static String detectGitRev() {
        String env = System.getenv("ALOFT_GIT_REV");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            Process git = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").redirectErrorStream(true).start();
            if (!git.waitFor(5, TimeUnit.SECONDS)) {
                git.destroyForcibly();
                return "unknown";
            }
            String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return git.exitValue() == 0 && !out.isEmpty() ? out : "unknown";
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return List.of();
        }
    }
}
