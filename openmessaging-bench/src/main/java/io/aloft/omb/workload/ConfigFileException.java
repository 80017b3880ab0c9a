package io.aloft.omb.workload;

/**
 * A workload or driver file (or a value overriding one) is invalid. The message names the file,
 * when there is one, and the field, so the command line can print it as is and exit with 2.
 */
public final class ConfigFileException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public ConfigFileException(String message) {
        super(message);
    }

    public ConfigFileException(String message, Throwable cause) {
        super(message, cause);
    }
}
