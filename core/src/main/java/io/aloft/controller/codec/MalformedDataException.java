package io.aloft.controller.codec;

/** Bytes that do not decode to a valid value: truncated, corrupted, or of an unknown type. */
public class MalformedDataException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MalformedDataException(String message) {
        super(message);
    }
}
