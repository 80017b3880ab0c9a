package io.aloft.stream;

/** The stream was opened by another owner with a higher epoch (or closed); this handle is stale. */
public class StreamFencedException extends StreamException {
    private static final long serialVersionUID = 1L;

    public StreamFencedException(String message) {
        super(message);
    }
}
