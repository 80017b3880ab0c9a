/**
 * The share fetch path (KIP-932): share sessions ({@link io.aloft.broker.share.fetch.ShareSessionCache},
 * one per group member and broker, with Kafka's epochs) and acquisition with the long poll
 * ({@link io.aloft.broker.share.fetch.ShareAcquirer}), over
 * {@link io.aloft.broker.share.partition.SharePartitions}. The wire side, ShareFetch and
 * ShareAcknowledge, is in {@code io.aloft.broker.handler}.
 */
package io.aloft.broker.share.fetch;
