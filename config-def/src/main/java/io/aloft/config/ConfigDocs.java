package io.aloft.config;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reference documentation rendered from definitions: a Markdown table per definition, placed in a
 * document between {@code <!-- config:NAME -->} and {@code <!-- /config:NAME -->} so the text
 * around it stays hand-written while the table cannot drift from the code. Stateless.
 */
public final class ConfigDocs {
    private static final Pattern START = Pattern.compile("<!-- config:([a-z0-9-]+) -->");

    private ConfigDocs() {
    }

    /**
     * The table of a definition: key, type, default, accepted values and meaning, plus a
     * "dynamic" column when any key can change at run time.
     */
    public static String markdownTable(ConfigDefinition definition) {
        boolean anyDynamic = !definition.dynamicKeys().isEmpty();
        StringBuilder out = new StringBuilder();
        out.append("| key | type | default | valid values |").append(anyDynamic ? " dynamic |" : "")
                .append(" meaning |\n");
        out.append("|---|---|---|---|").append(anyDynamic ? "---|" : "").append("---|\n");
        for (ConfigKey<?> key : definition.keys()) {
            out.append("| `").append(key.name()).append("` | ").append(key.type().displayName()).append(" | ")
                    .append(cell(defaultCell(key))).append(" | ").append(cell(key.validValues())).append(" | ");
            if (anyDynamic) {
                out.append(key.dynamic() ? "yes" : "no").append(" | ");
            }
            out.append(cell(key.doc())).append(" |\n");
        }
        return out.toString();
    }

    private static <T> String defaultCell(ConfigKey<T> key) {
        T value = key.defaultValue();
        String text = key.defaultText();
        if (value == null || !text.equals(key.format(value))) {
            return text; // required, computed, or described in words
        }
        String shown = text.isEmpty() ? "\"\"" : "`" + text + "`";
        String human = value instanceof Number n ? humanize(key.name(), n.longValue()) : null;
        return human == null ? shown : shown + " (" + human + ")";
    }

    /** "1 GiB" for a byte count, "7 days" for milliseconds, when the key's name gives the unit and it is exact. */
    static String humanize(String keyName, long value) {
        if (value <= 0) {
            return null;
        }
        if (keyName.endsWith(".bytes") && value >= 1024) {
            String[] units = {"KiB", "MiB", "GiB", "TiB"};
            String best = null;
            long v = value;
            for (String unit : units) {
                if (v % 1024 != 0) {
                    break;
                }
                v /= 1024;
                best = v + " " + unit;
            }
            return best;
        }
        if (keyName.endsWith(".ms") && value >= 1000) {
            long[] sizes = {86_400_000L, 3_600_000L, 60_000L, 1000L};
            String[] names = {"day", "h", "min", "s"};
            for (int i = 0; i < sizes.length; i++) {
                if (value % sizes[i] == 0) {
                    long n = value / sizes[i];
                    return n + " " + names[i] + (i == 0 && n != 1 ? "s" : "");
                }
            }
        }
        return null;
    }

    private static String cell(String text) {
        return text.replace("\r", " ").replace("\n", " ").replace("|", "\\|");
    }

    /** The section names marked in {@code document}, in order of appearance. */
    public static List<String> sections(String document) {
        List<String> names = new ArrayList<>();
        Matcher m = START.matcher(document);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    /**
     * {@code document} with the text between the markers of {@code section} replaced by
     * {@code content} (on lines of its own).
     *
     * @throws IllegalArgumentException if the section's markers are missing, repeated or out of order
     */
    public static String replaceSection(String document, String section, String content) {
        String start = "<!-- config:" + section + " -->";
        String end = "<!-- /config:" + section + " -->";
        int s = document.indexOf(start);
        int e = document.indexOf(end);
        if (s < 0 || e < 0 || e < s) {
            throw new IllegalArgumentException("no '" + start + "' ... '" + end + "' section in the document");
        }
        if (document.indexOf(start, s + 1) >= 0 || document.indexOf(end, e + 1) >= 0) {
            throw new IllegalArgumentException("section '" + section + "' is marked more than once");
        }
        String body = content.endsWith("\n") ? content : content + "\n";
        return document.substring(0, s + start.length()) + "\n" + body + document.substring(e);
    }
}
