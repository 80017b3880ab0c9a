package io.aloft.bench.stream;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * A versitygw process owned by the benchmark: loopback only, a fresh data directory, random keys
 * (so nothing else on the host can reach the bucket with known credentials). Stopped by its
 * {@link Process} handle, never by name, so other gateways on the host are left alone.
 */
final class Gateway implements AutoCloseable {
    private final Path dataDir;
    private final Path logFile;
    private final int port;
    private final String accessKey;
    private final String secretKey;
    private final Process process;

    private Gateway(Path dataDir, Path logFile, int port, String accessKey, String secretKey, Process process) {
        this.dataDir = dataDir;
        this.logFile = logFile;
        this.port = port;
        this.accessKey = accessKey;
        this.secretKey = secretKey;
        this.process = process;
    }

    /** The binary from {@code ALOFT_VERSITYGW} or {@code ~/.cache/aloft/bin/versitygw}, or null. */
    static Path findBinary() {
        String configured = System.getenv("ALOFT_VERSITYGW");
        Path path = configured != null && !configured.isBlank() ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".cache", "aloft", "bin", "versitygw");
        return Files.isExecutable(path) ? path : null;
    }

    /** Starts the gateway on a free loopback port with data under {@code base}, and waits until it answers. */
    static Gateway start(Path binary, Path base) throws IOException, InterruptedException {
        Path dataDir = base.resolve("versitygw-data");
        Files.createDirectories(dataDir);
        Path logFile = base.resolve("versitygw.log");
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        SecureRandom random = new SecureRandom();
        String accessKey = "aloftbench" + HexFormat.of().formatHex(random.generateSeed(6));
        String secretKey = HexFormat.of().formatHex(random.generateSeed(16));
        Process process = new ProcessBuilder(binary.toString(), "--access", accessKey, "--secret", secretKey,
                "--port", "127.0.0.1:" + port, "posix", dataDir.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                .start();
        Gateway gateway = new Gateway(dataDir, logFile, port, accessKey, secretKey, process);
        try {
            gateway.awaitReady();
        } catch (IOException | RuntimeException | InterruptedException e) {
            gateway.close();
            throw e;
        }
        return gateway;
    }

    private URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** Polls until the gateway answers HTTP with anything but 503 (it answers 503 while starting). */
    private void awaitReady() throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest probe = HttpRequest.newBuilder(endpoint().resolve("/")).timeout(Duration.ofSeconds(2))
                .GET().build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            if (!process.isAlive()) {
                throw new IOException("versitygw exited with " + process.exitValue() + "; see " + logFile);
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("versitygw not ready in 30 s; see " + logFile);
            }
            try {
                if (http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() != 503) {
                    return;
                }
            } catch (ConnectException e) {
                // not listening yet: poll again
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // polling another process
        }
    }

    /** Creates the bucket with the AWS SDK and returns an {@code ObjectStorages} URL for it. */
    String createBucket(String bucket) {
        try (S3AsyncClient admin = S3AsyncClient.builder().httpClientBuilder(NettyNioAsyncHttpClient.builder())
                .region(Region.US_EAST_1).endpointOverride(endpoint()).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
                .build()) {
            admin.createBucket(r -> r.bucket(bucket)).join();
        }
        return "s3://" + bucket + "?endpoint=" + endpoint() + "&region=us-east-1&pathStyle=true&accessKey="
                + accessKey + "&secretKey=" + secretKey;
    }

    Path dataDir() {
        return dataDir;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }
}
