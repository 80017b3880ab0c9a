package io.aloft.broker.group;

import io.aloft.broker.coordinator.CoordinatorLog;

/**
 * Where the group coordinator keeps its state durably: the partitions of {@code __consumer_offsets},
 * holding {@link GroupRecord}s turned into key/value bytes by {@link GroupRecordCodec}. The contract
 * is the runtime's ({@link CoordinatorLog}); {@link PartitionGroupLog} and {@link MemoryGroupLog} are
 * the runtime's logs bound to that codec. Implementations are thread-safe.
 */
public interface GroupLog extends CoordinatorLog<GroupRecord> {
}
