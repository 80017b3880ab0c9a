package io.aloft.broker;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs Apache Kafka's own command-line tools (the {@code kafka-tools} jars that the build copies to
 * {@code kafka-dist/target/kafka-libs}, never on this module's class path) as child processes, the way
 * {@code bin/kafka-topics.sh} and friends do, and collects exit status and output.
 *
 * <p>Not thread-safe: one instance per test class. A class whose tests run tools against one broker
 * registers {@link WithBroker}, which makes that broker and the tool runner. Public for the tool tests
 * of other packages (share groups' {@code kafka-share-groups.sh}).
 */
public final class KafkaCli {
    /** The answer of one tool run. */
    public record Result(int exitCode, String out, String err) {
        public List<String> lines() {
            return out.lines().toList();
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private final Path work;
    private final String classPath;
    private final Path log4jConfig;
    private int runs;

    /** {@code work} holds the launcher class and each run's output files. */
    public KafkaCli(Path work) throws Exception {
        Path jars = Path.of(System.getProperty("aloft.kafka.cli.dir", "../kafka-dist/target/kafka-libs"));
        if (!Files.isRegularFile(jars.resolve("kafka-tools-" + org.apache.kafka.common.utils.AppInfoParser.getVersion()
                + ".jar"))) {
            throw new IllegalStateException("Kafka's tools are not in " + jars.toAbsolutePath()
                    + ": the build resolves them there (module kafka-dist)");
        }
        this.work = Files.createDirectories(work);
        // The launcher alone, copied out of the test classes, so no Aloft class or jar is visible to the tool.
        String resource = KafkaToolLauncher.class.getName().replace('.', '/') + ".class";
        Path launcher = work.resolve("launcher");
        Files.createDirectories(launcher.resolve(resource).getParent());
        try (InputStream in = KafkaCli.class.getClassLoader().getResourceAsStream(resource)) {
            Files.write(launcher.resolve(resource), in.readAllBytes());
        }
        this.classPath = jars.toAbsolutePath() + "/*" + java.io.File.pathSeparator + launcher;
        this.log4jConfig = Path.of(KafkaCli.class.getClassLoader().getResource("kafka-cli-log4j2.xml").toURI());
    }

    /** Runs {@code mainClass} with {@code args}, standard input closed at once. */
    public Result run(String mainClass, String... args) throws Exception {
        return runWithInput("", mainClass, args);
    }

    /**
     * Runs {@code mainClass} with {@code args}, {@code input} on its standard input followed by end
     * of input. Fails if the tool has not exited within 120 s (each tool is given shorter timeouts).
     */
    public Result runWithInput(String input, String mainClass, String... args) throws Exception {
        int run = runs++;
        Path out = work.resolve("run-" + run + ".out");
        Path err = work.resolve("run-" + run + ".err");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // Short-lived clients: a small heap and C1 only start fastest on 2 shared cores.
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1",
                "-Dlog4j2.configurationFile=" + log4jConfig,
                "-cp", classPath, KafkaToolLauncher.class.getName(), mainClass));
        command.addAll(List.of(args));
        // Files, not pipes: nothing has to drain them while the tool runs.
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            try (OutputStream stdin = p.getOutputStream()) {
                stdin.write(input.getBytes(StandardCharsets.UTF_8));
            }
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                throw new AssertionError(mainClass + " " + String.join(" ", args) + " still runs after 120 s:\n"
                        + Files.readString(out) + Files.readString(err));
            }
        } finally {
            p.destroyForcibly(); // a no-op once it exited; otherwise it must not outlive the test
        }
        return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    /**
     * JUnit 5 extension for a class of tool tests against one broker: before the class's tests it
     * starts a {@link TestBroker} (with the given settings), an Admin on it for cross-checks and a
     * {@link KafkaCli}, in a temporary directory of its own; after them it closes them and removes
     * the directory. Register it in a static field:
     *
     * <pre>
     * &#64;RegisterExtension
     * static final KafkaCli.WithBroker cli = new KafkaCli.WithBroker(Map.of());
     * ...
     * KafkaCli.Result r = cli.runOnBroker("org.apache.kafka.tools.TopicCommand", "--list");
     * </pre>
     *
     * <p>Confined to the thread that runs the class's tests, like {@link KafkaCli}.
     */
    static final class WithBroker implements BeforeAllCallback, AfterAllCallback {
        private final Map<String, String> brokerSettings;
        private Path dir;
        private TestBroker broker;
        private Admin admin;
        private KafkaCli cli;

        /** {@code brokerSettings}: overrides of {@link TestBroker}'s defaults. */
        WithBroker(Map<String, String> brokerSettings) {
            this.brokerSettings = Map.copyOf(brokerSettings);
        }

        @Override
        public void beforeAll(ExtensionContext context) throws Exception {
            dir = Files.createTempDirectory("kafka-cli-");
            broker = new TestBroker(dir.resolve("broker"), brokerSettings);
            admin = Admin.create(broker.clientProps());
            cli = new KafkaCli(dir.resolve("cli"));
        }

        @Override
        public void afterAll(ExtensionContext context) throws IOException {
            if (admin != null) {
                admin.close();
            }
            if (broker != null) {
                broker.close();
            }
            if (dir != null) {
                try (Stream<Path> paths = Files.walk(dir)) {
                    for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                        Files.delete(p);
                    }
                }
            }
        }

        TestBroker broker() {
            return broker;
        }

        /** An Admin on the broker, for checking what a tool did; closed with the broker. */
        Admin admin() {
            return admin;
        }

        String bootstrap() {
            return broker.bootstrap();
        }

        /** {@link KafkaCli#run}. */
        Result run(String mainClass, String... args) throws Exception {
            return cli.run(mainClass, args);
        }

        /** {@link KafkaCli#runWithInput}. */
        Result runWithInput(String input, String mainClass, String... args) throws Exception {
            return cli.runWithInput(input, mainClass, args);
        }

        /** Runs {@code mainClass} with {@code --bootstrap-server} and the broker's address, then {@code args}. */
        Result runOnBroker(String mainClass, String... args) throws Exception {
            List<String> all = new ArrayList<>(List.of("--bootstrap-server", bootstrap()));
            all.addAll(List.of(args));
            return cli.run(mainClass, all.toArray(String[]::new));
        }
    }
}
