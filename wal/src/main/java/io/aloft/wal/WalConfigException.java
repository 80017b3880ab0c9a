package io.aloft.wal;

/** A configuration value is invalid; the message names the key. */
public class WalConfigException extends WalException {
    private static final long serialVersionUID = 1L;

    private final String key;

    public WalConfigException(String key, String message) {
        super(key + ": " + message);
        this.key = key;
    }

    /** The configuration key at fault, e.g. {@code wal.capacity.bytes}. */
    public String key() {
        return key;
    }
}
