package io.aloft.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code helm lint --strict} and {@code helm template} on the default values and on every file in
 * {@code helm/examples}: lint warnings fail, and each rendering yields the broker StatefulSet.
 */
class ChartLintTest {
    @Test
    void lintStrict_defaultsAndEveryExample() throws Exception {
        List<Path> examples = Helm.examples();
        assertEquals(List.of("aws.yaml", "local.yaml", "s3-compatible.yaml", "tls-sasl.yaml"),
                examples.stream().map(p -> p.getFileName().toString()).toList());
        List<String> failures = new ArrayList<>();
        Helm.Result r = Helm.run("lint", "--strict", Helm.CHART.toString());
        if (r.exit() != 0) {
            failures.add("defaults: " + r.stdout() + r.stderr());
        }
        for (Path example : examples) {
            r = Helm.run("lint", "--strict", Helm.CHART.toString(), "-f", example.toString());
            if (r.exit() != 0) {
                failures.add(example.getFileName() + ": " + r.stdout() + r.stderr());
            }
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }

    @Test
    void chartReadme_listsEveryValue() throws Exception {
        String readme = java.nio.file.Files.readString(Helm.CHART.resolve("README.md"));
        List<String> missing = new ArrayList<>();
        leaves("", Helm.parseDocuments(java.nio.file.Files.readString(Helm.CHART.resolve("values.yaml"))).get(0), readme, missing);
        assertTrue(missing.isEmpty(), "helm/aloft/README.md's values table lacks " + missing);
    }

    /** Each leaf key path of values.yaml must have itself or a parent in the table. */
    private static void leaves(String prefix, com.fasterxml.jackson.databind.JsonNode node, String readme, List<String> missing) {
        node.fields().forEachRemaining(e -> {
            String key = prefix + e.getKey();
            if (readme.contains("| `" + key + "` |")) {
                return;
            }
            if (e.getValue().isObject() && !e.getValue().isEmpty()) {
                leaves(key + ".", e.getValue(), readme, missing);
            } else {
                missing.add(key);
            }
        });
    }

    @Test
    void template_defaultsAndEveryExample() throws Exception {
        assertFalse(Helm.template().ofKind("StatefulSet").isEmpty());
        for (Path example : Helm.examples()) {
            Manifests m = Helm.template("-f", example.toString());
            m.get("StatefulSet", "aloft-broker");
            m.get("Service", "aloft-bootstrap");
            m.get("Service", "aloft-headless");
        }
    }
}
