package io.aloft.compat;

import java.io.IOException;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * kafka-clients generations, each in a child JVM whose class path is its own jars (resolved by the
 * pom into {@code target/clients/<version>}) plus the scenario compiled against exactly those jars:
 * the same source ({@code src/scenario/java}) compiles against every generation, with one of two
 * small {@code TopicDescriptions} files for the one Admin call renamed in 3.1.
 *
 * <p>Thread-safe: compilation happens once per version per JVM.
 */
final class JavaClients {
    private static final Map<String, Path> COMPILED = new ConcurrentHashMap<>();

    private final CompatLayout layout;

    JavaClients(CompatLayout layout) {
        this.layout = layout;
    }

    /**
     * The command running the scenario with kafka-clients {@code version}.
     *
     * @param consumerOverrides consumer settings added last, as {@code key=value}
     */
    ClientCommand command(String version, Scenario s, List<String> consumerOverrides) throws IOException {
        Path jars = layout.clientsDir().resolve(version);
        if (!Files.isDirectory(jars) || !Files.exists(jars.resolve("kafka-clients-" + version + ".jar"))) {
            throw new IllegalStateException("kafka-clients " + version + " is not in " + jars + "; the build copies "
                    + "it there (maven-dependency-plugin in compat/pom.xml): run `mvn -B -pl compat -am "
                    + "generate-test-resources`");
        }
        Path classes = COMPILED.computeIfAbsent(version, v -> compile(v, jars));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                        .toString(), "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-Dorg.slf4j.simpleLogger.showDateTime=true",
                "-cp", classes + File.pathSeparator + jars.resolve("*"),
                "io.aloft.compat.scenario.JavaClientScenario", s.bootstrap(), s.topic(), s.group(),
                Integer.toString(s.partitions()), Integer.toString(s.records()),
                Long.toString(s.clientTimeout().toSeconds())));
        command.addAll(consumerOverrides);
        return new ClientCommand(command, Map.of());
    }

    /** The {@code TopicDescriptions} variant for {@code version}: {@code allTopicNames()} arrived in 3.1. */
    static String topicsVariant(String version) {
        String[] parts = version.split("\\.");
        int major = Integer.parseInt(parts[0]);
        int minor = Integer.parseInt(parts[1]);
        return major < 3 || major == 3 && minor < 1 ? "topics-before-3.1" : "topics-since-3.1";
    }

    private Path compile(String version, Path jars) {
        Path scenario = layout.moduleDir().resolve("src/scenario");
        Path out = layout.workDir().resolve("scenario-classes").resolve(version);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new IllegalStateException("no Java compiler in " + System.getProperty("java.home")
                    + "; the harness compiles the scenario per kafka-clients version and needs a JDK");
        }
        try {
            Files.createDirectories(out);
            String classPath;
            try (Stream<Path> list = Files.list(jars)) { // javac, unlike java, takes no "dir/*"
                classPath = list.map(Path::toString).sorted().collect(Collectors.joining(File.pathSeparator));
            }
            List<String> args = new ArrayList<>(List.of("-d", out.toString(), "-proc:none", "--release", "17",
                    "-cp", classPath));
            for (Path dir : List.of(scenario.resolve("java"), scenario.resolve(topicsVariant(version)))) {
                try (Stream<Path> files = Files.walk(dir)) {
                    files.filter(f -> f.toString().endsWith(".java")).map(Path::toString).sorted().forEach(args::add);
                }
            }
            ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
            int status = javac.run(null, OutputStream.nullOutputStream(), diagnostics, args.toArray(String[]::new));
            if (status != 0) {
                throw new IllegalStateException("the scenario does not compile against kafka-clients " + version
                        + ":\n" + diagnostics.toString(StandardCharsets.UTF_8));
            }
            return out;
        } catch (IOException e) {
            throw new IllegalStateException("compiling the scenario for kafka-clients " + version + ": " + e, e);
        }
    }
}
