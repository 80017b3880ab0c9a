package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigDocs;
import io.aloft.config.ConfigKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The README documents every key exactly once, in tables rendered from the keys' declarations. */
class ConfigReferenceTest {

    static Path projectRoot() {
        return Path.of(System.getProperty("aloft.project.root", ".."));
    }

    private static String readme() throws Exception {
        return Files.readString(projectRoot().resolve("README.md"), StandardCharsets.UTF_8);
    }

    @Test
    void readme_tablesMatchTheDefinitions() throws Exception {
        String readme = readme();
        String rendered = ConfigReference.render(readme);
        if (!rendered.equals(readme)) {
            throw new AssertionError("README.md's configuration tables differ from the keys' declarations; run "
                    + ConfigReference.COMMAND + " to regenerate them. First difference near: "
                    + firstDifference(readme, rendered));
        }
    }

    @Test
    void readme_marksOneTablePerDefinition_andNoOther() throws Exception {
        // Each marked once (in the order the README reads, not the code's).
        List<String> expected = ServerConfig.DOCUMENTED.stream().map(ConfigDefinition::name).sorted().toList();
        assertEquals(expected, ConfigDocs.sections(readme()).stream().sorted().toList());
    }

    @Test
    void everyKey_isDeclaredInExactlyOneTable() {
        Map<String, String> tableOf = new HashMap<>();
        List<String> twice = new ArrayList<>();
        for (ConfigDefinition d : ServerConfig.DOCUMENTED) {
            for (ConfigKey<?> key : d.keys()) {
                String previous = tableOf.put(key.name(), d.name());
                if (previous != null) {
                    twice.add(key.name() + " in " + previous + " and " + d.name());
                }
            }
        }
        assertTrue(twice.isEmpty(), twice::toString);
        // What the broker's properties may set is the union of the server tables.
        assertEquals(ServerConfig.ALL.names().size(), ServerConfig.DEFINITIONS.stream()
                .mapToInt(d -> d.keys().size()).sum());
    }

    private static String firstDifference(String a, String b) {
        int i = 0;
        while (i < a.length() && i < b.length() && a.charAt(i) == b.charAt(i)) {
            i++;
        }
        int lineStart = a.lastIndexOf('\n', Math.max(0, i - 1)) + 1;
        int lineEnd = a.indexOf('\n', i);
        return "'" + a.substring(lineStart, lineEnd < 0 ? a.length() : lineEnd) + "'";
    }
}
