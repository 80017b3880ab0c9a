/**
 * The coordinator runtime: the one way Aloft runs a coordinator (classic and KIP-848 consumer groups
 * today; transactions and share groups next), after Kafka's newer coordinator model.
 *
 * <p>A coordinator keeps its state in an internal topic. Each partition of that topic this broker
 * leads is a <em>shard</em> ({@link io.aloft.broker.coordinator.CoordinatorShard}) owned by one
 * thread ({@link io.aloft.broker.coordinator.CoordinatorThreads}): operations, append completions
 * and timers of a shard run there one at a time, so shard state has no locks. An operation returns
 * its response plus the records to append ({@link io.aloft.broker.coordinator.CoordinatorResult});
 * records are applied by the shard's one {@code replay} function when they are written and when the
 * partition loads. {@link io.aloft.broker.coordinator.CoordinatorTopic} creates the topic and
 * follows its leadership, so a shard moves when its partition moves.
 *
 * <h2>Adding a coordinator</h2>
 * <ol>
 *   <li>Define its record type and a {@link io.aloft.broker.coordinator.CoordinatorRecordSerde}
 *       (a key compaction goes by, a versioned value, null for a tombstone).</li>
 *   <li>Write the shard: state in plain fields, {@code replay(record)}, and operations returning
 *       {@code CoordinatorResult.of(records, response)}; timers through its
 *       {@link io.aloft.broker.coordinator.ShardContext}.</li>
 *   <li>Write the service the request handlers call: route each key to its partition, run
 *       operations with {@link io.aloft.broker.coordinator.CoordinatorRuntime#write}/{@code read},
 *       and map the runtime's exceptions to Kafka error codes there, at one place.</li>
 *   <li>In the broker: a {@link io.aloft.broker.coordinator.PartitionCoordinatorLog} on the internal
 *       topic with the serde, a runtime over it (threads from a config key), and a
 *       {@link io.aloft.broker.coordinator.CoordinatorTopic} that creates the topic and loads and
 *       unloads the service's partitions.</li>
 *   <li>Test the shard directly, the service over a
 *       {@link io.aloft.broker.coordinator.MemoryCoordinatorLog} with
 *       {@link io.aloft.broker.coordinator.CoordinatorThreads#callerRuns()} and a manual timer, and
 *       once on real threads.</li>
 * </ol>
 */
package io.aloft.broker.coordinator;
