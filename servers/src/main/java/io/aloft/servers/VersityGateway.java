package io.aloft.servers;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * A versitygw (S3 over a local directory) owned by one Aloft run: 127.0.0.1 only, random keys, data
 * under the run's temp directory, stopped by its own process handle.
 *
 * <p>The binary: {@code ALOFT_VERSITYGW} or {@code -Daloft.versitygw}, else
 * {@code ~/.cache/aloft/bin/versitygw}, which {@code scripts/s3-server.sh versitygw} builds.
 *
 * <p>Not thread-safe; {@link #stop()} is idempotent.
 */
final class VersityGateway {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final ChildProcess child;
    private final URI endpoint;
    private final String accessKey;
    private final String secretKey;
    private final Path data;

    private VersityGateway(ChildProcess child, URI endpoint, String accessKey, String secretKey, Path data) {
        this.data = data;
        this.child = child;
        this.endpoint = endpoint;
        this.accessKey = accessKey;
        this.secretKey = secretKey;
    }

    static Path findBinary() throws IOException {
        String configured = System.getProperty("aloft.versitygw", System.getenv("ALOFT_VERSITYGW"));
        Path path = configured != null && !configured.isBlank() ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".cache", "aloft", "bin", "versitygw");
        if (!Files.isExecutable(path)) {
            throw new IOException("versitygw not found at " + path + "; build it with `scripts/s3-server.sh versitygw`"
                    + " or point ALOFT_VERSITYGW at a binary");
        }
        return path;
    }

    /** Starts the gateway with data in {@code dir}, waits until it answers, and creates {@code bucket}. */
    static VersityGateway start(Path dir, String bucket) throws IOException, InterruptedException {
        Path binary = findBinary();
        Path data = Files.createDirectories(dir.resolve("versitygw-data"));
        int port = ChildProcess.freePort();
        SecureRandom random = new SecureRandom();
        String accessKey = "aloftomb" + HexFormat.of().formatHex(random.generateSeed(6));
        String secretKey = HexFormat.of().formatHex(random.generateSeed(16));
        ChildProcess child = ChildProcess.start("versitygw", List.of(binary.toString(), "--access", accessKey,
                "--secret", secretKey, "--port", "127.0.0.1:" + port, "posix", data.toString()),
                dir.resolve("versitygw.log"), Map.of());
        VersityGateway gateway = new VersityGateway(child, URI.create("http://127.0.0.1:" + port), accessKey,
                secretKey, data);
        try {
            gateway.awaitReady();
            gateway.createBucket(bucket);
        } catch (IOException | InterruptedException | RuntimeException e) {
            gateway.stop();
            throw e;
        }
        return gateway;
    }

    /** Polls until the gateway answers HTTP with anything but 503 (it answers 503 while starting). */
    private void awaitReady() throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest probe = HttpRequest.newBuilder(endpoint.resolve("/")).timeout(Duration.ofSeconds(2)).GET().build();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            if (!child.isAlive()) {
                throw new IOException("versitygw exited during start-up; last lines of its log:\n" + child.tail());
            }
            try {
                if (http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() != 503) {
                    return;
                }
            } catch (ConnectException e) {
                // Not listening yet.
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("versitygw not ready in " + START_TIMEOUT.toSeconds() + " s; last lines:\n"
                        + child.tail());
            }
            Thread.sleep(50);
        }
    }

    private void createBucket(String bucket) {
        try (S3AsyncClient admin = S3AsyncClient.builder().httpClientBuilder(NettyNioAsyncHttpClient.builder())
                .region(Region.US_EAST_1).endpointOverride(endpoint).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
                .build()) {
            admin.createBucket(r -> r.bucket(bucket)).join();
        }
    }

    /** The {@code s3.url} for Aloft: the bucket on this gateway, with its keys. */
    String url(String bucket) {
        return "s3://" + bucket + "?endpoint=" + endpoint + "&region=us-east-1&pathStyle=true&accessKey=" + accessKey
                + "&secretKey=" + secretKey;
    }

    /** The posix back end's directory: one sub-directory per bucket, one file per object under it. */
    Path dataDir() {
        return data;
    }

    void stop() {
        child.stop();
    }
}
