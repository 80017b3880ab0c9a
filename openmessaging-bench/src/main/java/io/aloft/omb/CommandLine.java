package io.aloft.omb;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The options of one command: {@code --name value} pairs, each name at most once. Immutable;
 * parsing rejects unknown names, repeats and missing values on the spot, naming the option.
 */
public final class CommandLine {
    private final Map<String, String> values;

    private CommandLine(Map<String, String> values) {
        this.values = Map.copyOf(values);
    }

    /**
     * @param known the option names this command takes, with their dashes (e.g. {@code --json})
     */
    public static CommandLine parse(String[] args, Set<String> known) throws UsageException {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            String value = null;
            int eq = name.indexOf('=');
            if (name.startsWith("--") && eq > 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (!known.contains(name)) {
                throw new UsageException(name.startsWith("--") ? "unknown option " + name
                        : "unexpected argument '" + name + "'");
            }
            if (value == null) {
                if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
                    throw new UsageException("option " + name + " needs a value");
                }
                value = args[++i];
            }
            if (values.put(name, value) != null) {
                throw new UsageException("option " + name + " given twice");
            }
        }
        return new CommandLine(values);
    }

    public boolean has(String name) {
        return values.containsKey(name);
    }

    public String required(String name) throws UsageException {
        String v = values.get(name);
        if (v == null || v.isBlank()) {
            throw new UsageException("option " + name + " is required");
        }
        return v;
    }

    public String value(String name, String defaultValue) {
        return values.getOrDefault(name, defaultValue);
    }

    /** A file that must exist. */
    public Path existingFile(String name) throws UsageException {
        Path p = Path.of(required(name));
        if (!p.toFile().isFile()) {
            throw new UsageException("option " + name + ": no such file: " + p);
        }
        return p;
    }

    /** A number of at least {@code min}, or {@code defaultValue} when absent. */
    public double number(String name, double min, double defaultValue) throws UsageException {
        String v = values.get(name);
        if (v == null) {
            return defaultValue;
        }
        double d;
        try {
            d = Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new UsageException("option " + name + " must be a number, got '" + v + "'");
        }
        if (!Double.isFinite(d) || d < min) {
            String least = min == Math.rint(min) ? Long.toString((long) min) : Double.toString(min);
            throw new UsageException("option " + name + " must be at least " + least + ", got '" + v + "'");
        }
        return d;
    }

    /** A whole number of at least {@code min}, or {@code defaultValue} when absent. */
    public int integer(String name, int min, int defaultValue) throws UsageException {
        double d = number(name, min, defaultValue);
        if (d != Math.rint(d) || d > Integer.MAX_VALUE) {
            throw new UsageException("option " + name + " must be a whole number, got '" + values.get(name) + "'");
        }
        return (int) d;
    }
}
