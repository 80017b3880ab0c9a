package io.aloft.stream;

/** Base of the stream layer's failures. */
public class StreamException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StreamException(String message) {
        super(message);
    }

    public StreamException(String message, Throwable cause) {
        super(message, cause);
    }
}
