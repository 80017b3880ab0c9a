package io.aloft.autoscaler.collect;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One scrape in the Prometheus text exposition format 0.0.4, what a broker's {@code /metrics} serves
 * when the scraper does not ask for OpenMetrics: one sample a line, {@code name{label="value",...}
 * value [timestamp]}. {@code # HELP}, {@code # TYPE} and other comments are skipped, as are blank
 * lines. Label values are unescaped ({@code \\}, {@code \"}, {@code \n}); values may be {@code NaN},
 * {@code +Inf} and {@code -Inf}; timestamps are read past and dropped (a broker does not send them).
 *
 * <p>A line that does not parse is skipped and counted ({@link #skippedLines()}, with the first such
 * line and why in {@link #firstProblem()}): one bad series must not blind the autoscaler to the rest
 * of a broker, so {@link #parse} never throws on content.
 *
 * <p>Immutable once parsed; thread-safe.
 */
public final class PrometheusText {

    /**
     * One sample.
     *
     * @param name the metric name, with its {@code _total}, {@code _bucket}... suffix as served
     * @param labels label name to unescaped value, sorted by name
     * @param value the value; NaN and infinities as served
     */
    public record Sample(String name, Map<String, String> labels, double value) {
        public Sample {
            Objects.requireNonNull(name, "name");
            labels = Collections.unmodifiableMap(new TreeMap<>(labels));
        }

        /** The value of label {@code label}, or null when the sample has no such label. */
        public String label(String label) {
            return labels.get(label);
        }
    }

    private final List<Sample> samples;
    private final int skippedLines;
    private final String firstProblem;

    private PrometheusText(List<Sample> samples, int skippedLines, String firstProblem) {
        this.samples = List.copyOf(samples);
        this.skippedLines = skippedLines;
        this.firstProblem = firstProblem;
    }

    /** Parses a whole exposition; never throws on its content. */
    public static PrometheusText parse(String text) {
        List<Sample> samples = new ArrayList<>();
        int skipped = 0;
        String first = null;
        int lineNo = 0;
        for (String raw : text.split("\n", -1)) {
            lineNo++;
            String line = raw.endsWith("\r") ? raw.substring(0, raw.length() - 1) : raw;
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            try {
                samples.add(new LineParser(trimmed).sample());
            } catch (IllegalArgumentException e) {
                skipped++;
                if (first == null) {
                    first = "line " + lineNo + " (" + e.getMessage() + "): " + abbreviate(trimmed);
                }
            }
        }
        return new PrometheusText(samples, skipped, first);
    }

    /** Every sample, in the order served. */
    public List<Sample> samples() {
        return samples;
    }

    /** Samples named {@code name}. */
    public List<Sample> samples(String name) {
        return samples.stream().filter(s -> s.name().equals(name)).toList();
    }

    /**
     * The value of the sample named {@code name} whose labels include every entry of {@code labels},
     * summed over all such samples (a meter with more labels than asked for is aggregated over
     * them); NaN when there is none.
     */
    public double sum(String name, Map<String, String> labels) {
        double total = 0;
        boolean found = false;
        for (Sample s : samples) {
            if (s.name().equals(name) && matches(s, labels)) {
                total += s.value();
                found = true;
            }
        }
        return found ? total : Double.NaN;
    }

    /** Whether {@code s} carries every label of {@code labels} with that value. */
    static boolean matches(Sample s, Map<String, String> labels) {
        for (Map.Entry<String, String> e : labels.entrySet()) {
            if (!e.getValue().equals(s.labels().get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /** Lines that did not parse and were skipped. */
    public int skippedLines() {
        return skippedLines;
    }

    /** The first skipped line, its number and why, or null when none was skipped. */
    public String firstProblem() {
        return firstProblem;
    }

    private static String abbreviate(String s) {
        return s.length() <= 120 ? s : s.substring(0, 120) + "...";
    }

    /** Parses one non-comment line; throws IllegalArgumentException naming what is wrong. */
    private static final class LineParser {
        private final String s;
        private int pos;

        LineParser(String s) {
            this.s = s;
        }

        Sample sample() {
            String name = name(true);
            Map<String, String> labels = new TreeMap<>();
            int afterName = pos;
            skipBlanks();
            boolean blank = pos > afterName;
            if (pos < s.length() && s.charAt(pos) == '{') {
                pos++;
                labels(labels);
                int afterLabels = pos;
                skipBlanks();
                blank = pos > afterLabels;
            }
            if (!blank) {
                throw new IllegalArgumentException("no blank before the value");
            }
            double value = number(token());
            skipBlanks();
            if (pos < s.length()) {
                String ts = token();
                if (!ts.matches("-?[0-9]+")) {
                    throw new IllegalArgumentException("bad timestamp '" + ts + "'");
                }
                skipBlanks();
                if (pos < s.length()) {
                    throw new IllegalArgumentException("text after the timestamp");
                }
            }
            return new Sample(name, labels, value);
        }

        private void labels(Map<String, String> labels) {
            while (true) {
                skipBlanks();
                if (pos >= s.length()) {
                    throw new IllegalArgumentException("unterminated label set");
                }
                if (s.charAt(pos) == '}') {
                    pos++;
                    return;
                }
                String label = name(false);
                skipBlanks();
                expect('=');
                skipBlanks();
                expect('"');
                String value = quoted();
                if (labels.put(label, value) != null) {
                    throw new IllegalArgumentException("label " + label + " twice");
                }
                skipBlanks();
                if (pos < s.length() && s.charAt(pos) == ',') {
                    pos++;
                } else if (pos >= s.length() || s.charAt(pos) != '}') {
                    throw new IllegalArgumentException("expected ',' or '}' after label " + label);
                }
            }
        }

        /** The rest of a label value after its opening quote, unescaped; consumes the closing quote. */
        private String quoted() {
            StringBuilder out = new StringBuilder();
            while (pos < s.length()) {
                char c = s.charAt(pos++);
                if (c == '"') {
                    return out.toString();
                }
                if (c == '\\') {
                    if (pos >= s.length()) {
                        break;
                    }
                    char e = s.charAt(pos++);
                    switch (e) {
                        case 'n' -> out.append('\n');
                        case '\\' -> out.append('\\');
                        case '"' -> out.append('"');
                        // The format defines only those three; keep anything else as written.
                        default -> out.append('\\').append(e);
                    }
                } else {
                    out.append(c);
                }
            }
            throw new IllegalArgumentException("unterminated label value");
        }

        /** A metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) or, without colons, a label name. */
        private String name(boolean metric) {
            int start = pos;
            while (pos < s.length()) {
                char c = s.charAt(pos);
                boolean letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (metric && c == ':');
                boolean digit = c >= '0' && c <= '9';
                if (letter || (digit && pos > start)) {
                    pos++;
                } else {
                    break;
                }
            }
            if (pos == start) {
                throw new IllegalArgumentException(metric ? "bad metric name" : "bad label name");
            }
            return s.substring(start, pos);
        }

        private String token() {
            int start = pos;
            while (pos < s.length() && s.charAt(pos) != ' ' && s.charAt(pos) != '\t') {
                pos++;
            }
            return s.substring(start, pos);
        }

        private void expect(char c) {
            if (pos >= s.length() || s.charAt(pos) != c) {
                throw new IllegalArgumentException("expected '" + c + "'");
            }
            pos++;
        }

        private void skipBlanks() {
            while (pos < s.length() && (s.charAt(pos) == ' ' || s.charAt(pos) == '\t')) {
                pos++;
            }
        }

        /** Go's ParseFloat syntax as the format allows it: decimal, exponent, NaN, [+-]Inf. */
        private static double number(String t) {
            switch (t) {
                case "NaN":
                    return Double.NaN;
                case "+Inf":
                case "Inf":
                    return Double.POSITIVE_INFINITY;
                case "-Inf":
                    return Double.NEGATIVE_INFINITY;
                default:
                    break;
            }
            // Java also reads hex floats and a trailing 'd' or 'f'; the format has neither.
            if (t.isEmpty() || !t.matches("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?")) {
                throw new IllegalArgumentException("bad value '" + t + "'");
            }
            return Double.parseDouble(t);
        }
    }
}
