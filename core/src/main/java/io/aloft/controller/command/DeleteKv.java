package io.aloft.controller.command;

import java.util.Objects;

/** Removes a key (a missing key is a no-op). */
public record DeleteKv(String key) {
    public DeleteKv {
        // The key-value space is a sorted map without null keys: refuse at decode rather than fail in apply.
        Objects.requireNonNull(key, "key");
    }
}
