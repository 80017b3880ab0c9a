package io.aloft.stream.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.aloft.stream.FetchResult;
import io.aloft.stream.Stream;
import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.metadata.MemoryStreamMetadata;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorages;
import io.aloft.wal.BlockDeviceWal;
import io.aloft.wal.WalConfig;
import io.aloft.wal.WriteAheadLog;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * Takes the S3 server away while the store is appending, and brings it back.
 *
 * <p>Runs its own versitygw process (the shared {@code S3Server} cannot be stopped and restarted),
 * from {@code -Daloft.versitygw} / {@code ALOFT_VERSITYGW} or {@code ~/.cache/aloft/bin/versitygw};
 * the test is skipped when there is none. The data directory is under {@code target/} (versitygw's
 * posix backend needs extended attributes, which a tmpfs {@code /tmp} may lack), and the process
 * is stopped through its own {@link Process} handle.
 */
class StreamStoreOutageTest {
    private static final int STREAMS = 4;
    private static final long OUTAGE_MS = 3_000;

    @TempDir
    Path dir;

    private Gateway gateway;

    @AfterEach
    void tearDown() throws IOException {
        if (gateway != null) {
            gateway.close();
        }
    }

    @Test
    void s3Outage_appendsKeepSucceeding_uploadsResumeAfterRestart() throws Exception {
        Path binary = findVersitygw();
        assumeTrue(binary != null, "no versitygw binary (set ALOFT_VERSITYGW or run scripts/s3-server.sh versitygw)");
        gateway = new Gateway(binary);
        gateway.start();
        String url = gateway.createBucket("aloft-outage");

        long seed = Long.getLong("aloft.outage.seed", System.nanoTime());
        Random random = new Random(seed);
        String when = " (seed " + seed + ")";
        MemoryStreamMetadata metadata = new MemoryStreamMetadata();
        StreamStoreConfig config = StreamStoreConfig.builder(1).uploadThresholdBytes(64 * 1024)
                .logCacheSizeBytes(32 << 20).uploadIntervalMs(60_000).splitThresholdBytes(32 * 1024)
                .objectBlockSizeBytes(16 * 1024).build();
        Map<Long, TreeMap<Long, ByteBuffer>> model = new HashMap<>();
        List<Long> ids = new ArrayList<>();
        try (ObjectStorage storage = ObjectStorages.open(url);
                WriteAheadLog wal = BlockDeviceWal.open(WalConfig.builder().path(dir.resolve("a.wal"))
                        .capacityBytes(64 << 20).build());
                StreamStore store = StreamStore.open(config, wal, storage, metadata)) {
            List<Stream> streams = new ArrayList<>();
            for (int i = 0; i < STREAMS; i++) {
                Stream s = store.openStream(store.createStream().get(), 1).get();
                streams.add(s);
                ids.add(s.streamId());
                model.put(s.streamId(), new TreeMap<>());
            }
            appendRound(streams, 100, random, model);
            store.flush().get(30, TimeUnit.SECONDS);
            assertEquals(0, store.pendingUploadBytes());

            // Outage: appends are acknowledged from the WAL; uploads stall and retry.
            gateway.stop();
            long outageEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(OUTAGE_MS);
            int duringOutage = 0;
            while (System.nanoTime() < outageEnd) {
                appendRound(streams, 1, random, model);
                duringOutage += STREAMS;
                // Pacing (not a wait for a condition): about 1 MB/s, so the outage stays far below the
                // WAL's and the log cache's capacity, and uploads are not flooded with blocks.
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(4));
            }
            assertTrue(store.pendingUploadBytes() > config.uploadThresholdBytes(),
                    "uploads stalled during the outage: " + store.pendingUploadBytes() + " bytes pending" + when);
            CompletableFuture<Void> flushDuringOutage = store.flush();
            assertFalse(flushDuringOutage.isDone(), "nothing can be committed while S3 is down" + when);

            gateway.start(); // same port, same data
            appendRound(streams, 100, random, model);
            store.flush().get(30, TimeUnit.SECONDS);
            assertTrue(flushDuringOutage.isDone(), "the flush issued during the outage completed" + when);
            assertEquals(0, store.pendingUploadBytes(), "every upload resumed and committed" + when);
            for (Stream s : streams) {
                assertEquals(s.nextOffset(), metadata.describeStream(s.streamId()).get().endOffset(), when);
            }
            assertTrue(duringOutage > 0, "appended during the outage");
        }

        // A new store, WAL and S3 client: everything comes back from S3.
        try (ObjectStorage storage = ObjectStorages.open(url);
                WriteAheadLog wal = BlockDeviceWal.open(WalConfig.builder().path(dir.resolve("b.wal"))
                        .capacityBytes(64 << 20).build());
                StreamStore store = StreamStore.open(config, wal, storage, metadata)) {
            for (long id : ids) {
                Stream s = store.openStream(id, 2).get();
                TreeMap<Long, ByteBuffer> expected = model.get(id);
                long next = 0;
                int batches = 0;
                while (next < s.confirmOffset()) {
                    FetchResult r = s.fetch(next, Long.MAX_VALUE, 256 * 1024).get(30, TimeUnit.SECONDS);
                    assertFalse(r.batches().isEmpty(), "data at " + next + " of " + s + when);
                    for (StreamRecordBatch b : r.batches()) {
                        assertEquals(next, b.baseOffset(), "contiguous " + s + when);
                        assertEquals(expected.get(next), b.payloadView(), "batch at " + next + " of " + s + when);
                        next = b.lastOffsetExclusive();
                        batches++;
                    }
                }
                assertEquals(expected.size(), batches, "every acknowledged batch of " + s + when);
                long expectedEnd = expected.lastKey() + 1; // one record per batch
                assertEquals(expectedEnd, s.confirmOffset(), when);
            }
        }
    }

    /**
     * Appends {@code perStream} batches of random size to each stream, pipelined, and waits for
     * every acknowledgement (each must succeed); records them in the model.
     */
    private static void appendRound(List<Stream> streams, int perStream, Random random,
            Map<Long, TreeMap<Long, ByteBuffer>> model) throws Exception {
        List<CompletableFuture<Long>> futures = new ArrayList<>();
        List<Long> expectedBases = new ArrayList<>();
        List<ByteBuffer> payloads = new ArrayList<>();
        for (int i = 0; i < perStream; i++) {
            for (Stream s : streams) {
                byte[] bytes = new byte[1 + random.nextInt(2000)];
                random.nextBytes(bytes);
                expectedBases.add(s.nextOffset());
                payloads.add(ByteBuffer.wrap(bytes));
                futures.add(s.append(ByteBuffer.wrap(bytes), 1));
            }
        }
        int k = 0;
        for (int i = 0; i < perStream; i++) {
            for (Stream s : streams) {
                long base = futures.get(k).get(10, TimeUnit.SECONDS);
                assertEquals(expectedBases.get(k), base);
                model.get(s.streamId()).put(base, payloads.get(k));
                k++;
            }
        }
    }

    private static Path findVersitygw() {
        String configured = System.getProperty("aloft.versitygw", System.getenv("ALOFT_VERSITYGW"));
        Path path = configured != null && !configured.isBlank() ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".cache", "aloft", "bin", "versitygw");
        return Files.isExecutable(path) ? path : null;
    }

    /** A versitygw process that can be stopped and started again on the same port and data. */
    private static final class Gateway implements AutoCloseable {
        private final Path binary;
        private final Path dataDir;
        private final Path logFile;
        private final int port;
        private final String accessKey = "aloftoutage" + Long.toHexString(System.nanoTime());
        private final String secretKey = Long.toHexString(new Random().nextLong()) + "secret";
        private Process process;

        Gateway(Path binary) throws IOException {
            this.binary = binary;
            Path base = Path.of(System.getProperty("aloft.test.logdir", "target")).toAbsolutePath()
                    .resolve("s3-outage");
            Files.createDirectories(base);
            this.dataDir = Files.createTempDirectory(base, "versitygw-");
            this.logFile = base.resolve(dataDir.getFileName() + ".log");
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                this.port = socket.getLocalPort();
            }
        }

        URI endpoint() {
            return URI.create("http://127.0.0.1:" + port);
        }

        void start() throws IOException, InterruptedException {
            process = new ProcessBuilder(binary.toString(), "--access", accessKey, "--secret", secretKey, "--port",
                    "127.0.0.1:" + port, "posix", dataDir.toString())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                    .start();
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            HttpRequest probe = HttpRequest.newBuilder(endpoint().resolve("/")).timeout(Duration.ofSeconds(2))
                    .GET().build();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (true) {
                assertTrue(process.isAlive(), "versitygw exited; see " + logFile);
                assertTrue(System.nanoTime() < deadline, "versitygw not ready in 30 s; see " + logFile);
                try {
                    if (http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() != 503) {
                        return;
                    }
                } catch (ConnectException e) {
                    // not listening yet
                } catch (IOException e) {
                    // reset while starting
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // polling another process
            }
        }

        String createBucket(String bucket) {
            try (S3AsyncClient admin = S3AsyncClient.builder()
                    .httpClientBuilder(NettyNioAsyncHttpClient.builder()).region(Region.US_EAST_1).endpointOverride(endpoint())
                    .forcePathStyle(true).credentialsProvider(StaticCredentialsProvider.create(
                            AwsBasicCredentials.create(accessKey, secretKey))).build()) {
                admin.createBucket(r -> r.bucket(bucket)).join();
            }
            return "s3://" + bucket + "?endpoint=" + endpoint() + "&region=us-east-1&pathStyle=true&accessKey="
                    + accessKey + "&secretKey=" + secretKey;
        }

        void stop() throws InterruptedException {
            if (process != null) {
                process.destroyForcibly();
                assertTrue(process.waitFor(10, TimeUnit.SECONDS), "versitygw stopped");
                process = null;
            }
        }

        @Override
        public void close() throws IOException {
            if (process != null) {
                process.destroyForcibly();
                process = null;
            }
            try (java.util.stream.Stream<Path> walk = Files.walk(dataDir)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
