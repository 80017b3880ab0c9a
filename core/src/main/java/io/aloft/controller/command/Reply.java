package io.aloft.controller.command;

/**
 * The outcome of a command or query: a value, or a failure.
 *
 * @param value the result (null for commands without one, or on failure)
 * @param failure why it was rejected, or null
 */
public record Reply(Object value, Failure failure) {

    public static Reply of(Object value) {
        return new Reply(value, null);
    }

    public static Reply failed(Failure failure) {
        return new Reply(null, failure);
    }
}
