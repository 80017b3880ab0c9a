package io.aloft.controller.command;

/** Deletes a topic and its streams (their objects are released for deletion). */
public record DeleteTopic(String name) {
}
