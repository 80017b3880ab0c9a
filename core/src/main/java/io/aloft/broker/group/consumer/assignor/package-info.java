/**
 * Server-side partition assignors of consumer groups (KIP-848), chosen by the client's
 * {@code group.remote.assignor}: pure functions from members' subscriptions and topics' partition
 * counts to a target assignment. Depends on nothing of the broker.
 */
package io.aloft.broker.group.consumer.assignor;
