package io.aloft.compat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * One Kafka Connect worker in distributed mode, in a child JVM: {@code ConnectDistributed} from
 * Apache Kafka's own jars ({@code kafka-dist/target/kafka-libs}, as Kafka's
 * {@code bin/connect-distributed.sh} runs it from {@code libs/}), with a generated worker
 * configuration: REST on a free 127.0.0.1 port, String converters, the three internal topics under
 * one prefix (Connect creates them itself, compacted, and refuses to start where it cannot), the
 * FileStream connectors on its {@code plugin.path}, and source offsets flushed every second. A
 * worker started again with the same group and topics is the same Connect cluster: it finds its
 * connectors in the config topic and their offsets in the offset topic and sink group.
 *
 * <p>Connectors are managed through the worker's REST API. Not thread-safe: one test thread
 * starts, uses and stops it.
 */
final class ConnectWorker implements AutoCloseable {
    static final String SOURCE_CONNECTOR = "org.apache.kafka.connect.file.FileStreamSourceConnector";
    static final String SINK_CONNECTOR = "org.apache.kafka.connect.file.FileStreamSinkConnector";
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    /** Lines of a worker that stops on its own (we stop it with SIGTERM only after checks have passed). */
    private static final List<String> GIVE_UP = List.of("Uncaught exception in herder work thread",
            "Kafka Connect stopping");
    private static final Pattern STATE = Pattern.compile("\"state\"\\s*:\\s*\"([A-Z_]+)\"");

    private final ChildService child;
    private final String restUrl;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private ConnectWorker(ChildService child, String restUrl) {
        this.child = child;
        this.restUrl = restUrl;
    }

    /** The names of a Connect cluster's internal topics: {@code <prefix>-configs}, {@code -offsets}, {@code -status}. */
    static List<String> internalTopics(String prefix) {
        return List.of(prefix + "-configs", prefix + "-offsets", prefix + "-status");
    }

    /**
     * Starts a worker of the Connect cluster {@code groupId} whose internal topics are named by
     * {@code topicPrefix}; returns once the process runs (its REST API may not answer yet).
     *
     * @param name run name: its worker.properties, log4j2.xml and output file in {@code workDir}
     * @param limit hard limit on the worker's whole life
     */
    static ConnectWorker start(String name, Path kafkaLibs, Path pluginsDir, String bootstrap, String groupId,
            String topicPrefix, Path workDir, Duration limit) throws IOException {
        if (!Files.exists(kafkaLibs.resolve("connect-runtime-" + versionOf(pluginsDir) + ".jar"))) {
            throw new IllegalStateException("no connect-runtime jar of the connect-file version in " + kafkaLibs
                    + "; build them with `mvn -B -pl compat -am generate-test-resources` and `mvn -B -pl kafka-dist "
                    + "package`");
        }
        Files.createDirectories(workDir);
        int port = freePort();
        List<String> topics = internalTopics(topicPrefix);
        Map<String, String> p = new LinkedHashMap<>();
        p.put("bootstrap.servers", bootstrap);
        p.put("group.id", groupId);
        p.put("config.storage.topic", topics.get(0));
        p.put("offset.storage.topic", topics.get(1));
        p.put("status.storage.topic", topics.get(2));
        p.put("config.storage.replication.factor", "1");
        p.put("offset.storage.replication.factor", "1");
        p.put("status.storage.replication.factor", "1");
        p.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        p.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        p.put("listeners", "http://127.0.0.1:" + port);
        p.put("rest.advertised.host.name", "127.0.0.1");
        p.put("rest.advertised.port", Integer.toString(port));
        p.put("plugin.path", pluginsDir.toString());
        // The FileStream connectors declare themselves for ServiceLoader (KIP-898): no scan of ~90 jars at start.
        p.put("plugin.discovery", "service_load");
        // Source offsets and sink commits every second (default 60 s), so a stop loses no progress and the
        // harness sees the stored offsets soon.
        p.put("offset.flush.interval.ms", "1000");
        Path properties = workDir.resolve(name + ".properties");
        Files.writeString(properties, p.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining("\n", "# generated by the compatibility harness\n", "\n")));
        Path log4j = workDir.resolve(name + "-log4j2.xml");
        Files.writeString(log4j, LOG4J2);
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                        .toString(), "-Xms384m", "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dlog4j2.configurationFile=" + log4j, "-cp", kafkaLibs.resolve("*").toString(),
                "org.apache.kafka.connect.cli.ConnectDistributed", properties.toString()));
        return new ConnectWorker(ChildService.start(name, command, Map.of(), workDir, limit), "http://127.0.0.1:" + port);
    }

    /**
     * Creates the connector, or updates it to {@code config} ({@code PUT /connectors/<name>/config}),
     * asking again while the worker is starting or rebalancing.
     */
    void putConnector(String connector, Map<String, String> config, Duration timeout) throws InterruptedException {
        String body = config.entrySet().stream().map(e -> json(e.getKey()) + ":" + json(e.getValue()))
                .collect(Collectors.joining(",", "{", "}"));
        String[] last = {"no answer"};
        Await.until("the worker accepts connector " + connector, timeout, () -> {
            assertAlive();
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(restUrl + "/connectors/" + connector
                    + "/config")).timeout(REQUEST_TIMEOUT).header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            last[0] = r.statusCode() + " " + r.body();
            return r.statusCode() / 100 == 2 ? r : null;
        }, () -> last[0]);
    }

    /** Waits until the connector and every one of its tasks (at least one) report RUNNING. */
    void awaitRunning(String connector, Duration timeout) throws InterruptedException {
        String[] last = {"no answer"};
        Await.until("connector " + connector + " and its tasks RUNNING", timeout, () -> {
            assertAlive();
            String status = get("/connectors/" + connector + "/status");
            last[0] = status;
            List<String> states = new ArrayList<>();
            for (Matcher m = STATE.matcher(status); m.find(); ) {
                states.add(m.group(1));
            }
            return states.size() >= 2 && states.stream().allMatch("RUNNING"::equals) ? states : null;
        }, () -> last[0]);
    }

    /** {@code GET /connectors/<name>/offsets} (KIP-875): the offsets the worker has stored, as JSON. */
    String offsets(String connector) throws IOException, InterruptedException {
        return get("/connectors/" + connector + "/offsets");
    }

    /** Stops the worker with SIGTERM (Connect stops its tasks and commits their offsets), killing it after 30 s. */
    void stop() throws InterruptedException {
        if (child.stop(Duration.ofSeconds(30)).isEmpty()) {
            throw new AssertionError("the Connect worker did not stop cleanly within 30 s of SIGTERM; it " + child.status());
        }
    }

    String describe() {
        return child.describe();
    }

    @Override
    public void close() {
        child.close();
    }

    private String get(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(restUrl + path)).timeout(REQUEST_TIMEOUT)
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("GET " + path + ": " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    /**
     * A worker that exited, or is stopping on its own (its herder died: Connect then stops, and may
     * hang doing so), fails the wait at once instead of at the deadline.
     */
    private void assertAlive() {
        if (!child.isAlive()) {
            throw new AssertionError("the Connect worker exited; see its output");
        }
        List<String> lines = child.lines();
        for (String giveUp : GIVE_UP) {
            if (lines.stream().anyMatch(l -> l.contains(giveUp))) {
                throw new AssertionError("the Connect worker gave up ('" + giveUp + "' in its output); see its output");
            }
        }
    }

    /** The connect-file jar's version, which the worker's runtime must match. */
    private static String versionOf(Path pluginsDir) throws IOException {
        try (var jars = Files.newDirectoryStream(pluginsDir, "connect-file-*.jar")) {
            for (Path jar : jars) {
                String file = jar.getFileName().toString();
                return file.substring("connect-file-".length(), file.length() - ".jar".length());
            }
        } catch (java.nio.file.NoSuchFileException e) {
            // reported below
        }
        throw new IllegalStateException("no connect-file jar in " + pluginsDir + "; the build copies it there "
                + "(maven-dependency-plugin in compat/pom.xml): run `mvn -B -pl compat -am generate-test-resources`");
    }

    private static String json(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /**
     * The worker's lifecycle, its herder, its tasks and topic creation at INFO (what a failure needs),
     * everything else at WARN; the configuration dumps at INFO would bury the rest.
     */
    private static final String LOG4J2 = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Configuration status="WARN">
              <Appenders>
                <Console name="Out" target="SYSTEM_OUT">
                  <PatternLayout pattern="%d{HH:mm:ss.SSS} %-5level [%t] %c{1} - %msg%n"/>
                </Console>
              </Appenders>
              <Loggers>
                <Logger name="org.apache.kafka.connect" level="INFO"/>
                <Logger name="org.apache.kafka.connect.runtime.distributed.DistributedConfig" level="WARN"/>
                <Logger name="org.apache.kafka.connect.runtime.ConnectorConfig" level="WARN"/>
                <Logger name="org.apache.kafka.connect.runtime.ConnectorConfig$EnrichedConnectorConfig" level="WARN"/>
                <Logger name="org.apache.kafka.connect.runtime.SourceConnectorConfig" level="WARN"/>
                <Logger name="org.apache.kafka.connect.runtime.SourceConnectorConfig$EnrichedSourceConnectorConfig" level="WARN"/>
                <Logger name="org.apache.kafka.connect.runtime.SinkConnectorConfig" level="WARN"/>
                <Logger name="org.apache.kafka.connect.runtime.TaskConfig" level="WARN"/>
                <Logger name="org.apache.kafka.connect.storage.StringConverterConfig" level="WARN"/>
                <Logger name="org.apache.kafka.connect.json.JsonConverterConfig" level="WARN"/>
                <Root level="WARN">
                  <AppenderRef ref="Out"/>
                </Root>
              </Loggers>
            </Configuration>
            """;
}
