package io.aloft.stream.storage;

/**
 * An object-storage operation failed for a reason other than a missing key: the server refused
 * it, the retries ran out, the disk failed. The message names the operation and the key.
 * Immutable.
 */
public class ObjectStorageException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final ObjectStorageStats.Operation operation;
    private final String key;

    /**
     * @param key the object key, or {@code null} for calls about many keys (list prefix or a
     *     batch delete put their subject into {@code detail} instead)
     */
    public ObjectStorageException(ObjectStorageStats.Operation operation, String key, String detail,
                                  Throwable cause) {
        super(operation + (key == null ? "" : " '" + key + "'") + " failed: " + detail, cause);
        this.operation = operation;
        this.key = key;
    }

    public ObjectStorageStats.Operation operation() {
        return operation;
    }

    /** The key the failed operation was about, or {@code null} for multi-key operations. */
    public String key() {
        return key;
    }
}
