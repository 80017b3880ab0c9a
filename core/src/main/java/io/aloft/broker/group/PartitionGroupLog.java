package io.aloft.broker.group;

import io.aloft.broker.coordinator.PartitionCoordinatorLog;
import io.aloft.broker.partition.PartitionManager;
import java.util.function.LongSupplier;
import org.apache.kafka.common.internals.Topic;

/**
 * The group coordinator's log: the partitions of {@code __consumer_offsets}, each append one record
 * batch of {@link GroupRecordCodec} key/value pairs (see {@link PartitionCoordinatorLog}). Thread-safe.
 */
public final class PartitionGroupLog extends PartitionCoordinatorLog<GroupRecord> implements GroupLog {

    /** The internal topic, under Kafka's name so tools that hide internal topics hide it too. */
    public static final String TOPIC = Topic.GROUP_METADATA_TOPIC_NAME;

    /** @param clock the records' timestamps */
    public PartitionGroupLog(PartitionManager partitions, LongSupplier clock) {
        super(partitions, TOPIC, GroupRecordCodec.SERDE, clock);
    }
}
