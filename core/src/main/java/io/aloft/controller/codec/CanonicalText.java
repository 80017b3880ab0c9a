package io.aloft.controller.codec;

import java.util.List;

/**
 * A canonical, human-readable text form of encoded values, driven by the schemas (never by Java's
 * {@code toString}, which prints identity hashes for byte arrays): golden fixtures and state dumps
 * are compared in it, and people read it in diffs.
 *
 * <p>A record renders as {@code Name vN {field: value, ...}} with the fields of version N, the
 * version it is written at for the rendering's feature level; so text rendered for a level stays
 * the same when later versions add fields. Strings are quoted with {@code \"}, {@code \\} and
 * {@code \}{@code uXXXX} escapes for everything outside printable ASCII (the text is pure ASCII),
 * bytes are {@code 0x} and lowercase hex, enums their schema name. Tagged values carry their kind
 * ({@code int64 5}, {@code string "x"}, {@code BrokerState.ACTIVE}). A group (record, list or map)
 * that fits in {@value #WIDTH} columns stays on one line; a longer one puts each item on its own
 * line, indented by two spaces.
 *
 * <p>Thread-safe: static functions.
 */
public final class CanonicalText {
    static final int WIDTH = 120;

    private CanonicalText() {
    }

    /** The canonical text of a tagged value (any registered record or enum, or built-in kind) at {@code level}. */
    public static String render(SchemaRegistry registry, Object value, int level) {
        Doc doc = FieldType.ANY.docOf(value, new Context(registry, level));
        StringBuilder out = new StringBuilder();
        layout(doc, 0, out);
        return out.append('\n').toString();
    }

    /** What a rendering needs: the registry (for tagged values) and the feature level records are shown at. */
    record Context(SchemaRegistry registry, int level) {
    }

    /** A piece of text to lay out. */
    sealed interface Doc permits Text, Group, Entry {
    }

    record Text(String text) implements Doc {
    }

    /** Items between {@code open} and {@code close}: comma-separated on one line, or one a line. */
    record Group(String open, List<Doc> items, String close) implements Doc {
    }

    /** {@code label: value}. */
    record Entry(String label, Doc value) implements Doc {
    }

    static Doc text(String text) {
        return new Text(text);
    }

    static Doc group(String open, List<Doc> items, String close) {
        return new Group(open, List.copyOf(items), close);
    }

    static Doc entry(String label, Doc value) {
        return new Entry(label, value);
    }

    static String flat(Doc doc) {
        StringBuilder out = new StringBuilder();
        flat(doc, out);
        return out.toString();
    }

    private static void flat(Doc doc, StringBuilder out) {
        if (doc instanceof Text t) {
            out.append(t.text());
        } else if (doc instanceof Entry e) {
            out.append(e.label()).append(": ");
            flat(e.value(), out);
        } else if (doc instanceof Group g) {
            out.append(g.open());
            for (int i = 0; i < g.items().size(); i++) {
                if (i > 0) {
                    out.append(", ");
                }
                flat(g.items().get(i), out);
            }
            out.append(g.close());
        }
    }

    /** Lays {@code doc} out starting at column {@code indent} of the current line. */
    private static void layout(Doc doc, int indent, StringBuilder out) {
        String flat = flat(doc);
        if (indent + flat.length() <= WIDTH || doc instanceof Text) {
            out.append(flat);
        } else if (doc instanceof Entry e) {
            out.append(e.label()).append(": ");
            layout(e.value(), indent, out);
        } else if (doc instanceof Group g) {
            out.append(g.open()).append('\n');
            for (Doc item : g.items()) {
                out.append(" ".repeat(indent + 2));
                layout(item, indent + 2, out);
                out.append('\n');
            }
            out.append(" ".repeat(indent)).append(g.close());
        }
    }

    /** A string in double quotes, escaped so that the text is printable ASCII. */
    static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
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
        return out.append('"').toString();
    }
}
