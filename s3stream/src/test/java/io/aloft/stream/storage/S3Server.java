package io.aloft.stream.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * A real S3-protocol server process for tests: versitygw (default) or MinIO, on 127.0.0.1 and a
 * free port, with random keys and a fresh data directory under {@code target/}. Its output goes
 * to a log file next to the data, not to the console. {@link #close()} stops the process through
 * its own {@link Process} handle and deletes the data. {@link #stop()} and {@link #restart()}
 * simulate an outage: the process goes away and comes back on the same port, data and keys.
 * Thread-safe for {@link #createBucket}; one thread drives stop and restart.
 *
 * <p>The binary comes from {@code ALOFT_VERSITYGW} / {@code -Daloft.versitygw} (or
 * {@code ALOFT_MINIO} / {@code -Daloft.minio}), else {@code ~/.cache/aloft/bin}, else
 * {@code scripts/s3-server.sh} builds it (minutes, once per machine).
 */
public final class S3Server implements AutoCloseable {

    /** Which server to run. */
    public enum Kind { VERSITYGW, MINIO }

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(20);

    private final Kind kind;
    /** The running server; replaced by {@link #restart()}. */
    private volatile Process process;
    private final List<String> command;
    private final Map<String, String> environment;
    private final Path dataDir;
    private final Path logFile;
    private final URI endpoint;
    private final String accessKey;
    private final String secretKey;
    private final S3AsyncClient admin;
    private final Thread shutdownHook;

    private S3Server(Kind kind, Process process, List<String> command, Map<String, String> environment,
                     Path dataDir, Path logFile, URI endpoint, String accessKey, String secretKey) {
        this.kind = kind;
        this.process = process;
        this.command = List.copyOf(command);
        this.environment = Map.copyOf(environment);
        this.dataDir = dataDir;
        this.logFile = logFile;
        this.endpoint = endpoint;
        this.accessKey = accessKey;
        this.secretKey = secretKey;
        this.admin = S3AsyncClient.builder()
                .httpClientBuilder(NettyNioAsyncHttpClient.builder())
                .region(Region.US_EAST_1)
                .endpointOverride(endpoint)
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
                .build();
        // A JVM killed before the extension store closes must not leave the server running.
        this.shutdownHook = new Thread(() -> this.process.destroyForcibly(), "aloft-s3-server-reaper");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** The kind chosen by {@code -Daloft.test.s3=versitygw|minio} (default versitygw). */
    public static Kind configuredKind() {
        String value = System.getProperty("aloft.test.s3", "versitygw").trim().toLowerCase(Locale.ROOT);
        switch (value) {
            case "versitygw":
            case "":
                return Kind.VERSITYGW;
            case "minio":
                return Kind.MINIO;
            default:
                throw new IllegalArgumentException("-Daloft.test.s3=" + value + ": expected versitygw or minio");
        }
    }

    /** Starts a server of {@code kind}, building its binary first if needed. */
    public static S3Server start(Kind kind) {
        Path binary = findBinary(kind);
        Path baseDir = Path.of(System.getProperty("aloft.test.logdir", "target")).toAbsolutePath().resolve("s3-server");
        IOException lastFailure = null;
        // A free port can be taken between our probe and the server's bind; try a few.
        for (int attempt = 1; attempt <= 3; attempt++) {
            try {
                return tryStart(kind, binary, baseDir);
            } catch (IOException e) {
                lastFailure = e;
            }
        }
        throw new UncheckedIOException("could not start " + kind + " from " + binary, lastFailure);
    }

    private static S3Server tryStart(Kind kind, Path binary, Path baseDir) throws IOException {
        int port = freePort();
        String accessKey = "aloft" + randomHex(8);
        String secretKey = randomHex(20);
        Files.createDirectories(baseDir);
        Path dataDir = Files.createTempDirectory(baseDir, kind.name().toLowerCase(Locale.ROOT) + "-" + port + "-");
        Path logFile = baseDir.resolve(dataDir.getFileName() + ".log");
        List<String> command = new ArrayList<>();
        command.add(binary.toString());
        ProcessBuilder builder = new ProcessBuilder(command);
        Map<String, String> environment = new HashMap<>();
        if (kind == Kind.VERSITYGW) {
            command.addAll(List.of("--access", accessKey, "--secret", secretKey, "--port", "127.0.0.1:" + port,
                    "posix", dataDir.toString()));
        } else {
            int consolePort = freePort();
            command.addAll(List.of("server", dataDir.toString(), "--address", "127.0.0.1:" + port,
                    "--console-address", "127.0.0.1:" + consolePort));
            environment.put("MINIO_ROOT_USER", accessKey);
            environment.put("MINIO_ROOT_PASSWORD", secretKey);
            environment.put("MINIO_UPDATE", "off");
        }
        builder.environment().putAll(environment);
        builder.command(command).redirectErrorStream(true).redirectOutput(logFile.toFile());
        Process process = builder.start();
        URI endpoint = URI.create("http://127.0.0.1:" + port);
        try {
            awaitReady(process, endpoint, logFile);
        } catch (IOException | RuntimeException e) {
            stop(process);
            deleteRecursively(dataDir);
            throw e;
        }
        return new S3Server(kind, process, command, environment, dataDir, logFile, endpoint, accessKey, secretKey);
    }

    /**
     * Stops the server process (SIGTERM, then SIGKILL after 10 s) but keeps its data, port and keys
     * for {@link #restart()}: an object-storage outage. Clients see refused connections meanwhile.
     */
    public void stop() {
        stop(process);
    }

    /**
     * Starts the server again after {@link #stop()} on the same port, data directory and keys, and
     * returns once it answers. Its output is appended to the same log file.
     */
    public void restart() {
        if (process.isAlive()) {
            throw new IllegalStateException("the S3 server is running: " + this);
        }
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
            builder.environment().putAll(environment);
            Process started = builder.start();
            process = started;
            awaitReady(started, endpoint, logFile);
        } catch (IOException e) {
            throw new UncheckedIOException("could not restart " + this, e);
        }
    }

    /** Whether the server process runs (false between {@link #stop()} and {@link #restart()}). */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Polls until the server answers HTTP with anything but 503 (MinIO answers 503 while it
     * initializes). Polling is the only way to learn when another process is ready.
     */
    private static void awaitReady(Process process, URI endpoint, Path logFile) throws IOException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest probe = HttpRequest.newBuilder(endpoint.resolve("/")).timeout(Duration.ofSeconds(2)).GET().build();
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("S3 server exited with " + process.exitValue() + " during startup; log "
                        + logFile + ":\n" + tail(logFile));
            }
            try {
                if (http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() != 503) {
                    return;
                }
            } catch (ConnectException e) {
                // Not listening yet.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted waiting for the S3 server", e);
            } catch (IOException e) {
                // Connection reset or timed out while it starts; poll again.
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted waiting for the S3 server", e);
            }
        }
        throw new IOException("S3 server at " + endpoint + " not ready after " + STARTUP_TIMEOUT + "; log " + logFile
                + ":\n" + tail(logFile));
    }

    /** Creates a bucket and returns its {@code s3://} URL for {@link ObjectStorages#open}. */
    public String createBucket(String bucket) {
        admin.createBucket(r -> r.bucket(bucket)).join();
        return url(bucket);
    }

    /** The {@code s3://} URL of an existing bucket on this server, with this server's keys. */
    public String url(String bucket) {
        return "s3://" + bucket + "?endpoint=" + endpoint + "&region=us-east-1&pathStyle=true&accessKey=" + accessKey
                + "&secretKey=" + secretKey;
    }

    public Kind kind() {
        return kind;
    }

    public URI endpoint() {
        return endpoint;
    }

    public String accessKey() {
        return accessKey;
    }

    public String secretKey() {
        return secretKey;
    }

    public Path logFile() {
        return logFile;
    }

    @Override
    public void close() {
        admin.close();
        stop(process);
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // Already shutting down; the hook is harmless.
        }
        deleteRecursively(dataDir);
    }

    private static void stop(Process process) {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    // ---- finding or building the binary -------------------------------------------------

    static Path findBinary(Kind kind) {
        String name = kind.name().toLowerCase(Locale.ROOT);
        String configured = System.getProperty("aloft." + name, System.getenv("ALOFT_" + kind.name()));
        if (configured != null && !configured.isBlank()) {
            Path path = Path.of(configured);
            if (!Files.isExecutable(path)) {
                throw new IllegalStateException("ALOFT_" + kind.name() + " / -Daloft." + name + " points at " + path
                        + ", which is not an executable file");
            }
            return path;
        }
        Path cached = Path.of(System.getProperty("user.home"), ".cache", "aloft", "bin", name);
        if (Files.isExecutable(cached)) {
            return cached;
        }
        return build(kind, name);
    }

    private static Path build(Kind kind, String name) {
        Path script = findScript();
        Path log = Path.of(System.getProperty("aloft.test.logdir", "target")).toAbsolutePath()
                .resolve("s3-server-build-" + name + ".log");
        try {
            Files.createDirectories(log.getParent());
            Path out = Files.createTempFile(log.getParent(), "s3-server-path", ".txt");
            Process p = new ProcessBuilder("bash", script.toString(), name)
                    .redirectOutput(out.toFile()).redirectError(log.toFile()).start();
            if (!p.waitFor(BUILD_TIMEOUT.toMinutes(), TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IllegalStateException(script + " " + name + " took over " + BUILD_TIMEOUT + "; see " + log);
            }
            List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
            Files.deleteIfExists(out);
            if (p.exitValue() != 0 || lines.isEmpty()) {
                throw new IllegalStateException(script + " " + name + " failed with exit " + p.exitValue() + "; see "
                        + log + ":\n" + tail(log));
            }
            return Path.of(lines.get(lines.size() - 1).trim());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + script + " to build " + kind, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted building " + kind, e);
        }
    }

    private static Path findScript() {
        String root = System.getProperty("aloft.project.root");
        if (root != null) {
            Path script = Path.of(root, "scripts", "s3-server.sh");
            if (Files.isRegularFile(script)) {
                return script.toAbsolutePath().normalize();
            }
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path script = dir.resolve("scripts").resolve("s3-server.sh");
            if (Files.isRegularFile(script)) {
                return script;
            }
        }
        throw new IllegalStateException("scripts/s3-server.sh not found above " + Path.of("").toAbsolutePath()
                + " (set -Daloft.project.root, or ALOFT_VERSITYGW to a prebuilt binary)");
    }

    // ---- small helpers -------------------------------------------------------------------

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static String randomHex(int bytes) {
        byte[] b = new byte[bytes];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // Best effort: target/ is cleaned by the build anyway.
        }
    }

    @Override
    public String toString() {
        return kind + " at " + endpoint + " (pid " + process.pid() + ", log " + logFile + ")";
    }
}
