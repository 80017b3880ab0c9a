package io.aloft.controller.command;

import java.util.Objects;

/** Stores a value under a key in the broker-level key-value space. */
public record PutKv(String key, byte[] value) {
    public PutKv {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
    }
}
