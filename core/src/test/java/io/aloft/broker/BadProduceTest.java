package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Produce requests the broker must refuse, sent as raw protocol so the test sees the error code
 * itself (the real producer retries or times out instead): a batch whose CRC does not match,
 * and a topic that does not exist on a broker that does not auto-create topics.
 */
class BadProduceTest {
    /** The last Produce version that names topics (v13 sends topic ids). */
    private static final short PRODUCE_BY_NAME = 12;

    @TempDir
    static Path dir;
    static TestBroker broker;
    static Admin admin;
    private static int correlationId;

    @BeforeAll
    static void start() throws Exception {
        broker = new TestBroker(dir, Map.of("auto.create.topics.enable", "false"));
        admin = Admin.create(broker.clientProps());
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void batchWithBadCrcIsRefusedAsCorruptAndNothingIsAppended() throws Exception {
        String topic = "crc";
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        MemoryRecords corrupt = records("first", "second");
        ByteBuffer buf = corrupt.buffer();
        // The last byte is inside the last record's value: covered by the batch CRC, but the
        // batch still parses, so only the CRC check can catch it.
        int last = buf.limit() - 1;
        buf.put(last, (byte) (buf.get(last) ^ 0x01));
        assertFalse(corrupt.batches().iterator().next().isValid(), "the test's batch really is corrupt");

        try (Socket s = connect()) {
            PartitionProduceResponse bad = produce(s, topic, corrupt);
            assertEquals(Errors.CORRUPT_MESSAGE.code(), bad.errorCode(), bad.toString());
            assertEquals(-1, bad.baseOffset());

            // The same connection keeps working, and the refused batch took no offsets.
            PartitionProduceResponse good = produce(s, topic, records("third"));
            assertEquals(Errors.NONE.code(), good.errorCode(), good.toString());
            assertEquals(0, good.baseOffset());
        }
        TopicPartition tp = new TopicPartition(topic, 0);
        assertEquals(1, admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp)
                .get(30, TimeUnit.SECONDS).offset(), "only the good batch is in the log");
    }

    @Test
    void produceToMissingTopicIsUnknownAndDoesNotCreateIt() throws Exception {
        String topic = "never-created";
        try (Socket s = connect()) {
            PartitionProduceResponse r = produce(s, topic, records("lost"));
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), r.errorCode(), r.toString());

            // What the real producer asks first: Metadata with auto-creation allowed. The broker's
            // setting wins: the topic is unknown and stays so.
            MetadataResponse metadata = (MetadataResponse) send(s,
                    new MetadataRequest.Builder(List.of(topic), true).build());
            MetadataResponseTopic t = metadata.data().topics().find(topic);
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), t.errorCode(), t.toString());
        }
        assertFalse(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic));
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS));
        assertInstanceOf(UnknownTopicOrPartitionException.class, e.getCause());
    }

    private static MemoryRecords records(String... values) {
        SimpleRecord[] rs = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            rs[i] = new SimpleRecord(System.currentTimeMillis(), null, values[i].getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(Compression.NONE, rs);
    }

    /** One acks=all Produce of {@code records} to partition 0 of {@code topic}; the partition's answer. */
    private static PartitionProduceResponse produce(Socket s, String topic, MemoryRecords records) throws IOException {
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000);
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName(topic).setPartitionData(List.of(
                new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records))));
        data.setTopicData(topics);
        ProduceRequest request = ProduceRequest.builder(data).build(PRODUCE_BY_NAME);
        ProduceResponse response = (ProduceResponse) send(s, request);
        assertEquals(1, response.data().responses().size());
        TopicProduceResponse t = response.data().responses().iterator().next();
        assertEquals(topic, t.name());
        assertEquals(1, t.partitionResponses().size());
        return t.partitionResponses().get(0);
    }

    private static Socket connect() throws IOException {
        Socket s = new Socket("127.0.0.1", broker.broker().port("PLAINTEXT"));
        s.setSoTimeout(30_000); // bounds a hang only; every answer here is immediate or one WAL write
        return s;
    }

    /** Sends one request over the raw socket and parses its answer. */
    private static AbstractResponse send(Socket s, AbstractRequest request) throws IOException {
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), "bad-produce-test",
                ++correlationId);
        ByteBuffer out = request.serializeWithHeader(header);
        DataOutputStream dos = new DataOutputStream(s.getOutputStream());
        dos.writeInt(out.remaining());
        dos.write(out.array(), out.arrayOffset() + out.position(), out.remaining());
        dos.flush();
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        ByteBuffer rb = ByteBuffer.wrap(bytes);
        ResponseHeader rh = ResponseHeader.parse(rb, request.apiKey().responseHeaderVersion(request.version()));
        assertEquals(header.correlationId(), rh.correlationId());
        return AbstractResponse.parseResponse(request.apiKey(), new ByteBufferAccessor(rb), request.version());
    }
}
