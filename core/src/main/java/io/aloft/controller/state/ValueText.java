package io.aloft.controller.state;

import java.lang.reflect.RecordComponent;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A deterministic text form of any value a reply can hold, for {@link ControllerSnapshot#dump}:
 * records as {@code Name{component=value, ...}}, byte arrays as hex (never {@code toString}'s
 * identity hash), strings quoted, maps in key order. Not a persisted format: state comparisons in
 * tests use it, and golden fixtures use the schema-driven {@code CanonicalText} instead.
 *
 * <p>Thread-safe: static functions.
 */
final class ValueText {
    private ValueText() {
    }

    static String of(Object value) {
        StringBuilder out = new StringBuilder();
        append(out, value);
        return out.toString();
    }

    static void append(StringBuilder out, Object value) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String s) {
            out.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '"' || c == '\\') {
                    out.append('\\').append(c);
                } else if (c >= 0x20 && c < 0x7f) {
                    out.append(c);
                } else {
                    out.append(String.format("\\u%04x", (int) c));
                }
            }
            out.append('"');
        } else if (value instanceof byte[] bytes) {
            out.append("0x").append(HexFormat.of().formatHex(bytes));
        } else if (value instanceof Enum<?> e) {
            out.append(e.name());
        } else if (value instanceof List<?> list) {
            out.append('[');
            for (int i = 0; i < list.size(); i++) {
                out.append(i == 0 ? "" : ", ");
                append(out, list.get(i));
            }
            out.append(']');
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : sorted(map).entrySet()) {
                out.append(first ? "" : ", ");
                first = false;
                append(out, e.getKey());
                out.append('=');
                append(out, e.getValue());
            }
            out.append('}');
        } else if (value.getClass().isRecord()) {
            out.append(value.getClass().getSimpleName()).append('{');
            RecordComponent[] components = value.getClass().getRecordComponents();
            for (int i = 0; i < components.length; i++) {
                out.append(i == 0 ? "" : ", ").append(components[i].getName()).append('=');
                try {
                    append(out, components[i].getAccessor().invoke(value));
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            }
            out.append('}');
        } else {
            out.append(value); // numbers, booleans, UUIDs
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Map<?, ?> sorted(Map<?, ?> map) {
        for (Object key : map.keySet()) {
            if (!(key instanceof Comparable)) {
                return map;
            }
        }
        return new TreeMap(map);
    }
}
