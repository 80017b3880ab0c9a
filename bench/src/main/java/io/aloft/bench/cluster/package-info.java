/**
 * Client-side helpers shared by the benchmarks that drive a cluster of child brokers
 * ({@code io.aloft.servers.NodeCluster}): a fixed-rate background producer, the "partition is served
 * again" probe, nearest-rank percentiles and the machine facts a report opens with.
 */
package io.aloft.bench.cluster;
