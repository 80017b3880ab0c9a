package io.aloft.bench.wal;

import java.nio.file.Path;

/**
 * Command-line options of one {@link WalBenchmark} run. Immutable.
 *
 * @param dir directory the benchmark files are created in (a fresh sub-directory of it, deleted at the end)
 * @param jsonDir directory the JSON results are written to
 * @param quick shorter windows (a smoke run, about a minute), same cells
 * @param capacity size of the WAL file and of the raw-write file
 * @param cell if not null, run only this WAL cell (for profiling) and no report
 */
record BenchOptions(Path dir, Path jsonDir, boolean quick, long capacity, Cell cell) {
    static final long DEFAULT_CAPACITY = 1L << 30;
    static final long QUICK_CAPACITY = 512L << 20;

    static final String USAGE = String.join("\n",
            "usage: WalBenchmark [--dir DIR] [--json-dir DIR] [--quick] [--capacity BYTES]",
            "  --dir DIR        where to create the 1 GiB files (default ./target); the file system of DIR",
            "                   is the one measured",
            "  --json-dir DIR   where to write wal-bench-<timestamp>.json (default ./target)",
            "  --quick          ~1 s warm-up + 2 s per cell instead of 2 s + 8 s",
            "  --capacity N     WAL and raw file size in bytes (default 1 GiB, 512 MiB with --quick)",
            "  --cell S,A[,I]   only one closed-loop WAL cell: record size S bytes, A appenders,",
            "                   I inflight writes (default 2); no report (for profiling)",
            "  --open S,R[,I]   only one open-loop WAL cell: S bytes at R appends/s; no report");

    static BenchOptions parse(String[] args) {
        Path dir = Path.of("target");
        Path jsonDir = Path.of("target");
        boolean quick = false;
        Long capacity = null;
        Cell cell = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dir" -> dir = Path.of(value(args, ++i, "--dir"));
                case "--json-dir" -> jsonDir = Path.of(value(args, ++i, "--json-dir"));
                case "--quick" -> quick = true;
                case "--capacity" -> capacity = Long.parseLong(value(args, ++i, "--capacity"));
                case "--cell" -> cell = Cell.parse(value(args, ++i, "--cell"), false);
                case "--open" -> cell = Cell.parse(value(args, ++i, "--open"), true);
                case "-h", "--help" -> throw new IllegalArgumentException(USAGE);
                default -> throw new IllegalArgumentException("unknown option " + args[i] + "\n" + USAGE);
            }
        }
        if (capacity == null) {
            // A smoke run saves the time of preallocating 2 GiB; the ring stays far larger than the
            // trimmer's lag (tens of milliseconds of writes).
            capacity = quick ? QUICK_CAPACITY : DEFAULT_CAPACITY;
        }
        if (capacity < (64L << 20) || capacity % 4096 != 0) {
            throw new IllegalArgumentException("--capacity must be a multiple of 4096 and at least 64 MiB");
        }
        return new BenchOptions(dir, jsonDir, quick, capacity, cell);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value\n" + USAGE);
        }
        return args[i];
    }

    /** Warm-up and measured window of one raw-write cell. */
    Window rawWindow() {
        return quick ? new Window(500, 1500) : new Window(1000, 4000);
    }

    /** Warm-up and measured window of one WAL cell. */
    Window walWindow() {
        return quick ? new Window(1000, 2000) : new Window(2000, 8000);
    }

    int fioSeconds() {
        return quick ? 2 : 5;
    }

    /**
     * One WAL cell chosen on the command line.
     *
     * @param load appenders (closed loop) or appends per second (open loop)
     */
    record Cell(boolean open, int recordSize, int load, int inflight) {
        static Cell parse(String spec, boolean open) {
            String[] f = spec.split(",");
            if (f.length < 2 || f.length > 3) {
                throw new IllegalArgumentException("wanted SIZE," + (open ? "RATE" : "APPENDERS")
                        + "[,INFLIGHT], not " + spec);
            }
            return new Cell(open, Integer.parseInt(f[0].trim()), Integer.parseInt(f[1].trim()),
                    f.length == 3 ? Integer.parseInt(f[2].trim()) : 2);
        }
    }

    /** A warm-up followed by a measured window, in milliseconds. */
    record Window(long warmupMs, long measureMs) {
    }
}
