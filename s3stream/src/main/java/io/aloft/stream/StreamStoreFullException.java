package io.aloft.stream;

/**
 * An append waited longer than {@code s3.append.timeout.ms} for room in the log cache: uploads to
 * object storage are behind (slow or unavailable). Nothing was written; the append may be retried.
 */
public class StreamStoreFullException extends StreamException {
    private static final long serialVersionUID = 1L;

    public StreamStoreFullException(String message) {
        super(message);
    }
}
