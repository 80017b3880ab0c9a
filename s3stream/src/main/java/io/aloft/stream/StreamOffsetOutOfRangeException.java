package io.aloft.stream;

/** A fetch asked for an offset below the stream's start or beyond its confirmed end. */
public class StreamOffsetOutOfRangeException extends StreamException {
    private static final long serialVersionUID = 1L;

    public StreamOffsetOutOfRangeException(String message) {
        super(message);
    }
}
