package io.aloft.broker;

import io.aloft.broker.log.PartitionLog;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * One Aloft broker with a new single-partition topic and that partition's log, into which a test
 * writes batches and markers straight away, as producers and a transaction coordinator would, to
 * lay out a partition exactly (see ReadCommittedTest). Closing it closes the Admin and the broker.
 *
 * <p>Confined to the test thread.
 */
record OnePartitionLog(TestBroker broker, Admin admin, PartitionLog log) implements AutoCloseable {
    /** Starts a broker on {@code dir} and creates {@code topic} (one partition) with {@code topicConfigs}. */
    static OnePartitionLog start(Path dir, String topic, Map<String, String> topicConfigs) throws Exception {
        TestBroker broker = new TestBroker(dir);
        Admin admin = null;
        try {
            admin = Admin.create(broker.clientProps());
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(topicConfigs))).all()
                    .get(30, TimeUnit.SECONDS);
            return new OnePartitionLog(broker, admin, leaderLog(broker, admin, new TopicPartition(topic, 0)));
        } catch (Exception | Error e) {
            if (admin != null) {
                admin.close();
            }
            broker.close();
            throw e;
        }
    }

    /**
     * The partition's log on the broker, once its metadata has the new topic (each try that finds
     * it missing waits for a metadata round trip).
     */
    private static PartitionLog leaderLog(TestBroker broker, Admin admin, TopicPartition tp) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return broker.broker().partitions().leaderLog(tp).get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                admin.describeTopics(List.of(tp.topic())).allTopicNames().get(30, TimeUnit.SECONDS);
            }
        }
    }

    /** Appends {@code records} to the log and waits until they are written. */
    void append(MemoryRecords records) throws Exception {
        log.append(records).get(10, TimeUnit.SECONDS);
    }

    /** Appends a commit ({@code commit}) or abort marker and waits until it is written. */
    void marker(long pid, short epoch, int coordinatorEpoch, boolean commit, short transactionVersion)
            throws Exception {
        log.appendMarker(pid, epoch, coordinatorEpoch, commit, transactionVersion).get(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        admin.close();
        broker.close();
    }
}
