package io.aloft.omb;

/**
 * The command line is wrong: a missing, unknown or malformed option. The message names the
 * option; {@link OmbMain} prints it with the usage and exits with 2.
 */
public final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }
}
