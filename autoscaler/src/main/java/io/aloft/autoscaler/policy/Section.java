package io.aloft.autoscaler.policy;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * One mapping of the policy file being read, with its path ({@code scaling.targetTracking[0]}).
 * Every getter records the key as known; a value of the wrong type is recorded as an error naming
 * the path and read as absent, so parsing goes on and the loader reports every problem at once.
 * {@link #finish()} reports the keys nobody asked for: the file is strict, a misspelt key is an
 * error rather than a silently applied default.
 *
 * <p>Confined to the loading thread.
 */
final class Section {

    private final String path;
    private final JsonNode node;
    private final List<String> errors;
    private final TreeSet<String> known = new TreeSet<>();

    Section(String path, JsonNode node, List<String> errors) {
        this.path = path;
        this.node = node != null && node.isObject() ? node : null;
        this.errors = errors;
    }

    /** The full path of {@code key} in this section. */
    String path(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    /** This section's path ("" for the file's top level). */
    String path() {
        return path;
    }

    /** Whether the section was in the file at all. */
    boolean present() {
        return node != null;
    }

    /** Whether {@code key} has a non-null value (and marks it known). */
    boolean has(String key) {
        known.add(key);
        return node != null && node.hasNonNull(key);
    }

    /** Records an error on {@code key}. */
    void error(String key, String message) {
        errors.add(path(key) + ": " + message);
    }

    /** Records an error on the section itself. */
    void error(String message) {
        errors.add((path.isEmpty() ? "(top level)" : path) + ": " + message);
    }

    Optional<String> string(String key) {
        return scalar(key, "a string", n -> n.isValueNode() ? n.asText() : null);
    }

    Optional<Boolean> bool(String key) {
        return scalar(key, "true or false", n -> n.isBoolean() ? n.booleanValue() : null);
    }

    /** An integer, written as a number or a signed string ("+2"). */
    Optional<Integer> integer(String key) {
        return scalar(key, "an integer", n -> {
            if (n.isIntegralNumber() && n.canConvertToInt()) {
                return n.intValue();
            }
            if (n.isTextual() && n.asText().trim().matches("[+-]?[0-9]{1,9}")) {
                return Integer.parseInt(n.asText().trim());
            }
            return null;
        });
    }

    Optional<Double> number(String key) {
        return scalar(key, "a number", n -> n.isNumber() ? n.doubleValue() : null);
    }

    /** A size in bytes: a number, or text such as "50MiB" (see {@link Units#parseSize}). */
    Optional<Double> size(String key) {
        return parsed(key, Units::parseSize);
    }

    /** A duration: "30s", "5m", "PT30S" (see {@link Units#parseDuration}). */
    Optional<Duration> duration(String key) {
        return parsed(key, Units::parseDuration);
    }

    /** A value parsed from its text by {@code parser}, whose IllegalArgumentException becomes an error. */
    <T> Optional<T> parsed(String key, Function<String, T> parser) {
        Optional<String> text = scalar(key, "a scalar", n -> n.isValueNode() ? n.asText() : null);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(parser.apply(text.get()));
        } catch (IllegalArgumentException e) {
            error(key, e.getMessage());
            return Optional.empty();
        }
    }

    /** The mapping at {@code key}; an absent one reads as empty (every key at its default). */
    Section section(String key) {
        if (has(key) && !node.get(key).isObject()) {
            error(key, "must be a mapping of keys to values");
            return new Section(path(key), null, errors);
        }
        return new Section(path(key), node == null ? null : node.get(key), errors);
    }

    /** The mappings of the list at {@code key}, each with its index in its path; absent reads as empty. */
    List<Section> list(String key) {
        List<Section> items = new ArrayList<>();
        if (!has(key)) {
            return items;
        }
        JsonNode value = node.get(key);
        if (!value.isArray()) {
            error(key, "must be a list");
            return items;
        }
        for (int i = 0; i < value.size(); i++) {
            String itemPath = path(key) + "[" + i + "]";
            if (!value.get(i).isObject()) {
                errors.add(itemPath + ": must be a mapping of keys to values");
            }
            items.add(new Section(itemPath, value.get(i), errors));
        }
        return items;
    }

    /** Records an error for each key in the file that no getter asked for, in file order. */
    void finish() {
        if (node == null) {
            return;
        }
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!known.contains(name)) {
                error(name, "unknown key (expected one of: " + String.join(", ", known) + ")");
            }
        }
    }

    private <T> Optional<T> scalar(String key, String expected, Function<JsonNode, T> read) {
        if (!has(key)) {
            return Optional.empty();
        }
        JsonNode value = node.get(key);
        T result = read.apply(value);
        if (result == null) {
            error(key, "must be " + expected + ", was " + describe(value));
        }
        return Optional.ofNullable(result);
    }

    private static String describe(JsonNode value) {
        if (value.isObject()) {
            return "a mapping";
        } else if (value.isArray()) {
            return "a list";
        } else if (value.isTextual()) {
            return "'" + value.asText() + "'";
        }
        return value.toString();
    }
}
