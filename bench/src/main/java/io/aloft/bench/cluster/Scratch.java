package io.aloft.bench.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/** A benchmark's scratch directory. Stateless. */
public final class Scratch {
    private Scratch() {
    }

    /** Deletes {@code dir} and everything under it, if it exists; returns the failure, or null. */
    public static Exception deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return null;
        }
        try (var walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            return null;
        } catch (Exception e) {
            return e;
        }
    }
}
