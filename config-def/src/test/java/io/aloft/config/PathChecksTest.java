package io.aloft.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PathChecksTest {
    @TempDir
    Path dir;

    @Test
    void requireUsableDirectory_existingOrCreatable_passesWithoutCreating() throws Exception {
        PathChecks.requireUsableDirectory("k", dir);
        Path deep = dir.resolve("a/b/c");
        PathChecks.requireUsableDirectory("k", deep);
        assertFalse(Files.exists(dir.resolve("a")), "nothing is created");
    }

    @Test
    void requireUsableDirectory_underAFileOrIsAFile_namesKeyAndPath() throws Exception {
        Path file = Files.writeString(dir.resolve("plain"), "x");
        ConfigException e = assertThrows(ConfigException.class,
                () -> PathChecks.requireUsableDirectory("aloft.data.dir", file.resolve("data")));
        assertEquals("aloft.data.dir", e.key());
        assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("is not a directory"),
                e.getMessage());
        e = assertThrows(ConfigException.class, () -> PathChecks.requireUsableDirectory("aloft.data.dir", file));
        assertTrue(e.getMessage().startsWith("aloft.data.dir: " + file + " is not a directory"), e.getMessage());
    }

    @Test
    void requireWritableFile_missingParent_refusedUnlessItWillBeCreated() throws Exception {
        Path wal = dir.resolve("missing/wal");
        ConfigException e = assertThrows(ConfigException.class,
                () -> PathChecks.requireWritableFile("wal.path", wal, false));
        assertTrue(e.getMessage().startsWith("wal.path: directory "), e.getMessage());
        PathChecks.requireWritableFile("wal.path", wal, true);
        PathChecks.requireWritableFile("wal.path", dir.resolve("wal"), false);
        e = assertThrows(ConfigException.class, () -> PathChecks.requireWritableFile("wal.path", dir, false));
        assertTrue(e.getMessage().endsWith("is a directory"), e.getMessage());
        assertFalse(Files.exists(wal.getParent()));
    }
}
