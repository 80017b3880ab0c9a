package io.aloft.compat;

import io.aloft.servers.ChildBroker;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The part of a child broker's log written during one run, quoted when the run fails. The log is
 * the one file of the broker's last start attempt ({@code <dir>/attempt-N/<name>.log}); a
 * {@link ChildBroker#restart()} appends to it. Immutable.
 *
 * @param file the log, or null when none was found (the broker did not start)
 * @param start its size when the run began
 */
record BrokerLog(Path file, long start) {

    /** Marks where {@code broker}'s log ({@code <name>.log}) ends now. */
    static BrokerLog mark(ChildBroker broker, String name) throws IOException {
        Path file = find(broker, name).orElse(null);
        return new BrokerLog(file, file == null ? 0 : size(file));
    }

    /** The last {@code maxLines} lines written since {@link #mark}. */
    String since(int maxLines) {
        return file == null ? "(no broker log found)" : since(file, start, maxLines);
    }

    static Optional<Path> find(ChildBroker broker, String name) throws IOException {
        Path dir = broker.directory();
        if (dir == null || !Files.isDirectory(dir)) {
            return Optional.empty();
        }
        try (Stream<Path> files = Files.walk(dir, 2)) {
            return files.filter(f -> f.getFileName().toString().equals(name + ".log")).sorted().reduce(
                    (first, second) -> second); // the last start attempt's
        }
    }

    static long size(Path log) {
        try {
            return Files.size(log);
        } catch (IOException e) {
            return 0;
        }
    }

    /** The last {@code maxLines} lines written to {@code log} after byte {@code start}. */
    static String since(Path log, long start, int maxLines) {
        try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
            long length = file.length();
            byte[] bytes = new byte[(int) Math.min(Math.max(0, length - start), 4 << 20)];
            file.seek(length - bytes.length);
            file.readFully(bytes);
            List<String> lines = new String(bytes, StandardCharsets.UTF_8).lines().toList();
            return lines.isEmpty() ? "(nothing)"
                    : String.join("\n", lines.subList(Math.max(0, lines.size() - maxLines), lines.size()));
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }
}
