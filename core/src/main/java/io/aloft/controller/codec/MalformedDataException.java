package io.aloft.controller.codec;

/**
 * Bytes that do not decode to a valid value: truncated, corrupted, of an unknown type or version,
 * of another format, or refused by a record's own validation.
 */
public class MalformedDataException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MalformedDataException(String message) {
        super(message);
    }
}
