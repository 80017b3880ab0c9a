package io.aloft.broker.conformance;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Produce: every version by name (v3-12) and by topic id (v13), with the batches producers of each
 * generation send and the broken ones a broker must refuse with Kafka's code (issue 11, item 5), and
 * the hand-written v0-2 requests Kafka 4 advertises but refuses.
 *
 * <p>Stateless.
 */
final class ProduceCases {
    /** Where produce cases write, so the records other cases read stay as the fixture made them. */
    static final String TOPIC = "conf-produce";
    private static final short FIRST_BY_ID = 13;

    private ProduceCases() {
    }

    /** One partition's data in a Produce request at {@code version} (by name, or by id from v13). */
    static ProduceRequestData request(Target t, short version, String topic, int partition, MemoryRecords records,
            short acks, String transactionalId) {
        TopicProduceData data = new TopicProduceData();
        if (version >= FIRST_BY_ID) {
            data.setTopicId(topic.startsWith("conf-missing") ? Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ")
                    : t.topicId(topic));
        } else {
            data.setName(topic);
        }
        data.partitionData().add(new PartitionProduceData().setIndex(partition).setRecords(records));
        ProduceRequestData r = new ProduceRequestData().setAcks(acks).setTimeoutMs(10_000)
                .setTransactionalId(transactionalId);
        r.topicData().add(data);
        return r;
    }

    private static Shape batch(String name, java.util.function.Supplier<MemoryRecords> records) {
        return Shape.of(ApiKeys.PRODUCE, name, 3, 13, (t, v) -> request(t, v, TOPIC, 0, records.get(), (short) -1,
                null));
    }

    static List<Shape> shapes() {
        return List.of(
                batch("plain batch", () -> Batches.plain(2)),
                batch("gzip batch", () -> Batches.compressed(Compression.gzip().build(), 3)),
                batch("zstd batch (v7+ only)", () -> Batches.compressed(Compression.zstd().build(), 3)),
                batch("magic 0 message set", () -> Batches.oldMagic(RecordBatch.MAGIC_VALUE_V0, Compression.NONE)),
                batch("magic 1 message set", () -> Batches.oldMagic(RecordBatch.MAGIC_VALUE_V1, Compression.NONE)),
                batch("magic 1 gzip message set", () -> Batches.oldMagic(RecordBatch.MAGIC_VALUE_V1,
                        Compression.gzip().build())),
                batch("bad CRC", Batches::badCrc),
                batch("client base offset 5", () -> Batches.withBaseOffset(5)),
                batch("records count 5 of 3", () -> Batches.recordsCountOf(5)),
                batch("last offset delta 7 of 3", () -> Batches.lastOffsetDeltaOf(7)),
                batch("unknown codec 5", () -> Batches.unknownCodec(5)),
                batch("unknown codec 7", () -> Batches.unknownCodec(7)),
                batch("timestamp 2 h ahead", () -> Batches.withTimestamp(System.currentTimeMillis() + 7_200_000)),
                batch("timestamp of 1970", () -> Batches.withTimestamp(1_000)),
                batch("1 MiB record", () -> Batches.large(1 << 20)),
                batch("no bytes", () -> MemoryRecords.EMPTY),
                Shape.of(ApiKeys.PRODUCE, "null records", 3, 13, (t, v) -> request(t, v, TOPIC, 0, null, (short) -1,
                        null)).withoutOracle("Kafka 4.3.1 never answers it (a NullPointerException in its handler)",
                                Map.of("responses[topic=conf-produce].partitionResponses[index=0].errorCode",
                                        "INVALID_RECORD")),
                batch("transactional batch without transactional id", () -> Batches.transactional(4242)),
                Shape.of(ApiKeys.PRODUCE, "transactional batch", 3, 13, (t, v) -> request(t, v, TOPIC, 0,
                        Batches.transactional(4242), (short) -1, "conf-tx")),
                Shape.of(ApiKeys.PRODUCE, "plain batch with a transactional id", 3, 13, (t, v) -> request(t, v, TOPIC,
                        0, Batches.plain(1), (short) -1, "conf-tx")),
                Shape.of(ApiKeys.PRODUCE, "acks 1", 3, 13, (t, v) -> request(t, v, TOPIC, 1, Batches.plain(1),
                        (short) 1, null)),
                Shape.of(ApiKeys.PRODUCE, "acks 2", 3, 13, (t, v) -> request(t, v, TOPIC, 1, Batches.plain(1),
                        (short) 2, null)),
                Shape.of(ApiKeys.PRODUCE, "unknown topic", 3, 13, (t, v) -> request(t, v, "conf-missing", 0,
                        Batches.plain(1), (short) -1, null)),
                Shape.script(ApiKeys.PRODUCE, "acks 0 to an unknown partition, then another request", 3, 13,
                        (s, v) -> {
                            s.askOneWay(ApiKeys.PRODUCE, v, request(s.target, v, TOPIC, 9, Batches.plain(1),
                                    (short) 0, null));
                            s.ask("metadata after", ApiKeys.METADATA, (short) 12, new MetadataRequestData()
                                    .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName(TOPIC))));
                        }),
                Shape.of(ApiKeys.PRODUCE, "unknown partition", 3, 13, (t, v) -> request(t, v, TOPIC, 9,
                        Batches.plain(1), (short) -1, null)),
                Shape.of(ApiKeys.PRODUCE, "internal topic", 3, 12, (t, v) -> request(t, v, "__consumer_offsets", 0,
                        Batches.plain(1), (short) -1, null)),
                Shape.script(ApiKeys.PRODUCE, "idempotent batches and a retry", 3, 13, ProduceCases::idempotent),
                Shape.script(ApiKeys.PRODUCE, "acks 0, then another request", 3, 13, ProduceCases::acksZero),
                Shape.script(ApiKeys.PRODUCE, "v0-2 as old clients write them", 0, 2, ProduceCases::removedVersion));
    }

    /** An idempotent producer's first batches, a retry of the last one, and one out of sequence. */
    private static void idempotent(Session s, short v) throws Exception {
        InitProducerIdResponseData id = (InitProducerIdResponseData) s.ask("init", ApiKeys.INIT_PRODUCER_ID, (short) 4,
                new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(60_000));
        long pid = id.producerId();
        short epoch = id.producerEpoch();
        s.ask("seq 0", ApiKeys.PRODUCE, v, request(s.target, v, TOPIC, 2, Batches.idempotent(pid, epoch, 0, 2),
                (short) -1, null));
        s.ask("seq 2", ApiKeys.PRODUCE, v, request(s.target, v, TOPIC, 2, Batches.idempotent(pid, epoch, 2, 2),
                (short) -1, null));
        s.ask("seq 2 again", ApiKeys.PRODUCE, v, request(s.target, v, TOPIC, 2, Batches.idempotent(pid, epoch, 2, 2),
                (short) -1, null));
        s.ask("seq 9", ApiKeys.PRODUCE, v, request(s.target, v, TOPIC, 2, Batches.idempotent(pid, epoch, 9, 1),
                (short) -1, null));
    }

    /** acks=0 gets no response; the next request on the connection must still get its own. */
    private static void acksZero(Session s, short v) throws Exception {
        s.askOneWay(ApiKeys.PRODUCE, v, request(s.target, v, TOPIC, 1, Batches.plain(1), (short) 0, null));
        s.ask("metadata after", ApiKeys.METADATA, (short) 12, new MetadataRequestData().setTopics(
                List.of(new MetadataRequestData.MetadataRequestTopic().setName(TOPIC))));
    }

    /**
     * Produce v0-2, written by hand (kafka-clients no longer can): Kafka 4 advertises them for
     * librdkafka's sake (KAFKA-18659) and closes the connection when one arrives.
     */
    private static void removedVersion(Session s, short v) throws Exception {
        s.askFrame("", ApiKeys.PRODUCE, v, correlationId -> {
            ByteBuffer b = ByteBuffer.allocate(256);
            b.putShort(ApiKeys.PRODUCE.id).putShort(v).putInt(correlationId);
            b.putShort((short) 1).put((byte) 'c'); // client id
            b.putShort((short) 1).putInt(1000); // acks, timeout
            b.putInt(1).putShort((short) TOPIC.length()).put(TOPIC.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            b.putInt(1).putInt(0).putInt(0); // partition 0, an empty message set
            b.flip();
            return b;
        });
    }
}
