package io.aloft.broker.conformance;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsPartition;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsTopic;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.ListOffsetsRequest;

/**
 * The read side and producer ids: Fetch by name (v4-12) and by topic id (v13+), ListOffsets with
 * every special timestamp, OffsetForLeaderEpoch, DeleteRecords, DescribeProducers, InitProducerId.
 * Besides error codes, the offsets and record counts answered are compared too: both brokers hold
 * the same records.
 *
 * <p>Stateless.
 */
final class ReadCases {
    private static final Uuid UNKNOWN_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");

    private ReadCases() {
    }

    static List<Shape> shapes() {
        List<Shape> shapes = new ArrayList<>();
        shapes.add(fetch("all data partitions", 4, 18, 0, 0, false));
        shapes.add(fetch("from offset 3", 4, 18, 3, 0, false));
        shapes.add(fetch("offset out of range", 4, 18, 1000, 0, false));
        shapes.add(fetch("future current leader epoch", 9, 18, 0, 1, false));
        shapes.add(fetch("read committed", 4, 18, 0, 0, true));
        shapes.add(Shape.script(ApiKeys.FETCH, "unknown topic", 4, 18, (s, v) -> s.ask("", ApiKeys.FETCH, v,
                fetchRequest(v, false).setTopics(List.of(v >= 13
                        ? new FetchTopic().setTopicId(UNKNOWN_ID).setPartitions(List.of(partition(v, 0, 0, -1)))
                        : new FetchTopic().setTopic("conf-missing").setPartitions(List.of(partition(v, 0, 0, -1))))))));
        shapes.add(Shape.of(ApiKeys.FETCH, "no topics", (t, v) -> fetchRequest(v, false)));
        shapes.add(Shape.of(ApiKeys.FETCH, "new session (epoch 0)", 7, 18, (t, v) -> fetchRequest(v, false)
                .setSessionEpoch(0).setTopics(List.of(topic(t, v, Target.EMPTY, 0, 0, false)))));
        shapes.add(Shape.of(ApiKeys.FETCH, "follower replica id", 4, 14, (t, v) -> fetchRequest(v, false)
                .setReplicaId(7).setTopics(List.of(new FetchTopic().setTopic(v >= 13 ? "" : Target.EMPTY)
                        .setTopicId(v >= 13 ? t.topicId(Target.EMPTY) : Uuid.ZERO_UUID)
                        .setPartitions(List.of(partition(v, 0, 0, -1)))))));

        for (long ts : new long[] {ListOffsetsRequest.EARLIEST_TIMESTAMP, ListOffsetsRequest.LATEST_TIMESTAMP}) {
            shapes.add(listOffsets(ts == -2 ? "earliest" : "latest", 1, ts, 0));
        }
        shapes.add(listOffsets("by timestamp", 1, Target.FIRST_TIMESTAMP + 2_000, 0));
        shapes.add(listOffsets("timestamp after the last record", 1, System.currentTimeMillis() + 60_000, 0));
        shapes.add(listOffsets("max timestamp", 7, ListOffsetsRequest.MAX_TIMESTAMP, 0));
        shapes.add(listOffsets("earliest local", 8, ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP, 0));
        shapes.add(listOffsets("latest tiered", 9, ListOffsetsRequest.LATEST_TIERED_TIMESTAMP, 0));
        shapes.add(listOffsets("earliest pending upload", 11, ListOffsetsRequest.EARLIEST_PENDING_UPLOAD_TIMESTAMP, 0));
        shapes.add(listOffsets("future current leader epoch", 4, ListOffsetsRequest.LATEST_TIMESTAMP, 1));
        shapes.add(Shape.of(ApiKeys.LIST_OFFSETS, "unknown topic and partition", (t, v) -> listOffsetsRequest(v)
                .setTopics(List.of(new ListOffsetsTopic().setName("conf-missing").setPartitions(List.of(
                        new ListOffsetsPartition().setPartitionIndex(0).setTimestamp(-1))),
                        new ListOffsetsTopic().setName(Target.DATA).setPartitions(List.of(
                                new ListOffsetsPartition().setPartitionIndex(7).setTimestamp(-1)))))));
        shapes.add(Shape.of(ApiKeys.LIST_OFFSETS, "read committed latest", 2, 11, (t, v) -> listOffsetsRequest(v)
                .setIsolationLevel(IsolationLevel.READ_COMMITTED.id()).setTopics(List.of(new ListOffsetsTopic()
                        .setName(Target.EMPTY).setPartitions(List.of(new ListOffsetsPartition().setTimestamp(-1)))))));

        shapes.add(offsetForLeaderEpoch("current epoch", 0, 0));
        shapes.add(offsetForLeaderEpoch("future current leader epoch", 0, 1));
        shapes.add(offsetForLeaderEpoch("epoch above the current", 3, 0));
        shapes.add(Shape.of(ApiKeys.OFFSET_FOR_LEADER_EPOCH, "unknown topic and partition", (t, v) -> {
            OffsetForLeaderEpochRequestData r = leaderEpochRequest(v);
            r.topics().add(new OffsetForLeaderTopic().setTopic("conf-missing").setPartitions(List.of(
                    new OffsetForLeaderPartition().setPartition(0).setLeaderEpoch(0))));
            r.topics().add(new OffsetForLeaderTopic().setTopic(Target.DATA).setPartitions(List.of(
                    new OffsetForLeaderPartition().setPartition(7).setLeaderEpoch(0))));
            return r;
        }));

        shapes.add(Shape.script(ApiKeys.DELETE_RECORDS, "delete, beyond the end, unknown", 0, 2, ReadCases::deleteRecords));
        shapes.add(Shape.script(ApiKeys.DESCRIBE_PRODUCERS, "after an idempotent batch", 0, 0,
                ReadCases::describeProducers));

        shapes.add(Shape.script(ApiKeys.INIT_PRODUCER_ID, "idempotent, then epoch bump", 0, 6, (s, v) -> {
            InitProducerIdResponseData first = (InitProducerIdResponseData) s.ask("new", ApiKeys.INIT_PRODUCER_ID, v,
                    new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(60_000));
            if (v >= 3) {
                s.ask("bump", ApiKeys.INIT_PRODUCER_ID, v, new InitProducerIdRequestData().setTransactionalId(null)
                        .setTransactionTimeoutMs(60_000).setProducerId(first.producerId())
                        .setProducerEpoch(first.producerEpoch()));
            }
        }));
        shapes.add(Shape.of(ApiKeys.INIT_PRODUCER_ID, "transactional", (t, v) -> new InitProducerIdRequestData()
                .setTransactionalId("conf-tx-" + v).setTransactionTimeoutMs(60_000)));
        return shapes;
    }

    static FetchRequestData fetchRequest(short v, boolean readCommitted) {
        FetchRequestData r = new FetchRequestData().setMaxWaitMs(10).setMinBytes(1).setMaxBytes(1 << 20)
                .setIsolationLevel((byte) (readCommitted ? 1 : 0));
        if (v >= 7) {
            r.setSessionId(0).setSessionEpoch(-1);
        }
        if (v <= 14) {
            r.setReplicaId(-1);
        }
        return r;
    }

    private static FetchPartition partition(short v, int index, long offset, int currentLeaderEpoch) {
        FetchPartition p = new FetchPartition().setPartition(index).setFetchOffset(offset)
                .setPartitionMaxBytes(1 << 20);
        if (v >= 9) {
            p.setCurrentLeaderEpoch(currentLeaderEpoch);
        }
        if (v >= 5) {
            p.setLogStartOffset(-1);
        }
        return p;
    }

    private static FetchTopic topic(Target t, short v, String topic, long offset, int epochDelta, boolean allParts) {
        FetchTopic ft = v >= 13 ? new FetchTopic().setTopicId(t.topicId(topic)) : new FetchTopic().setTopic(topic);
        int partitions = allParts ? Target.DATA_PARTITIONS : 1;
        for (int i = 0; i < partitions; i++) {
            ft.partitions().add(partition(v, i, offset, v >= 9 && epochDelta != 0
                    ? t.leaderEpoch(topic, i) + epochDelta : v >= 9 ? t.leaderEpoch(topic, i) : -1));
        }
        return ft;
    }

    private static Shape fetch(String name, int from, int to, long offset, int epochDelta, boolean readCommitted) {
        return Shape.script(ApiKeys.FETCH, name, from, to, (s, v) -> {
            FetchResponseData r = (FetchResponseData) s.ask("", ApiKeys.FETCH, v, fetchRequest(v, readCommitted)
                    .setTopics(List.of(topic(s.target, v, Target.DATA, offset, epochDelta, true))));
            int records = 0;
            for (FetchResponseData.FetchableTopicResponse t : r.responses()) {
                for (FetchResponseData.PartitionData p : t.partitions()) {
                    if (p.records() instanceof MemoryRecords m) {
                        for (RecordBatch b : m.batches()) {
                            for (Record rec : b) {
                                if (rec.offset() >= offset) {
                                    records++;
                                }
                            }
                        }
                    }
                    s.note("partition " + p.partitionIndex(), "high watermark", p.highWatermark());
                }
            }
            s.note("", "records at or after the fetch offset", records);
        });
    }

    private static ListOffsetsRequestData listOffsetsRequest(short v) {
        ListOffsetsRequestData r = new ListOffsetsRequestData().setReplicaId(-1);
        if (v >= 2) {
            r.setIsolationLevel(IsolationLevel.READ_UNCOMMITTED.id());
        }
        if (v >= 10) {
            r.setTimeoutMs(10_000);
        }
        return r;
    }

    private static Shape listOffsets(String name, int from, long timestamp, int epochDelta) {
        return Shape.script(ApiKeys.LIST_OFFSETS, name, from, 11, (s, v) -> {
            ListOffsetsTopic topic = new ListOffsetsTopic().setName(Target.DATA);
            for (int i = 0; i < Target.DATA_PARTITIONS; i++) {
                ListOffsetsPartition p = new ListOffsetsPartition().setPartitionIndex(i).setTimestamp(timestamp);
                if (v >= 4) {
                    p.setCurrentLeaderEpoch(epochDelta == 0 ? -1 : s.target.leaderEpoch(Target.DATA, i) + epochDelta);
                }
                topic.partitions().add(p);
            }
            ListOffsetsResponseData r = (ListOffsetsResponseData) s.ask("", ApiKeys.LIST_OFFSETS, v,
                    listOffsetsRequest(v).setTopics(List.of(topic)));
            r.topics().forEach(t -> t.partitions().forEach(p -> s.note("partition " + p.partitionIndex(), "offset",
                    p.offset())));
        });
    }

    private static OffsetForLeaderEpochRequestData leaderEpochRequest(short v) {
        OffsetForLeaderEpochRequestData r = new OffsetForLeaderEpochRequestData();
        if (v >= 3) {
            r.setReplicaId(-1);
        }
        return r;
    }

    /** For every data partition: the epoch {@code epochDelta} above the partition's, checked against its current one. */
    private static Shape offsetForLeaderEpoch(String name, int epochDelta, int currentEpochDelta) {
        return Shape.script(ApiKeys.OFFSET_FOR_LEADER_EPOCH, name, 2, 4, (s, v) -> {
            OffsetForLeaderTopic topic = new OffsetForLeaderTopic().setTopic(Target.DATA);
            for (int i = 0; i < Target.DATA_PARTITIONS; i++) {
                int epoch = s.target.leaderEpoch(Target.DATA, i);
                topic.partitions().add(new OffsetForLeaderPartition().setPartition(i).setLeaderEpoch(epoch + epochDelta)
                        .setCurrentLeaderEpoch(currentEpochDelta == 0 ? -1 : epoch + currentEpochDelta));
            }
            OffsetForLeaderEpochRequestData r = leaderEpochRequest(v);
            r.topics().add(topic);
            OffsetForLeaderEpochResponseData answer = (OffsetForLeaderEpochResponseData) s.ask("",
                    ApiKeys.OFFSET_FOR_LEADER_EPOCH, v, r);
            answer.topics().forEach(t -> t.partitions().forEach(p -> s.note("partition " + p.partition(),
                    "end offset", p.endOffset())));
        });
    }

    private static void deleteRecords(Session s, short v) throws Exception {
        String topic = "conf-delete-records-v" + v;
        s.target.createTopic(topic, 1);
        s.ask("produce", ApiKeys.PRODUCE, (short) 12, ProduceCases.request(s.target, (short) 12, topic, 0,
                Batches.plain(4), (short) -1, null));
        DeleteRecordsTopic t = new DeleteRecordsTopic().setName(topic).setPartitions(List.of(
                new DeleteRecordsPartition().setPartitionIndex(0).setOffset(2)));
        s.ask("before 2", ApiKeys.DELETE_RECORDS, v, new DeleteRecordsRequestData().setTimeoutMs(10_000)
                .setTopics(List.of(t)));
        t.partitions().get(0).setOffset(100);
        s.ask("beyond the end", ApiKeys.DELETE_RECORDS, v, new DeleteRecordsRequestData().setTimeoutMs(10_000)
                .setTopics(List.of(t)));
        t.partitions().get(0).setOffset(-1);
        s.ask("up to the high watermark", ApiKeys.DELETE_RECORDS, v, new DeleteRecordsRequestData()
                .setTimeoutMs(10_000).setTopics(List.of(t)));
        s.ask("unknown", ApiKeys.DELETE_RECORDS, v, new DeleteRecordsRequestData().setTimeoutMs(10_000)
                .setTopics(List.of(new DeleteRecordsTopic().setName("conf-missing").setPartitions(List.of(
                        new DeleteRecordsPartition().setPartitionIndex(0).setOffset(1))),
                        new DeleteRecordsTopic().setName(topic).setPartitions(List.of(
                        new DeleteRecordsPartition().setPartitionIndex(4).setOffset(1))))));
    }

    private static void describeProducers(Session s, short v) throws Exception {
        String topic = "conf-describe-producers";
        s.target.createTopic(topic, 2);
        InitProducerIdResponseData id = (InitProducerIdResponseData) s.ask("init", ApiKeys.INIT_PRODUCER_ID, (short) 4,
                new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(60_000));
        s.ask("produce", ApiKeys.PRODUCE, (short) 12, ProduceCases.request(s.target, (short) 12, topic, 1,
                Batches.idempotent(id.producerId(), id.producerEpoch(), 0, 3), (short) -1, null));
        DescribeProducersResponseData r = (DescribeProducersResponseData) s.ask("describe",
                ApiKeys.DESCRIBE_PRODUCERS, v, new DescribeProducersRequestData().setTopics(List.of(
                        new DescribeProducersRequestData.TopicRequest().setName(topic).setPartitionIndexes(List.of(0, 1,
                                5)),
                        new DescribeProducersRequestData.TopicRequest().setName("conf-missing")
                                .setPartitionIndexes(List.of(0)))));
        r.topics().forEach(t -> t.partitions().forEach(p -> {
            s.note(t.name() + "-" + p.partitionIndex(), "active producers", p.activeProducers().size());
            p.activeProducers().forEach(a -> s.note(t.name() + "-" + p.partitionIndex(), "last sequence",
                    a.lastSequence()));
        }));
    }
}
