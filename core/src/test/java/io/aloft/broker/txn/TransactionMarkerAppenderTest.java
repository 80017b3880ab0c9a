package io.aloft.broker.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.log.PartitionLogException;
import io.aloft.stream.StreamFencedException;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** The per-partition error of a failed marker append: the one mapping, for every way it fails. */
class TransactionMarkerAppenderTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);

    @Test
    void errorFor_partitionLogFailure_isItsCode() {
        assertEquals(Errors.TRANSACTION_COORDINATOR_FENCED, TransactionMarkerAppender.errorFor(TP,
                new CompletionException(new PartitionLogException(Errors.TRANSACTION_COORDINATOR_FENCED, "older"))));
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, TransactionMarkerAppender.errorFor(TP,
                new PartitionLogException(Errors.UNKNOWN_TOPIC_OR_PARTITION, "gone")));
    }

    @Test
    void errorFor_streamTakenOver_notLeader() {
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER, TransactionMarkerAppender.errorFor(TP,
                new CompletionException(new StreamFencedException("newer owner"))));
    }

    /** As Kafka's WriteTxnMarkers maps the group coordinator's answers for __consumer_offsets partitions. */
    @Test
    void errorFor_groupCoordinatorNotReady_notLeader_otherKafkaErrorsAsThey_are() {
        TopicPartition offsets = new TopicPartition("__consumer_offsets", 3);
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER, TransactionMarkerAppender.errorFor(offsets,
                new CompletionException(new NotCoordinatorException("moved"))));
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER, TransactionMarkerAppender.errorFor(offsets,
                new CoordinatorLoadInProgressException("loading")));
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER, TransactionMarkerAppender.errorFor(offsets,
                new CoordinatorNotAvailableException("none")));
        assertEquals(Errors.INVALID_PRODUCER_EPOCH, TransactionMarkerAppender.errorFor(offsets,
                new InvalidProducerEpochException("stale")));
    }

    @Test
    void errorFor_aBug_unknownServerError() {
        assertEquals(Errors.UNKNOWN_SERVER_ERROR, TransactionMarkerAppender.errorFor(TP,
                new IllegalArgumentException("Invalid negative producer epoch")));
    }
}
