package io.aloft.broker.security.sasl;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One login-module entry of a JAAS config as Kafka's {@code sasl.jaas.config} holds it:
 * {@code <class> <flag> [name=value ...];}, a value quoted ({@code "..."}, backslash escapes) or a
 * bare word. Only the one-module form is accepted (Kafka's broker allows one module per
 * mechanism). Immutable.
 */
record JaasConfig(String loginModule, String flag, Map<String, String> options) {

    /** @throws IllegalArgumentException saying what is wrong (never echoing option values) */
    static JaasConfig parse(String text) {
        Parser p = new Parser(text.trim());
        String module = p.word();
        if (module.isEmpty()) {
            throw new IllegalArgumentException("no login module class");
        }
        String flag = p.word();
        if (!(flag.equals("required") || flag.equals("requisite") || flag.equals("sufficient")
                || flag.equals("optional"))) {
            throw new IllegalArgumentException("the login module's flag must be required, requisite, sufficient "
                    + "or optional");
        }
        Map<String, String> options = new LinkedHashMap<>();
        while (true) {
            p.skipSpace();
            if (p.at(';')) {
                p.pos++;
                p.skipSpace();
                if (p.pos != p.text.length()) {
                    throw new IllegalArgumentException("only one login module is allowed");
                }
                return new JaasConfig(module, flag, Map.copyOf(options));
            }
            if (p.pos >= p.text.length()) {
                throw new IllegalArgumentException("the entry does not end with ';'");
            }
            String name = p.word();
            p.skipSpace();
            if (name.isEmpty() || !p.at('=')) {
                throw new IllegalArgumentException("an option is not name=value");
            }
            p.pos++;
            p.skipSpace();
            options.put(name, p.at('"') ? p.quoted() : p.word());
        }
    }

    private static final class Parser {
        final String text;
        int pos;

        Parser(String text) {
            this.text = text;
        }

        boolean at(char c) {
            return pos < text.length() && text.charAt(pos) == c;
        }

        void skipSpace() {
            while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
                pos++;
            }
        }

        String word() {
            skipSpace();
            int start = pos;
            while (pos < text.length() && !Character.isWhitespace(text.charAt(pos))
                    && "=;\"".indexOf(text.charAt(pos)) < 0) {
                pos++;
            }
            return text.substring(start, pos);
        }

        String quoted() {
            StringBuilder out = new StringBuilder();
            pos++;
            while (pos < text.length()) {
                char c = text.charAt(pos++);
                if (c == '"') {
                    return out.toString();
                }
                if (c == '\\' && pos < text.length()) {
                    c = text.charAt(pos++);
                }
                out.append(c);
            }
            throw new IllegalArgumentException("a quoted value is not closed");
        }
    }
}
