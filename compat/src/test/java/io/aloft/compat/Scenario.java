package io.aloft.compat;

import java.time.Duration;

/**
 * The parameters every client's scenario runs with: a fresh topic and group per client, so runs on
 * one broker cannot see each other's records or offsets.
 *
 * @param topic created by the client
 * @param group the consumer group it consumes with
 * @param partitions of the topic
 * @param records produced and consumed
 * @param clientTimeout the client's own limit: it gives up, naming the step it was in, before the
 *     harness's hard limit kills it
 *
 * <p>Immutable.
 */
record Scenario(String bootstrap, String topic, String group, int partitions, int records, Duration clientTimeout) {
}
