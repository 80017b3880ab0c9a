package io.aloft.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that is not set up fails its test with the command that sets it up, never skips; the
 * Go binary is found by the same source hash {@code scripts/go-clients.sh} computes.
 */
class ClientSetupTest {
    private static final Scenario SCENARIO = new Scenario("127.0.0.1:9", "t", "g", 1, 1, Duration.ofSeconds(1));

    @TempDir
    Path emptyCache;

    private CompatLayout layoutWithEmptyCache() {
        CompatLayout real = CompatLayout.fromSystemProperties();
        return new CompatLayout(real.moduleDir(), real.clientsDir(), real.connectPluginsDir(), real.streamsDir(),
                real.workDir(), emptyCache);
    }

    @Test
    void python_notInstalled_failsNamingTheSetupScript() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new PythonClients(layoutWithEmptyCache()).command("2.16.1", SCENARIO));
        assertTrue(e.getMessage().contains("scripts/python-clients.sh"), e.getMessage());
    }

    @Test
    void go_notBuilt_failsNamingTheSetupScript() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new GoClients(layoutWithEmptyCache()).franz(SCENARIO));
        assertTrue(e.getMessage().contains("scripts/go-clients.sh"), e.getMessage());
    }

    @Test
    void java_versionNotResolved_failsNamingTheBuild() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new JavaClients(layoutWithEmptyCache()).command("1.0.0", SCENARIO, java.util.List.of()));
        assertTrue(e.getMessage().contains("compat/pom.xml"), e.getMessage());
    }

    @Test
    void kcat_notOnPath_failsNamingTheSetupScript() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Kcat.find(null, emptyCache.toString()));
        assertTrue(e.getMessage().contains("scripts/kcat.sh"), e.getMessage());
    }

    @Test
    void kcat_consumedRecordsCheck_catchesGapsRepeatsAndMissingRecords() {
        Scenario s = new Scenario("b", "t", "g", 2, 3, Duration.ofSeconds(1));
        java.util.Map<Integer, Long> ends = java.util.Map.of(0, 2L, 1, 1L);
        assertEquals(null, Kcat.checkConsumed("0 0 key-0 0\n% Reached end\n1 0 key-1 1\n0 1 key-2 2\n", ends, s));
        assertTrue(Kcat.checkConsumed("0 0 key-0 0\n0 2 key-2 2\n1 0 key-1 1\n", ends, s).contains("expected 1"));
        assertTrue(Kcat.checkConsumed("0 0 key-0 0\n0 1 key-0 0\n1 0 key-1 1\n", ends, s).contains("repeated"));
        assertTrue(Kcat.checkConsumed("0 0 key-0 0\n1 0 key-1 1\n", ends, s).contains("consumed 2 records"));
        assertTrue(Kcat.checkConsumed("0 0 key-2 2\n0 1 key-0 0\n1 0 key-1 1\n", ends, s).contains("after record"));
    }

    @Test
    void sourceHash_changesWithAnyGoSource(@TempDir Path go) throws Exception {
        Files.writeString(go.resolve("go.mod"), "module x\n");
        Files.writeString(go.resolve("go.sum"), "");
        Files.writeString(go.resolve("a.go"), "package main\n");
        String before = GoClients.sourceHash(go);
        assertEquals(16, before.length());
        Files.writeString(go.resolve("b.go"), "package main\n");
        assertNotEquals(before, GoClients.sourceHash(go));
    }

    /** The same bytes, hashed the way scripts/go-clients.sh does: cat go.mod go.sum *.go | sha256sum. */
    @Test
    void sourceHash_matchesTheScriptsHash(@TempDir Path go) throws Exception {
        Files.writeString(go.resolve("go.mod"), "module x\n");
        Files.writeString(go.resolve("go.sum"), "sum\n");
        Files.writeString(go.resolve("b.go"), "package b\n");
        Files.writeString(go.resolve("a.go"), "package a\n");
        Files.writeString(go.resolve("notes.txt"), "ignored\n");
        // sha256("module x\nsum\npackage a\npackage b\n")
        java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
        String expected = java.util.HexFormat.of().formatHex(sha.digest(
                "module x\nsum\npackage a\npackage b\n".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertEquals(expected.substring(0, 16), GoClients.sourceHash(go));
    }

    @Test
    void topicsVariant_byVersion() {
        assertEquals("topics-before-3.1", JavaClients.topicsVariant("2.8.2"));
        assertEquals("topics-before-3.1", JavaClients.topicsVariant("3.0.2"));
        assertEquals("topics-since-3.1", JavaClients.topicsVariant("3.1.0"));
        assertEquals("topics-since-3.1", JavaClients.topicsVariant("4.3.1"));
    }
}
