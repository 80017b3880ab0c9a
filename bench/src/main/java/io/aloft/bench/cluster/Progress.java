package io.aloft.bench.cluster;

import java.nio.file.Path;

/**
 * A cluster benchmark's progress lines on stderr (seconds since the JVM loaded this class, i.e.
 * since the benchmark started), its pauses, and the deletion of its scratch data. Stateless.
 */
public final class Progress {
    private static final long START = System.nanoTime();

    private Progress() {
    }

    /** Seconds since the benchmark started. */
    public static double elapsedSeconds() {
        return (System.nanoTime() - START) / 1e9;
    }

    /** One line on stderr, prefixed with the seconds since the start. */
    public static void progress(String format, Object... args) {
        System.err.printf("[%6.1f s] %s%n", elapsedSeconds(), String.format(format, args));
    }

    /** Sleeps {@code ms}: a benchmark's windows and pauses, not a test's wait. */
    public static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Prints a benchmark's Markdown report on stdout and writes it with its JSON twin as
     * {@code <dir>/<name>-<stamp>.{md,json}}; returns the JSON file's path.
     */
    public static Path writeReport(Path dir, String name, String stamp, String markdown, String json)
            throws java.io.IOException {
        System.out.print(markdown);
        java.nio.file.Files.createDirectories(dir);
        java.nio.file.Files.writeString(dir.resolve(name + "-" + stamp + ".md"), markdown);
        Path jsonFile = dir.resolve(name + "-" + stamp + ".json");
        java.nio.file.Files.writeString(jsonFile, json);
        return jsonFile.toAbsolutePath();
    }

    /** Deletes {@code dir}, saying so on stderr if it could not. */
    public static void deleteTree(Path dir) {
        Exception e = Scratch.deleteTree(dir);
        if (e != null) {
            progress("could not delete %s: %s", dir, e);
        }
    }
}
