package io.aloft.broker.group;

import io.aloft.broker.coordinator.MemoryCoordinatorLog;

/**
 * A {@link GroupLog} in memory, for tests: the runtime's in-memory log over {@link GroupRecordCodec},
 * so a replay decodes bytes exactly as one from a real log would. Appends complete at once.
 * Thread-safe.
 */
public final class MemoryGroupLog extends MemoryCoordinatorLog<GroupRecord> implements GroupLog {

    public MemoryGroupLog() {
        super(GroupRecordCodec.SERDE);
    }
}
