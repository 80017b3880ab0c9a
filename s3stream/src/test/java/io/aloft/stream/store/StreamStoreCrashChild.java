package io.aloft.stream.store;

import io.aloft.stream.Stream;
import io.aloft.stream.metadata.CreateStreamRequest;
import io.aloft.stream.metadata.MemoryStreamMetadata;
import io.aloft.stream.metadata.OpenStreamRequest;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorages;
import io.aloft.wal.BlockDeviceWal;
import io.aloft.wal.WalConfig;
import io.aloft.wal.WriteAheadLog;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The process {@link StreamStoreCrashTest} kills: a {@link StreamStore} on a WAL file and a
 * {@code file://} object store, appending to {@link #STREAMS} streams from {@link #APPENDERS}
 * threads (two per stream, a few appends in flight each). Uploads never happen during its life
 * (the size and age thresholds are out of reach), so everything it acknowledges lives only in the
 * WAL, and its metadata holds nothing but the streams it created and opened with epoch 1 — which
 * the test rebuilds with the same calls ({@link #createAndOpen}) to recover.
 *
 * <p>Output, one line per event, the moment it happened: {@code S <index> <streamId>} for each
 * stream created, {@code READY}, then {@code A <streamId> <baseOffset> <count> <seed>} when an
 * append's future completed, or {@code E <error>} when one failed. The payload and count of an
 * append are functions of its seed ({@link #payload}, {@link #countOf}); the seed also names the
 * stream ({@link #streamIndexOf}).
 *
 * <p>It runs until SIGKILL, or until its standard input closes (the test JVM died).
 * Arguments: WAL path, object directory, round number (makes seeds unique across rounds).
 */
public final class StreamStoreCrashChild {
    static final int STREAMS = 4;
    static final int APPENDERS = 8;
    static final int IN_FLIGHT_PER_APPENDER = 4;
    static final int NODE_ID = 7;
    /** The appenders stop here, well below the upload threshold: a slow kill must not cause an upload. */
    static final long MAX_APPENDED_BYTES = 32L << 20;

    private StreamStoreCrashChild() {
    }

    static WalConfig walConfig(Path path) {
        return WalConfig.builder().path(path).capacityBytes(128L << 20).appendTimeoutMs(60_000).build();
    }

    /** Nothing is sealed by size or age while the child lives: acknowledged data is only in the WAL. */
    static StreamStoreConfig storeConfig() {
        return StreamStoreConfig.builder(NODE_ID).uploadThresholdBytes(64L << 20).logCacheSizeBytes(64L << 20)
                .uploadIntervalMs(3_600_000).splitThresholdBytes(256 * 1024).objectBlockSizeBytes(16 * 1024)
                .build();
    }

    /**
     * Rebuilds the child's metadata: creates {@link #STREAMS} streams and opens each with epoch 1,
     * as the child does through its store; returns their ids in order.
     */
    static List<Long> createAndOpen(MemoryStreamMetadata metadata) {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < STREAMS; i++) {
            long id = metadata.createStream(new CreateStreamRequest(NODE_ID)).join();
            metadata.openStream(new OpenStreamRequest(id, 1, NODE_ID)).join();
            ids.add(id);
        }
        return ids;
    }

    static long seed(long round, int appender, long n) {
        return (round << 40) | ((long) appender << 32) | n;
    }

    static int streamIndexOf(long seed) {
        return (int) ((seed >>> 32) & 0xff) % STREAMS;
    }

    static int countOf(long seed) {
        return 1 + (int) Long.remainderUnsigned(seed * 0x9E3779B97F4A7C15L >>> 7, 7);
    }

    /** The payload of the append with {@code seed}: the seed, then bytes derived from it; 8 to ~9 KB. */
    static ByteBuffer payload(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int size = r.nextInt(8) == 0 ? 8 + r.nextInt(9000) : 8 + r.nextInt(1500);
        ByteBuffer b = ByteBuffer.allocate(size);
        b.putLong(seed);
        while (b.hasRemaining()) {
            b.put((byte) r.nextInt());
        }
        return b.flip();
    }

    public static void main(String[] args) throws Exception {
        Path walPath = Path.of(args[0]);
        Path objects = Path.of(args[1]);
        long round = Long.parseLong(args[2]);
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

        MemoryStreamMetadata metadata = new MemoryStreamMetadata();
        ObjectStorage storage = ObjectStorages.open(objects.toUri().toString());
        WriteAheadLog wal = BlockDeviceWal.open(walConfig(walPath));
        StreamStore store = StreamStore.open(storeConfig(), wal, storage, metadata);
        // The same create and open calls createAndOpen makes, through the store so it holds the handles.
        List<Stream> streams = new ArrayList<>();
        for (int i = 0; i < STREAMS; i++) {
            long id = store.createStream().get();
            streams.add(store.openStream(id, 1).get());
            System.out.println("S " + i + " " + id);
        }
        System.out.println("READY");
        AtomicLong appended = new AtomicLong();
        for (int t = 0; t < APPENDERS; t++) {
            int appender = t;
            Stream stream = streams.get(streamIndexOf(seed(round, appender, 0)));
            Thread thread = new Thread(() -> {
                Semaphore inFlight = new Semaphore(IN_FLIGHT_PER_APPENDER);
                for (long n = 0; appended.get() < MAX_APPENDED_BYTES; n++) {
                    long seed = seed(round, appender, n);
                    appended.addAndGet(payload(seed).remaining());
                    inFlight.acquireUninterruptibly();
                    stream.append(payload(seed), countOf(seed)).whenComplete((base, error) -> {
                        inFlight.release();
                        if (error != null) {
                            System.out.println("E " + seed + " " + error);
                        } else {
                            System.out.println("A " + stream.streamId() + " " + base + " " + countOf(seed) + " " + seed);
                        }
                    });
                }
                System.out.println("STOPPED at " + appended.get() + " bytes");
            }, "appender-" + t);
            thread.start();
        }
        Thread.currentThread().join(); // until killed
    }
}
