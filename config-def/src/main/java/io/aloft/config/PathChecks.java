package io.aloft.config;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Checks, before a server writes anything, that the paths its settings name can be used: a
 * directory exists or can be created, a file exists or can be made. They read the file system
 * and never change it, so a bad setting found here leaves no half-made directory behind.
 * Failures are {@link ConfigException}s naming the key and the path. Stateless.
 */
public final class PathChecks {
    private PathChecks() {
    }

    /**
     * {@code dir} is a writable directory, or can be created: its nearest existing ancestor is a
     * writable directory.
     *
     * @throws ConfigException naming {@code key} otherwise
     */
    public static void requireUsableDirectory(String key, Path dir) {
        Path abs = dir.toAbsolutePath().normalize();
        if (Files.exists(abs)) {
            if (!Files.isDirectory(abs)) {
                throw new ConfigException(key, abs + " is not a directory");
            }
            if (!Files.isWritable(abs) || !Files.isExecutable(abs)) {
                throw new ConfigException(key, "directory " + abs + " is not writable");
            }
            return;
        }
        Path ancestor = abs.getParent();
        while (ancestor != null && !Files.exists(ancestor)) {
            ancestor = ancestor.getParent();
        }
        if (ancestor == null) {
            throw new ConfigException(key, "cannot create " + abs + ": no part of the path exists");
        }
        if (!Files.isDirectory(ancestor)) {
            throw new ConfigException(key, "cannot create directory " + abs + ": " + ancestor + " is not a directory");
        }
        if (!Files.isWritable(ancestor) || !Files.isExecutable(ancestor)) {
            throw new ConfigException(key, "cannot create directory " + abs + ": " + ancestor + " is not writable");
        }
    }

    /**
     * {@code file} is a readable and writable file (or device), or can be created: its parent
     * directory exists and is writable, or — when {@code parentWillBeCreated} — can be created.
     *
     * @throws ConfigException naming {@code key} otherwise
     */
    public static void requireWritableFile(String key, Path file, boolean parentWillBeCreated) {
        Path abs = file.toAbsolutePath().normalize();
        if (Files.exists(abs)) {
            if (Files.isDirectory(abs)) {
                throw new ConfigException(key, abs + " is a directory");
            }
            if (!Files.isReadable(abs) || !Files.isWritable(abs)) {
                throw new ConfigException(key, abs + " is not readable and writable");
            }
            return;
        }
        Path parent = abs.getParent();
        if (parent == null) {
            throw new ConfigException(key, abs + " has no parent directory");
        }
        if (parentWillBeCreated) {
            requireUsableDirectory(key, parent);
            return;
        }
        if (!Files.isDirectory(parent)) {
            throw new ConfigException(key, "directory " + parent + " does not exist");
        }
        if (!Files.isWritable(parent) || !Files.isExecutable(parent)) {
            throw new ConfigException(key, "directory " + parent + " is not writable");
        }
    }
}
