/**
 * Client-side helpers shared by the benchmarks that drive a cluster of child brokers
 * ({@code io.aloft.servers.NodeCluster}): a fixed-rate background producer, the "partition is served
 * again" probe, nearest-rank percentiles, a pacer for fixed-rate loads, kafka-clients' own counters,
 * a child broker's CPU time and the machine facts a report opens with.
 */
package io.aloft.bench.cluster;
