package io.aloft.broker.txn;

import io.aloft.broker.coordinator.CoordinatorLog;
import io.aloft.broker.coordinator.CoordinatorTopic;
import io.aloft.broker.coordinator.PartitionCoordinatorLog;
import io.aloft.broker.log.LogConfig;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.partition.PartitionManager;
import io.aloft.controller.client.ControllerClient;
import io.aloft.broker.log.PartitionLogException;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ThreadFactory;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.protocol.Errors;

/**
 * {@code __transaction_state} as the transaction coordinator's internal topic: its settings, the
 * {@link CoordinatorLog} on its partitions, and the {@link CoordinatorTopic} that follows its
 * leadership so the coordinator serves exactly the partitions this broker leads, and the coordinator
 * epoch of each partition it loads. Stateless.
 */
public final class TransactionStateTopic {

    /** The internal topic, under Kafka's name so tools that hide internal topics hide it too. */
    public static final String TOPIC = Topic.TRANSACTION_STATE_TOPIC_NAME;

    /**
     * Settings of the topic: compacted, as in Kafka, so expired ids (tombstones) and superseded
     * states leave storage; never aged out by time or size, since a dropped record would lose a live
     * transaction's decision; 100 MiB segments, Kafka's {@code transaction.state.log.segment.bytes}.
     */
    static final Map<String, String> TOPIC_CONFIGS = Map.of(
            LogConfig.CLEANUP_POLICY_CONFIG, "compact",
            LogConfig.SEGMENT_BYTES_CONFIG, "104857600",
            LogConfig.RETENTION_MS_CONFIG, "-1",
            LogConfig.RETENTION_BYTES_CONFIG, "-1");

    /** How long loading a partition waits for its log to open (as long as one replay read may take). */
    private static final long EPOCH_WAIT_MS = 60_000;

    private TransactionStateTopic() {
    }

    /** The coordinator's log on the partitions of {@code __transaction_state}; {@code clock} stamps records. */
    public static CoordinatorLog<TransactionRecord> log(PartitionManager partitions, LongSupplier clock) {
        return new PartitionCoordinatorLog<>(partitions, TOPIC, TransactionRecordSerde.INSTANCE, clock);
    }

    /**
     * Kafka's coordinator epoch of a partition being loaded: the leader epoch this broker opened the
     * partition's log at (the one its replay reads), so it names this broker's leadership and grows
     * with every move. Waits for the log on the loading thread, at most as long as a replay read.
     */
    public static TransactionCoordinator.CoordinatorEpochs coordinatorEpochs(PartitionManager partitions) {
        return partition -> {
            TopicPartition tp = new TopicPartition(TOPIC, partition);
            try {
                return partitions.leaderLog(tp).get(EPOCH_WAIT_MS, TimeUnit.MILLISECONDS).leaderEpoch();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PartitionLogException(Errors.UNKNOWN_SERVER_ERROR, tp + ": interrupted while loading", e);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof PartitionLogException ple ? ple
                        : new PartitionLogException(Errors.UNKNOWN_SERVER_ERROR, tp + ": could not be opened", e);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new PartitionLogException(Errors.REQUEST_TIMED_OUT, tp + ": not opened within " + EPOCH_WAIT_MS
                        + " ms", e);
            }
        };
    }

    /**
     * The follower of {@code __transaction_state} for {@code coordinator}; {@link CoordinatorTopic#start}
     * loads the partitions this broker leads, {@link CoordinatorTopic#ensureCreated} (on the first
     * FindCoordinator of key type transaction) creates the topic.
     *
     * @param partitions transaction.state.log.num.partitions: the partition count when the topic is created
     * @param threads makes the loader thread
     */
    public static CoordinatorTopic follower(ControllerClient controller, MetadataCache cache, int nodeId,
            TransactionCoordinator coordinator, int partitions, ThreadFactory threads) {
        return new CoordinatorTopic(controller, cache, nodeId, TOPIC, partitions, TOPIC_CONFIGS,
                PartitionLog.STREAMS_PER_PARTITION, coordinator, threads);
    }
}
