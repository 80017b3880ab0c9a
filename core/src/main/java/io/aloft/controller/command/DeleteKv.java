package io.aloft.controller.command;

/** Removes a key (a missing key is a no-op). */
public record DeleteKv(String key) {
}
