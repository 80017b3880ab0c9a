package io.aloft.stream.storage;

/**
 * The object does not exist (S3 404 NoSuchKey, or no such file). Immutable.
 */
public class ObjectNotFoundException extends ObjectStorageException {

    private static final long serialVersionUID = 1L;

    public ObjectNotFoundException(ObjectStorageStats.Operation operation, String key, Throwable cause) {
        super(operation, key, "no such object", cause);
    }
}
