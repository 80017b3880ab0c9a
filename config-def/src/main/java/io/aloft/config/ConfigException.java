package io.aloft.config;

/**
 * A configuration value is missing, malformed or out of range, or two values clash. The message
 * starts with the key at fault and names the value and what is wrong with it, e.g.
 * {@code wal.capacity.bytes: 1000 is not a multiple of 4096}; a clash names both keys.
 *
 * <p>An {@link IllegalArgumentException}, so code that treats any bad argument as a bad setting
 * keeps working. Immutable.
 */
public class ConfigException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String key;

    /**
     * @param key the key at fault
     * @param problem what is wrong, naming the value: "1000 is not a multiple of 4096"
     */
    public ConfigException(String key, String problem) {
        super(key + ": " + problem);
        this.key = key;
    }

    public ConfigException(String key, String problem, Throwable cause) {
        super(key + ": " + problem, cause);
        this.key = key;
    }

    /** The configuration key at fault, e.g. {@code wal.capacity.bytes}. */
    public String key() {
        return key;
    }
}
