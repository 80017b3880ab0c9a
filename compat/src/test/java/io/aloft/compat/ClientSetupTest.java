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
        return new CompatLayout(real.moduleDir(), real.clientsDir(), real.workDir(), emptyCache);
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
