package io.aloft.bench.failover;

import io.aloft.servers.NodeCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a round's failover time went, read from the surviving brokers' INFO lines (the child JVMs
 * log local wall-clock time on the same host): when the controller leader fenced the dead broker
 * ({@code ControllerServer - Fencing broker N}) and when a live broker had recovered its WAL
 * ({@code WalFailover - Recovered the WAL of fenced broker N ... in M ms}). Only lines after the kill
 * count. Stateless; NaN where a line is missing (the block WAL recovers nothing).
 */
final class LogEvidence {
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss,SSS");

    /** Seconds from the kill; {@code recoveryMs} as the recovering broker logged it. */
    record Breakdown(double fencedSeconds, double walRecoveredSeconds, double recoveryMs) {
    }

    private LogEvidence() {
    }

    static Breakdown read(NodeCluster cluster, int victim, LocalDateTime killedAt) {
        Pattern fenced = Pattern.compile("ControllerServer - Fencing broker " + victim + " \\(");
        Pattern recovered = Pattern.compile("WalFailover - Recovered the WAL of fenced broker " + victim
                + " \\(.* in (\\d+) ms");
        double fence = Double.NaN;
        double wal = Double.NaN;
        double recoveryMs = Double.NaN;
        for (int id : cluster.brokerIds()) {
            if (id == victim) {
                continue;
            }
            for (String line : lines(cluster.logFile(id))) {
                if (line.length() < 23) {
                    continue;
                }
                LocalDateTime at;
                try {
                    at = LocalDateTime.parse(line.substring(0, 23), STAMP);
                } catch (RuntimeException e) {
                    continue; // a stack trace or a wrapped line
                }
                if (at.isBefore(killedAt)) {
                    continue;
                }
                double seconds = Duration.between(killedAt, at).toNanos() / 1e9;
                if (Double.isNaN(fence) && fenced.matcher(line).find()) {
                    fence = seconds;
                }
                Matcher m = recovered.matcher(line);
                if (Double.isNaN(wal) && m.find()) {
                    wal = seconds;
                    recoveryMs = Double.parseDouble(m.group(1));
                }
            }
        }
        return new Breakdown(fence, wal, recoveryMs);
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }
}
