package io.aloft.bench.failover;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Counts one broker's WAL object PUTs from outside the broker, by reading the directory in which
 * versitygw keeps its WAL objects (no change to the broker: {@code ObjectStorageWal} has no PUT
 * counter one can read from another process). The WAL names its objects by a sequence number that
 * grows by one per object stored ({@code ObjectWalFormat}: {@code wal/node-<id>/} and 20 digits), and
 * objects are only deleted once trimmed, never renamed, so the PUTs of records objects in a window
 * are the highest sequence number at its end minus the one at its start. (Fence objects also take
 * numbers, but only a take-over writes them; none happens in the cost phase.) The trim point,
 * object {@code trim}, is PUT once per trim: those are counted by sampling its content every {@value
 * #SAMPLE_MS} ms (a lower bound: two trims between samples count once). The sizes of the objects
 * seen give the mean bytes per PUT (an object created and trimmed between two samples is missed).
 *
 * <p>Confined to its own sampling thread between {@link #start} and {@link #stop}.
 */
final class WalPuts {
    static final long SAMPLE_MS = 100;

    /** One window's counts. */
    record Result(long recordObjects, long trimPuts, long objectsSeen, long bytesSeen) {
        double meanObjectBytes() {
            return objectsSeen == 0 ? Double.NaN : (double) bytesSeen / objectsSeen;
        }
    }

    private final Path dir;
    private final Map<Long, Long> sizes = new HashMap<>();
    private final Thread thread;
    private volatile boolean stopping;
    private long firstSequence = -1;
    private long lastSequence = -1;
    private long lastTrim = Long.MIN_VALUE;
    private long trims;
    private boolean counting;

    WalPuts(Path dir) {
        this.dir = dir;
        this.thread = new Thread(this::run, "wal-put-counter");
    }

    WalPuts start() {
        sample(); // the window's start
        firstSequence = lastSequence;
        sizes.clear();
        counting = true;
        thread.start();
        return this;
    }

    /** Ends the window (one last sample) and returns its counts. */
    Result stop() throws InterruptedException {
        stopping = true;
        thread.join();
        sample();
        long bytes = 0;
        long seen = 0;
        for (Map.Entry<Long, Long> e : sizes.entrySet()) {
            if (e.getKey() > firstSequence) {
                seen++;
                bytes += e.getValue();
            }
        }
        return new Result(lastSequence - firstSequence, trims, seen, bytes);
    }

    private void run() {
        while (!stopping) {
            sample();
            try {
                Thread.sleep(SAMPLE_MS); // sampling another process's files: there is no event to wait for
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void sample() {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> files = Files.list(dir)) {
            files.forEach(f -> {
                String name = f.getFileName().toString();
                if (name.length() == 20 && name.chars().allMatch(Character::isDigit)) {
                    long seq = Long.parseLong(name);
                    lastSequence = Math.max(lastSequence, seq);
                    try {
                        sizes.putIfAbsent(seq, Files.size(f));
                    } catch (IOException e) {
                        // Trimmed meanwhile.
                    }
                } else if (name.equals("trim")) {
                    try {
                        byte[] b = Files.readAllBytes(f);
                        if (b.length == 8) {
                            long trim = ByteBuffer.wrap(b).getLong();
                            if (trim != lastTrim) {
                                if (counting) {
                                    trims++;
                                }
                                lastTrim = trim;
                            }
                        }
                    } catch (IOException e) {
                        // Being replaced: the next sample reads it.
                    }
                }
            });
        } catch (IOException e) {
            // The directory is being changed under us: the next sample sees it.
        }
    }
}
