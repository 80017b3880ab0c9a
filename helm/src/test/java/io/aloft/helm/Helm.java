package io.aloft.helm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs the helm binary ({@code scripts/helm.sh} builds it once from the Go module proxy and prints
 * its path) on the chart in {@code helm/aloft}, and parses what {@code helm template} renders.
 * Stateless apart from the binary's path, found once; safe from any thread.
 */
final class Helm {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Path CHART = ROOT.resolve("helm/aloft");
    static final Path EXAMPLES = ROOT.resolve("helm/examples");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static volatile String binary;

    private Helm() {}

    /** The result of one helm command. */
    record Result(int exit, String stdout, String stderr) {
        Result ok() {
            if (exit != 0) {
                throw new AssertionError("helm exited " + exit + ":\n" + stderr + stdout);
            }
            return this;
        }
    }

    static List<Path> examples() {
        try (Stream<Path> files = Files.list(EXAMPLES)) {
            return files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Result run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(binary()));
        command.addAll(List.of(args));
        return exec(command, 120);
    }

    /** {@code helm template aloft helm/aloft ARGS} (release "aloft", namespace "streaming"), parsed. */
    static Manifests template(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("template", "aloft", CHART.toString(), "--namespace", "streaming"));
        command.addAll(List.of(args));
        return Manifests.parse(run(command.toArray(String[]::new)).ok().stdout());
    }

    /**
     * NOTES.txt rendered with ARGS. {@code helm template} does not render it, so a copy of the
     * chart gets a ConfigMap template holding {@code tpl} of the notes file (same values, same
     * named templates).
     */
    static String notes(Path scratch, String... args) throws IOException, InterruptedException {
        Path chart = scratch.resolve("aloft");
        if (!Files.exists(chart)) {
            try (Stream<Path> files = Files.walk(CHART)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Files.copy(f, chart.resolve(CHART.relativize(f).toString()));
                }
            }
            Files.move(chart.resolve("templates/NOTES.txt"), chart.resolve("NOTES.txt"));
            Files.writeString(chart.resolve("templates/notes.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                    + "  name: notes\ndata:\n  notes: {{ tpl (.Files.Get \"NOTES.txt\") . | quote }}\n");
        }
        List<String> command = new ArrayList<>(List.of("template", "aloft", chart.toString(), "--namespace", "streaming",
                "--show-only", "templates/notes.yaml"));
        command.addAll(List.of(args));
        return Manifests.parse(run(command.toArray(String[]::new)).ok().stdout()).get("ConfigMap", "notes")
                .path("data").path("notes").asText();
    }

    static List<ObjectNode> parseDocuments(String yaml) throws IOException {
        List<ObjectNode> out = new ArrayList<>();
        try (YAMLParser parser = new YAMLFactory().createParser(yaml)) {
            for (JsonNode doc : YAML.readValues(parser, JsonNode.class).readAll()) {
                if (doc instanceof ObjectNode o && !o.isEmpty()) {
                    out.add(o);
                }
            }
        }
        return out;
    }

    static synchronized String binary() throws IOException, InterruptedException {
        if (binary == null) {
            String out = exec(List.of("bash", ROOT.resolve("scripts/helm.sh").toString()), 1800).ok().stdout().strip();
            binary = out.substring(out.lastIndexOf('\n') + 1);
        }
        return binary;
    }

    static Result exec(List<String> command, int timeoutSeconds) throws IOException, InterruptedException {
        Path err = Files.createTempFile("helm", ".err");
        try {
            Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("timed out: " + command);
            }
            return new Result(p.exitValue(), out, Files.readString(err));
        } finally {
            Files.deleteIfExists(err);
        }
    }
}
