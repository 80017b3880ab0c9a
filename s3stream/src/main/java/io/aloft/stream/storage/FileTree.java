package io.aloft.stream.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.stream.Stream;

/**
 * The directory work behind {@link FileObjectStorage}, which must be durable and tolerate other
 * processes sharing the tree: creating and pruning directories with the fsyncs that make those
 * changes last, removing crash leftovers, and telling objects from directories.
 *
 * <p>Stateless; safe from any thread.
 */
final class FileTree {
    private FileTree() {
    }

    /** Creates missing directories down to {@code dir}, fsyncing each new entry's parent. */
    static void ensureDirectories(Path dir) throws IOException {
        if (Files.isDirectory(dir)) {
            return;
        }
        Deque<Path> missing = new ArrayDeque<>();
        for (Path p = dir; p != null && !Files.isDirectory(p); p = p.getParent()) {
            missing.push(p);
        }
        while (!missing.isEmpty()) {
            Path d = missing.pop();
            try {
                Files.createDirectory(d);
            } catch (FileAlreadyExistsException e) {
                if (!Files.isDirectory(d)) {
                    throw new FileAlreadyExistsException(d.toString(), null,
                            "an object already exists where a key needs a directory");
                }
            }
            syncDirectory(d.getParent());
        }
    }

    /** Removes {@code dir} and its ancestors while empty (never {@code root}), then fsyncs what remains. */
    static void pruneAndSync(Path root, Path dir) throws IOException {
        Path d = dir;
        while (!d.equals(root)) {
            try {
                Files.delete(d);
            } catch (DirectoryNotEmptyException e) {
                break;
            } catch (NoSuchFileException e) {
                // Pruned already by another delete; keep walking up.
            }
            d = d.getParent();
        }
        syncDirectory(d);
    }

    static void syncDirectory(Path dir) throws IOException {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (NoSuchFileException e) {
            // Removed by a concurrent prune: nothing of ours is left in it to make durable.
        }
    }

    /**
     * Removes what other opens left under {@code tmpRoot} untouched since {@code before} (files, and
     * directories with nothing newer inside): leftovers of crashed processes. Another process's
     * entry may vanish meanwhile; that is fine.
     */
    static void removeAbandoned(Path tmpRoot, long before) throws IOException {
        try (var entries = Files.list(tmpRoot)) {
            for (Path e : (Iterable<Path>) entries::iterator) {
                try {
                    if (newestModification(e) < before) {
                        deleteRecursively(e);
                    }
                } catch (java.nio.file.NoSuchFileException gone) {
                    // Removed by its owner or another open's sweep.
                } catch (java.io.UncheckedIOException walkError) {
                    // The same, met inside a directory walk, whose iterator reports it unchecked: another
                    // broker sharing this store finished a put while its directory was being looked at.
                    if (!(walkError.getCause() instanceof java.nio.file.NoSuchFileException)) {
                        throw walkError;
                    }
                }
            }
        }
    }

    static long newestModification(Path path) throws IOException {
        try (var all = Files.walk(path)) {
            long newest = Long.MIN_VALUE;
            for (Path p : (Iterable<Path>) all::iterator) {
                newest = Math.max(newest, Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).toMillis());
            }
            return newest;
        }
    }

    static void deleteRecursively(Path path) throws IOException {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(path)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }

    /**
     * Only regular files are objects. A directory ("prefix"), or a path through a file (key
     * {@code a/b} when {@code a} is an object: ENOTDIR), is a missing object, as on S3.
     */
    static void requireObject(Path file) throws NoSuchFileException {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new NoSuchFileException(file.toString());
        }
    }
}
