package io.aloft.bench.wal;

import java.lang.reflect.RecordComponent;
import java.util.List;

/**
 * Everything one run measured, and its JSON form. Immutable.
 *
 * @param maxBatchBytes {@code wal.max.batch.bytes} the WAL ran with (its default)
 * @param defaultInflight {@code wal.max.inflight.writes} default, used by the grid and the open loop
 */
record Results(String date, String gitRevision, boolean quick, BenchOptions.Window rawWindow,
        BenchOptions.Window walWindow, MachineInfo machine, String loadAtEnd, long capacity, int maxBatchBytes,
        int defaultInflight, List<RawDirectWrite.Result> raw, FioProbe.Result fio,
        List<WalLoad.ClosedResult> grid, WalLoad.OpenResult halfLoad, List<WalLoad.ClosedResult> inflightSweep,
        double elapsedSeconds) {

    /** Raw QD1 1 MiB: the device's durable sequential bandwidth, the WAL's yardstick. */
    double rawReferenceMbPerSec() {
        return raw.stream().filter(r -> r.writeSize() == 1 << 20 && r.threads() == 1)
                .mapToDouble(RawDirectWrite.Result::mbPerSec).findFirst().orElse(Double.NaN);
    }

    /** The best raw figure over every raw cell (and fio, if it ran). */
    double rawBestMbPerSec() {
        double best = raw.stream().mapToDouble(RawDirectWrite.Result::mbPerSec).max().orElse(Double.NaN);
        return fio.ran() ? Math.max(best, fio.mbPerSec()) : best;
    }

    /** The grid cell with these parameters, or null. */
    WalLoad.ClosedResult gridCell(int recordSize, int appenders) {
        return grid.stream().filter(c -> c.recordSize() == recordSize && c.appenders() == appenders).findFirst()
                .orElse(null);
    }

    String toJson() {
        StringBuilder sb = new StringBuilder();
        write(sb, this, 0);
        return sb.append('\n').toString();
    }

    /** Serializes records (by component), lists, numbers, booleans and strings; NaN becomes null. */
    private static void write(StringBuilder sb, Object v, int depth) {
        if (v == null || (v instanceof Double d && !Double.isFinite(d))) {
            sb.append("null");
        } else if (v instanceof Number || v instanceof Boolean) {
            sb.append(v);
        } else if (v instanceof Record r) {
            RecordComponent[] cs = r.getClass().getRecordComponents();
            sb.append('{');
            for (int i = 0; i < cs.length; i++) {
                newline(sb, depth + 1);
                quote(sb, cs[i].getName());
                sb.append(": ");
                try {
                    write(sb, cs[i].getAccessor().invoke(r), depth + 1);
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
                sb.append(i < cs.length - 1 ? "," : "");
            }
            newline(sb, depth);
            sb.append('}');
        } else if (v instanceof List<?> list) {
            sb.append('[');
            for (int i = 0; i < list.size(); i++) {
                newline(sb, depth + 1);
                write(sb, list.get(i), depth + 1);
                sb.append(i < list.size() - 1 ? "," : "");
            }
            newline(sb, depth);
            sb.append(']');
        } else {
            quote(sb, v.toString());
        }
    }

    private static void newline(StringBuilder sb, int depth) {
        sb.append('\n').append("  ".repeat(depth));
    }

    private static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
