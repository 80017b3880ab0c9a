package io.aloft.bench.wal;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A cross-check of the raw figure with fio, when fio is on PATH (never installed by the harness):
 * one sequential 1 MiB writer, O_DIRECT + O_SYNC, psync engine, time-based over the same file.
 * Stateless.
 */
final class FioProbe {
    /** Outcome: a bandwidth, or why there is none. */
    record Result(boolean ran, String command, String note, double mbPerSec, double writesPerSec) {
    }

    private static final Pattern BW_BYTES = Pattern.compile("\"bw_bytes\"\\s*:\\s*(\\d+)");
    private static final Pattern IOPS = Pattern.compile("\"iops\"\\s*:\\s*([0-9.eE+]+)");

    private FioProbe() {
    }

    static Optional<Path> findOnPath() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, "fio");
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    static Result run(Path file, long size, int seconds) throws InterruptedException {
        Optional<Path> fio = findOnPath();
        if (fio.isEmpty()) {
            return new Result(false, "", "fio not found on PATH: not run", Double.NaN, Double.NaN);
        }
        List<String> cmd = List.of(fio.get().toString(), "--name=seq", "--filename=" + file, "--rw=write",
                "--bs=1M", "--direct=1", "--sync=1", "--ioengine=psync", "--size=" + size,
                "--runtime=" + seconds, "--time_based", "--output-format=json");
        String shown = String.join(" ", cmd);
        try {
            Path out = Files.createTempFile(file.getParent(), "fio-", ".json");
            try {
                Process p = new ProcessBuilder(cmd).redirectErrorStream(false)
                        .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
                if (!p.waitFor(seconds + 60L, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    return new Result(false, shown, "fio did not finish in time", Double.NaN, Double.NaN);
                }
                String json = Files.readString(out, StandardCharsets.UTF_8);
                if (p.exitValue() != 0) {
                    return new Result(false, shown, "fio exited with " + p.exitValue(), Double.NaN, Double.NaN);
                }
                return parse(shown, json);
            } finally {
                Files.deleteIfExists(out);
            }
        } catch (IOException e) {
            return new Result(false, shown, "fio could not run: " + e, Double.NaN, Double.NaN);
        }
    }

    /** Reads the write section of fio's JSON (the read section precedes it and is zero here). */
    static Result parse(String command, String json) {
        int write = json.indexOf("\"write\"");
        if (write < 0) {
            return new Result(false, command, "fio output has no write section", Double.NaN, Double.NaN);
        }
        String section = json.substring(write);
        Matcher bw = BW_BYTES.matcher(section);
        Matcher iops = IOPS.matcher(section);
        if (!bw.find()) {
            return new Result(false, command, "fio output has no bw_bytes", Double.NaN, Double.NaN);
        }
        double writes = iops.find() ? Double.parseDouble(iops.group(1)) : Double.NaN;
        return new Result(true, command, "", Long.parseLong(bw.group(1)) / 1e6, writes);
    }
}
