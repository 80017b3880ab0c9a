package io.aloft.config;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Objects;
import java.util.function.Function;

/**
 * One configuration key, declared once: its name, type, default (or that it is required),
 * validator, documentation and whether it can change while the server runs. Parsing a raw value
 * ({@link #parse}) and checking a typed one handed to a builder ({@link #validate}) apply the same
 * rules, so a properties file and code that builds a config directly cannot disagree.
 *
 * <p>A key without a fixed default may describe the default its owner computes
 * ({@link Builder#defaultText}: "the smaller of 1 MiB and a quarter of wal.capacity.bytes");
 * such a key parses to {@code null} when unset.
 *
 * <p>Immutable and thread-safe.
 *
 * @param <T> the parsed value's type
 */
public final class ConfigKey<T> {

    /** Turns the text of a property into a value, or throws {@link IllegalArgumentException} naming the text. */
    @FunctionalInterface
    public interface Parser<T> {
        T parse(String text);
    }

    private final String name;
    private final ConfigType type;
    private final Class<T> valueClass;
    private final Parser<T> parser;
    private final Function<? super T, String> formatter;
    private final T defaultValue;
    private final boolean required;
    private final String defaultText;
    private final Validator<? super T> validator;
    private final String doc;
    private final boolean dynamic;

    private ConfigKey(Builder<T> b) {
        this.name = b.name;
        this.type = b.type;
        this.valueClass = b.valueClass;
        this.parser = b.parser;
        this.formatter = b.formatter;
        this.defaultValue = b.defaultValue;
        this.required = b.required;
        this.defaultText = b.defaultText;
        this.validator = b.validator;
        this.doc = b.doc;
        this.dynamic = b.dynamic;
    }

    /** An {@code int} key; values outside the int range are refused, not wrapped. */
    public static Builder<Integer> intKey(String name) {
        return new Builder<>(name, ConfigType.INT, Integer.class, text -> {
            long v = parseWhole(text);
            if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(text + " is outside the int range");
            }
            return (int) v;
        }, String::valueOf);
    }

    public static Builder<Long> longKey(String name) {
        return new Builder<>(name, ConfigType.LONG, Long.class, ConfigKey::parseWhole, String::valueOf);
    }

    /** A {@code double}; NaN and infinities are refused. */
    public static Builder<Double> doubleKey(String name) {
        return new Builder<>(name, ConfigType.DOUBLE, Double.class, text -> {
            double v;
            try {
                v = Double.parseDouble(text);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "' is not a number");
            }
            if (Double.isNaN(v) || Double.isInfinite(v)) {
                throw new IllegalArgumentException("'" + text + "' is not a finite number");
            }
            return v;
        }, String::valueOf);
    }

    /** {@code true} or {@code false}, in any case. */
    public static Builder<Boolean> booleanKey(String name) {
        return new Builder<>(name, ConfigType.BOOLEAN, Boolean.class, text -> {
            if (text.equalsIgnoreCase("true")) {
                return true;
            }
            if (text.equalsIgnoreCase("false")) {
                return false;
            }
            throw new IllegalArgumentException("'" + text + "' is not true or false");
        }, String::valueOf);
    }

    public static Builder<String> stringKey(String name) {
        return new Builder<>(name, ConfigType.STRING, String.class, text -> text, s -> s);
    }

    /** A file system path; an empty one is refused. Whether it exists is checked elsewhere, not here. */
    public static Builder<Path> pathKey(String name) {
        return new Builder<>(name, ConfigType.PATH, Path.class, text -> {
            if (text.isEmpty()) {
                throw new IllegalArgumentException("must not be empty");
            }
            try {
                return Path.of(text);
            } catch (InvalidPathException e) {
                throw new IllegalArgumentException("'" + text + "' is not a valid path: " + e.getReason());
            }
        }, Path::toString);
    }

    /** A URL held as its text; give it a validator that checks the syntax its owner accepts. */
    public static Builder<String> urlKey(String name) {
        return new Builder<>(name, ConfigType.URL, String.class, text -> text, s -> s);
    }

    /**
     * A key whose value has its own syntax ({@code id@host:port,...}).
     *
     * @param parser turns the trimmed text into a value, or throws {@link IllegalArgumentException}
     *     (or a {@link ConfigException} for this key) saying what is wrong
     * @param formatter turns a value back into the text that parses to it
     */
    public static <T> Builder<T> customKey(String name, ConfigType type, Parser<T> parser,
            Function<? super T, String> formatter) {
        return new Builder<>(name, type, null, parser, formatter);
    }

    /** Formats a list as the comma-separated text a {@link ConfigType#LIST} key parses. */
    public static String formatList(Collection<?> values) {
        return String.join(",", values.stream().map(String::valueOf).toList());
    }

    private static long parseWhole(String text) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a whole number");
        }
    }

    /**
     * A builder for a key that reads like this one under another name — the same type, default
     * and validator — such as Kafka's broker-wide default of a topic config
     * ({@code log.retention.bytes} for {@code retention.bytes}). The documentation and the
     * dynamic flag are the new key's own.
     */
    public Builder<T> synonym(String otherName) {
        Builder<T> b = new Builder<>(otherName, type, valueClass, parser, formatter);
        b.defaultValue = defaultValue;
        b.required = required;
        b.defaultText = defaultText;
        b.validator = validator;
        return b;
    }

    public String name() {
        return name;
    }

    public ConfigType type() {
        return type;
    }

    /** The documentation: what the key does, in a sentence or three. */
    public String doc() {
        return doc;
    }

    /** Whether the value can change while the server runs (Kafka's dynamic broker configs). */
    public boolean dynamic() {
        return dynamic;
    }

    /** Whether the key must be set: it has no default, fixed or computed. */
    public boolean required() {
        return required;
    }

    /** The fixed default, or {@code null} when the key is required or its owner computes the default. */
    public T defaultValue() {
        return defaultValue;
    }

    /** The default as documented: the fixed default's text, the computed default's description, or "(required)". */
    public String defaultText() {
        if (defaultText != null) {
            return defaultText;
        }
        if (defaultValue != null) {
            return formatter.apply(defaultValue);
        }
        return "(required)";
    }

    /** The accepted values as documented ("1 to 64"); empty when any value of the type is. */
    public String validValues() {
        return validator.describe();
    }

    /** The text of a value, as a properties file would hold it. */
    public String format(T value) {
        return formatter.apply(value);
    }

    /**
     * Parses and checks a raw value: text (trimmed first), or a value of the key's own type. Unset
     * ({@code null}) gives the fixed default, or {@code null} for a computed one.
     *
     * @throws ConfigException naming this key, the value and what is wrong, or saying it is required
     */
    public T parse(Object raw) {
        if (raw == null) {
            if (required) {
                throw new ConfigException(name, "must be set");
            }
            return defaultValue;
        }
        T value;
        if (!(raw instanceof String) && valueClass != null && valueClass.isInstance(raw)) {
            value = valueClass.cast(raw);
        } else {
            String text = raw.toString().trim();
            try {
                value = parser.parse(text);
            } catch (ConfigException e) {
                throw e;
            } catch (IllegalArgumentException e) {
                throw new ConfigException(name, e.getMessage(), e);
            }
        }
        return validate(value);
    }

    /**
     * Checks a typed value, as a builder does when it is set.
     *
     * @return the value
     * @throws ConfigException naming this key if the value is {@code null} or not accepted
     */
    public T validate(T value) {
        if (value == null) {
            throw new ConfigException(name, "must be set");
        }
        String problem = validator.problem(value);
        if (problem != null) {
            throw new ConfigException(name, problem);
        }
        return value;
    }

    @Override
    public String toString() {
        return name;
    }

    /**
     * Declares a key; {@link #build} checks the declaration (documentation present, a fixed default
     * accepted by the validator) and fails at class initialisation if it is wrong. Not thread-safe.
     */
    public static final class Builder<T> {
        private final String name;
        private final ConfigType type;
        private final Class<T> valueClass;
        private final Parser<T> parser;
        private final Function<? super T, String> formatter;
        private T defaultValue;
        private boolean required;
        private String defaultText;
        private Validator<? super T> validator = Validator.any();
        private String doc;
        private boolean dynamic;

        private Builder(String name, ConfigType type, Class<T> valueClass, Parser<T> parser,
                Function<? super T, String> formatter) {
            if (name == null || !name.matches("[a-z][a-z0-9]*([._-][a-z0-9]+)*")) {
                throw new IllegalArgumentException("bad key name '" + name + "'");
            }
            this.name = name;
            this.type = Objects.requireNonNull(type, "type");
            this.valueClass = valueClass;
            this.parser = Objects.requireNonNull(parser, "parser");
            this.formatter = Objects.requireNonNull(formatter, "formatter");
        }

        /** The value used when the key is unset. */
        public Builder<T> defaultValue(T value) {
            this.defaultValue = Objects.requireNonNull(value, "default of " + name);
            return this;
        }

        /** The key must be set; parsing fails without it. */
        public Builder<T> required() {
            this.required = true;
            return this;
        }

        /**
         * How the documentation shows the default: a computed default ("the smaller of 1 MiB and a
         * quarter of wal.capacity.bytes"), or a fixed one in words.
         */
        public Builder<T> defaultText(String text) {
            this.defaultText = Objects.requireNonNull(text, "defaultText");
            return this;
        }

        public Builder<T> validator(Validator<? super T> validator) {
            this.validator = Objects.requireNonNull(validator, "validator");
            return this;
        }

        /** The value can change while the server runs. */
        public Builder<T> dynamic() {
            this.dynamic = true;
            return this;
        }

        public Builder<T> doc(String doc) {
            this.doc = doc;
            return this;
        }

        public ConfigKey<T> build() {
            if (doc == null || doc.isBlank()) {
                throw new IllegalStateException(name + ": no documentation");
            }
            if (required && defaultValue != null) {
                throw new IllegalStateException(name + ": required, yet has a default");
            }
            ConfigKey<T> key = new ConfigKey<>(this);
            if (defaultValue != null) {
                key.validate(defaultValue);
                // The default's text must parse back to it, or the documented default would lie.
                T reparsed = key.parse(key.format(defaultValue));
                if (!reparsed.equals(defaultValue)) {
                    throw new IllegalStateException(name + ": default " + defaultValue + " formats as '"
                            + key.format(defaultValue) + "', which parses to " + reparsed);
                }
            }
            return key;
        }
    }
}
