package io.aloft.broker.security;

import io.aloft.config.ConfigException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Kafka's {@code ssl.principal.mapping.rules}: how a client certificate's distinguished name (its
 * RFC 2253 form, e.g. {@code CN=alice,OU=Clients,O=Example}) becomes a user name. A comma- or
 * newline-separated list of rules tried in order, the first that applies wins:
 * <ul>
 *   <li>{@code RULE:pattern/replacement/} — applies when the Java regular expression matches the
 *       whole DN; the name is the DN with the match replaced ({@code $1} for a group); {@code /L} or
 *       {@code /U} after it lowercases or uppercases the result. A {@code /} inside pattern or
 *       replacement is written {@code \/}; commas inside a pattern are part of it.</li>
 *   <li>{@code DEFAULT} — the whole DN, unchanged.</li>
 * </ul>
 * A DN no rule applies to is refused, as in Kafka (the connection fails authentication). Immutable.
 */
public final class PrincipalMappingRules {
    /** One rule and the separator after it; the pattern and replacement may hold escaped characters. */
    private static final Pattern RULE = Pattern.compile(
            "\\s*(DEFAULT|RULE:((?:\\\\.|[^\\\\/])*)/((?:\\\\.|[^\\\\/])*)/([LU]?))\\s*(?:[,\\n]|$)");

    private record Rule(Pattern pattern, String replacement, boolean lower, boolean upper) {
        /** The mapped name, or null if the rule does not apply. */
        String apply(String dn) {
            if (pattern == null) {
                return dn;
            }
            Matcher m = pattern.matcher(dn);
            if (!m.matches()) {
                return null;
            }
            String out = m.replaceAll(replacement);
            return lower ? out.toLowerCase(Locale.ROOT) : upper ? out.toUpperCase(Locale.ROOT) : out;
        }
    }

    /** Kafka's default: the whole DN. */
    public static final PrincipalMappingRules DEFAULT = parse("DEFAULT");

    private final List<Rule> rules;
    private final String text;

    private PrincipalMappingRules(List<Rule> rules, String text) {
        this.rules = List.copyOf(rules);
        this.text = text;
    }

    /**
     * Parses the rules.
     *
     * @throws IllegalArgumentException naming the text that is not a rule, or a bad pattern
     */
    public static PrincipalMappingRules parse(String text) {
        List<Rule> rules = new ArrayList<>();
        String trimmed = text.trim();
        Matcher m = RULE.matcher(trimmed);
        int at = 0;
        while (at < trimmed.length()) {
            if (!m.find(at) || m.start() != at) {
                throw new IllegalArgumentException("'" + trimmed.substring(at) + "' is not DEFAULT or "
                        + "RULE:pattern/replacement/[LU]");
            }
            if (m.group(1).equals("DEFAULT")) {
                rules.add(new Rule(null, null, false, false));
            } else {
                Pattern pattern;
                try {
                    pattern = Pattern.compile(unescapeSlashes(m.group(2)));
                } catch (PatternSyntaxException e) {
                    throw new IllegalArgumentException("bad pattern in '" + m.group(1) + "': " + e.getDescription());
                }
                rules.add(new Rule(pattern, unescapeSlashes(m.group(3)), m.group(4).equals("L"),
                        m.group(4).equals("U")));
            }
            if (m.end() == at) {
                break;
            }
            at = m.end();
        }
        if (rules.isEmpty()) {
            throw new IllegalArgumentException("no rules");
        }
        return new PrincipalMappingRules(rules, trimmed);
    }

    /** For a config key: {@link #parse}, failing with a {@link ConfigException} naming {@code key}. */
    static PrincipalMappingRules parse(String key, String text) {
        try {
            return parse(text);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key, e.getMessage());
        }
    }

    private static String unescapeSlashes(String s) {
        return s.replace("\\/", "/");
    }

    /**
     * The user name for {@code distinguishedName}.
     *
     * @throws IllegalArgumentException if no rule applies
     */
    public String name(String distinguishedName) {
        for (Rule r : rules) {
            String name = r.apply(distinguishedName);
            if (name != null) {
                return name;
            }
        }
        throw new IllegalArgumentException("no ssl.principal.mapping.rules rule applies to " + distinguishedName);
    }

    /** Rules are equal when their text is (what a config value's round trip needs). */
    @Override
    public boolean equals(Object o) {
        return o instanceof PrincipalMappingRules other && other.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    /** The rules as given. */
    @Override
    public String toString() {
        return text;
    }
}
