package io.aloft.stream.storage;

import java.util.Objects;

/**
 * An object's key and size in bytes, as returned by head and list. Immutable.
 */
public record ObjectInfo(String key, long size) {

    public ObjectInfo {
        Objects.requireNonNull(key, "key");
        if (size < 0) {
            throw new IllegalArgumentException("size of '" + key + "' must be >= 0, got " + size);
        }
    }
}
