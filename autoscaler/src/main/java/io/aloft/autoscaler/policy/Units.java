package io.aloft.autoscaler.policy;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the policy file's human spellings of sizes and durations. Sizes: a plain number (bytes),
 * or a number with a unit, binary ({@code KiB MiB GiB TiB}, powers of 1024) or decimal
 * ({@code KB MB GB TB}, powers of 1000), optionally followed by {@code /s} since every size in the
 * file is a rate. Durations: {@code 500ms 30s 5m 1h 2d} or ISO-8601 ({@code PT30S}); a bare number
 * is refused because its unit would be a guess.
 *
 * <p>Stateless; the methods throw {@link IllegalArgumentException} with a message meant to follow
 * the field's path in a {@link PolicyException}.
 */
public final class Units {

    private static final Pattern SIZE = Pattern.compile("([+-]?[0-9]+(?:\\.[0-9]+)?)\\s*([A-Za-z]*)(/s)?");
    private static final Pattern DURATION = Pattern.compile("(-?[0-9]+(?:\\.[0-9]+)?)\\s*(ms|s|m|h|d)");

    private Units() {
    }

    /** Bytes in {@code text} ("50MiB", "40MB", "1.5GiB/s", "1048576"). */
    public static double parseSize(String text) {
        Matcher m = SIZE.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a size (e.g. 50MiB, 40MB, 1048576), was '" + text + "'");
        }
        double number = Double.parseDouble(m.group(1));
        double unit = switch (m.group(2).toUpperCase(Locale.ROOT)) {
            case "", "B" -> 1;
            case "KB" -> 1e3;
            case "MB" -> 1e6;
            case "GB" -> 1e9;
            case "TB" -> 1e12;
            case "KIB" -> 1L << 10;
            case "MIB" -> 1L << 20;
            case "GIB" -> 1L << 30;
            case "TIB" -> 1L << 40;
            default -> throw new IllegalArgumentException("unknown size unit '" + m.group(2)
                    + "' (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), was '" + text + "'");
        };
        return number * unit;
    }

    /** The duration in {@code text} ("30s", "5m", "500ms", "PT30S"). */
    public static Duration parseDuration(String text) {
        String t = text.trim();
        if (t.regionMatches(true, 0, "P", 0, 1)) {
            try {
                return Duration.parse(t);
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("not an ISO-8601 duration, was '" + text + "'");
            }
        }
        Matcher m = DURATION.matcher(t);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration (e.g. 30s, 5m, 500ms, PT30S), was '" + text + "'");
        }
        double number = Double.parseDouble(m.group(1));
        double millis = switch (m.group(2)) {
            case "ms" -> number;
            case "s" -> number * 1_000;
            case "m" -> number * 60_000;
            case "h" -> number * 3_600_000;
            default -> number * 86_400_000;
        };
        return Duration.ofMillis(Math.round(millis));
    }

    /** {@code value} as written in a message: "-5", "0.25". */
    static String formatNumber(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        return Double.toString(value);
    }

    /** A rate for logs: "41.9 MiB/s". */
    public static String formatRate(double bytesPerSec) {
        if (Double.isNaN(bytesPerSec)) {
            return "unknown";
        }
        double abs = Math.abs(bytesPerSec);
        if (abs >= 1L << 30) {
            return String.format(Locale.ROOT, "%.2f GiB/s", bytesPerSec / (1L << 30));
        } else if (abs >= 1L << 20) {
            return String.format(Locale.ROOT, "%.1f MiB/s", bytesPerSec / (1L << 20));
        } else if (abs >= 1L << 10) {
            return String.format(Locale.ROOT, "%.1f KiB/s", bytesPerSec / (1L << 10));
        }
        return String.format(Locale.ROOT, "%.0f B/s", bytesPerSec);
    }
}
