package io.aloft.controller.command;

/** Grows a topic to {@code totalCount} partitions (never shrinks). Replies with the topic. */
public record CreatePartitions(String name, int totalCount) {
}
