package io.aloft.config;

/**
 * The type of a key's value as written in a properties file: what the documentation shows and
 * what Kafka's DescribeConfigs reports (a path or a URL is a string there). Immutable.
 */
public enum ConfigType {
    BOOLEAN("boolean"),
    INT("int"),
    LONG("long"),
    DOUBLE("double"),
    STRING("string"),
    /** Comma-separated values. */
    LIST("list"),
    /** A file system path. */
    PATH("path"),
    /** A URL, checked for syntax only (never by connecting). */
    URL("url");

    private final String displayName;

    ConfigType(String displayName) {
        this.displayName = displayName;
    }

    /** The name shown in documentation: {@code int}, {@code path}, ... */
    public String displayName() {
        return displayName;
    }
}
