package io.aloft.omb.report;

import java.util.Locale;
import java.util.Map;

/**
 * The human-readable table of one run's figures: one row per figure, in the figures' order, the
 * name left and the value right-aligned. Stateless.
 */
public final class ResultTable {
    private ResultTable() {
    }

    public static String format(String workload, Map<String, Double> figures) {
        int width = "figure".length();
        for (String name : figures.keySet()) {
            width = Math.max(width, name.length());
        }
        String row = "%-" + width + "s  %14s%n";
        StringBuilder sb = new StringBuilder();
        sb.append("workload: ").append(workload).append(System.lineSeparator());
        sb.append(String.format(Locale.ROOT, row, "figure", "value"));
        sb.append("-".repeat(width + 16)).append(System.lineSeparator());
        figures.forEach((name, value) -> sb.append(String.format(Locale.ROOT, row, name, value(value))));
        return sb.toString();
    }

    /** Whole numbers without decimals, others with two (three below 1); NaN (not measured) as "-". */
    static String value(Double v) {
        if (v == null || v.isNaN()) {
            return "-";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return String.format(Locale.ROOT, "%d", v.longValue());
        }
        return Math.abs(v) < 1 ? String.format(Locale.ROOT, "%.3f", v) : String.format(Locale.ROOT, "%.2f", v);
    }
}
