package io.aloft.compat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * One instance of the Kafka Streams counting application ({@code compat/src/streams}, class
 * {@code io.aloft.compat.streams.CountingApp}) in a child JVM, compiled against and run on the
 * kafka-streams jars the pom copies into {@code target/streams}; the harness talks to it through
 * the line protocol that class documents.
 *
 * <p>Not thread-safe: one test thread starts, asks and stops it. Compilation happens once per JVM
 * (synchronized).
 */
final class StreamsApp implements AutoCloseable {
    private static final String MAIN = "io.aloft.compat.streams.CountingApp";
    private static final Duration OWN_LIMIT_MARGIN = Duration.ofSeconds(5);
    private static Path compiled;

    private final ChildService child;

    private StreamsApp(ChildService child) {
        this.child = child;
    }

    /**
     * Starts the application {@code applicationId} counting {@code input} into {@code output} with its
     * state under {@code stateDir}; returns once the process runs.
     *
     * @param name run name: its output file in {@code workDir}
     * @param limit hard limit on the instance's whole life (it stops itself a few seconds earlier)
     */
    static StreamsApp start(CompatLayout layout, String name, String bootstrap, String applicationId, String input,
            String output, Path stateDir, Path workDir, Duration limit) throws IOException {
        return start(layout, name, bootstrap, applicationId, input, output, stateDir, workDir, limit, List.of());
    }

    /**
     * {@link #start} with Streams' {@code processing.guarantee} (e.g. exactly_once_v2) and a pause per
     * record processed, so a test can crash the broker while records are still in flight.
     */
    static StreamsApp start(CompatLayout layout, String name, String bootstrap, String applicationId, String input,
            String output, Path stateDir, Path workDir, Duration limit, String guarantee, long pauseMsPerRecord)
            throws IOException {
        return start(layout, name, bootstrap, applicationId, input, output, stateDir, workDir, limit,
                List.of(guarantee, Long.toString(pauseMsPerRecord)));
    }

    private static StreamsApp start(CompatLayout layout, String name, String bootstrap, String applicationId,
            String input, String output, Path stateDir, Path workDir, Duration limit, List<String> optional)
            throws IOException {
        Path jars = layout.streamsDir();
        Path classes = compile(layout);
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-Dorg.slf4j.simpleLogger.showDateTime=true",
                "-cp", classes + File.pathSeparator + jars.resolve("*"), MAIN, bootstrap, applicationId, input,
                output, stateDir.toString(), Long.toString(limit.minus(OWN_LIMIT_MARGIN).toSeconds())));
        command.addAll(optional);
        return new StreamsApp(ChildService.start(name, command, Map.of(), workDir, limit));
    }

    /**
     * Waits until the application prints {@code STATE <state>}; fails at once when it enters
     * {@code PENDING_ERROR} or {@code ERROR} instead (Streams gave up, e.g. on a topic it could not create).
     */
    void awaitState(String state, Duration timeout) throws InterruptedException {
        String line = child.awaitLine("STATE " + state, 0, l -> l.equals("STATE " + state)
                || l.equals("STATE PENDING_ERROR") || l.equals("STATE ERROR"), timeout);
        if (!line.equals("STATE " + state)) {
            throw new AssertionError("the Streams application failed (" + line + ") instead of reaching " + state
                    + "; see its output");
        }
    }

    /**
     * The store's counts, read through an interactive query, once the application can answer (a
     * store still restoring cannot).
     *
     * @return empty if the store is not queryable yet
     */
    Optional<Map<String, Long>> counts(Duration timeout) throws IOException, InterruptedException {
        int from = child.lines().size();
        child.send("counts");
        String answer = child.awaitLine("answer to 'counts'", from,
                l -> l.startsWith("COUNTS") || l.startsWith("UNAVAILABLE"), timeout);
        if (answer.startsWith("UNAVAILABLE")) {
            return Optional.empty();
        }
        Map<String, Long> counts = new TreeMap<>();
        String body = answer.substring("COUNTS".length()).trim();
        for (String entry : body.isEmpty() ? new String[0] : body.split(",")) {
            int eq = entry.indexOf('=');
            counts.put(entry.substring(0, eq), Long.parseLong(entry.substring(eq + 1)));
        }
        return Optional.of(counts);
    }

    /** Records restored from the changelog per {@code RESTORED <store> <partition> <records>} line, by partition. */
    Map<Integer, Long> restored(String store) {
        Map<Integer, Long> restored = new TreeMap<>();
        for (String line : child.lines()) {
            String[] f = line.split(" ");
            if (f.length == 4 && f[0].equals("RESTORED") && f[1].equals(store)) {
                restored.merge(Integer.parseInt(f[2]), Long.parseLong(f[3]), Long::sum);
            }
        }
        return restored;
    }

    /**
     * Asks the application to stop ({@code stop} on stdin: it closes, leaving its group) and checks
     * that it did, cleanly, within 30 s.
     */
    void stop() throws IOException, InterruptedException {
        child.send("stop");
        Optional<Integer> status = child.awaitExit(Duration.ofSeconds(30));
        if (status.isEmpty() || status.get() != 0 || child.lines().stream().noneMatch("STOPPED"::equals)) {
            throw new AssertionError("the Streams application did not stop cleanly within 30 s; it " + child.status());
        }
    }

    String describe() {
        return child.describe();
    }

    @Override
    public void close() {
        child.close();
    }

    private static synchronized Path compile(CompatLayout layout) throws IOException {
        if (compiled != null) {
            return compiled;
        }
        Path jars = layout.streamsDir();
        boolean present;
        try (Stream<Path> list = Files.isDirectory(jars) ? Files.list(jars) : Stream.empty()) {
            present = list.anyMatch(j -> j.getFileName().toString().startsWith("kafka-streams-"));
        }
        if (!present) {
            throw new IllegalStateException("kafka-streams is not in " + jars + "; the build copies it there "
                    + "(maven-dependency-plugin in compat/pom.xml): run `mvn -B -pl compat -am generate-test-resources`");
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new IllegalStateException("no Java compiler in " + System.getProperty("java.home")
                    + "; the harness compiles the Streams application and needs a JDK");
        }
        Path out = Files.createDirectories(layout.workDir().resolve("streams-classes"));
        List<String> args = new ArrayList<>(List.of("-d", out.toString(), "-proc:none", "--release", "17", "-cp"));
        try (Stream<Path> list = Files.list(jars)) { // javac, unlike java, takes no "dir/*"
            args.add(list.map(Path::toString).sorted().collect(Collectors.joining(File.pathSeparator)));
        }
        try (Stream<Path> files = Files.walk(layout.moduleDir().resolve("src/streams/java"))) {
            files.filter(f -> f.toString().endsWith(".java")).map(Path::toString).sorted().forEach(args::add);
        }
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        if (javac.run(null, OutputStream.nullOutputStream(), diagnostics, args.toArray(String[]::new)) != 0) {
            throw new IllegalStateException("the Streams application does not compile against " + jars + ":\n"
                    + diagnostics.toString(StandardCharsets.UTF_8));
        }
        compiled = out;
        return out;
    }
}
