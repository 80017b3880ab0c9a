package io.aloft.omb.workload;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.util.Iterator;
import java.util.Set;
import java.util.TreeSet;

/**
 * Typed reads of the top-level fields of one YAML mapping, failing with a {@link
 * ConfigFileException} that names the field. Reading the tree by hand, rather than binding it to a
 * class, is what lets every message name the field and say what was expected. Not thread-safe;
 * one instance reads one document.
 */
final class YamlFields {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private final String what;
    private final ObjectNode root;

    private YamlFields(String what, ObjectNode root) {
        this.what = what;
        this.root = root;
    }

    /**
     * Parses {@code yaml} as one mapping.
     *
     * @param what how messages name the document, e.g. {@code "workload file a.yaml"}
     */
    static YamlFields parse(String what, String yaml) {
        JsonNode node;
        try {
            node = YAML.readTree(yaml);
        } catch (JsonProcessingException e) {
            throw new ConfigFileException(what + ": not valid YAML: " + e.getOriginalMessage(), e);
        }
        if (!(node instanceof ObjectNode object)) {
            throw new ConfigFileException(what + ": expected a mapping of field: value at the top level");
        }
        return new YamlFields(what, object);
    }

    /** Fails naming the first field not in {@code known}, and lists the known ones. */
    void rejectUnknown(Set<String> known) {
        for (Iterator<String> it = root.fieldNames(); it.hasNext();) {
            String field = it.next();
            if (!known.contains(field)) {
                throw new ConfigFileException(what + ": unknown field '" + field + "' (known fields: "
                        + String.join(", ", new TreeSet<>(known)) + ")");
            }
        }
    }

    boolean has(String field) {
        JsonNode n = root.get(field);
        return n != null && !n.isNull();
    }

    ConfigFileException error(String field, String problem) {
        return new ConfigFileException(what + ": field '" + field + "' " + problem);
    }

    String requiredString(String field) {
        if (!has(field)) {
            throw error(field, "is missing");
        }
        return string(field, null);
    }

    String string(String field, String defaultValue) {
        JsonNode n = root.get(field);
        if (n == null || n.isNull()) {
            return defaultValue;
        }
        if (!n.isValueNode()) {
            throw error(field, "must be a single value, got " + n.getNodeType().name().toLowerCase());
        }
        return n.asText();
    }

    int requiredInt(String field) {
        if (!has(field)) {
            throw error(field, "is missing");
        }
        return intValue(field, 0);
    }

    int intValue(String field, int defaultValue) {
        double d = number(field, defaultValue);
        if (d != Math.rint(d) || d > Integer.MAX_VALUE || d < Integer.MIN_VALUE) {
            throw error(field, "must be a whole number, got " + root.get(field).asText());
        }
        return (int) d;
    }

    /** {@code true}/{@code false} (YAML booleans, or those words as text); anything else fails. */
    boolean bool(String field, boolean defaultValue) {
        JsonNode n = root.get(field);
        if (n == null || n.isNull()) {
            return defaultValue;
        }
        if (n.isBoolean()) {
            return n.asBoolean();
        }
        String text = n.isTextual() ? n.asText().trim() : "";
        if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(text);
        }
        throw error(field, "must be true or false, got '" + n.asText() + "'");
    }

    double requiredNumber(String field) {
        if (!has(field)) {
            throw error(field, "is missing");
        }
        return number(field, 0);
    }

    double number(String field, double defaultValue) {
        JsonNode n = root.get(field);
        if (n == null || n.isNull()) {
            return defaultValue;
        }
        double d = Double.NaN;
        if (n.isNumber()) {
            d = n.asDouble();
        } else if (n.isTextual()) {
            // YAML scalars such as "10_000" or quoted numbers arrive as text.
            try {
                d = Double.parseDouble(n.asText().replace("_", "").trim());
            } catch (NumberFormatException e) {
                d = Double.NaN;
            }
        }
        if (!Double.isFinite(d)) {
            throw error(field, "must be a number, got '" + n.asText() + "'");
        }
        return d;
    }
}
