package io.aloft.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.log.BatchRecordsAccess;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.junit.jupiter.api.Test;

/**
 * Fetch responses encoded by {@link ResponseWriter} are byte for byte what kafka-clients' own
 * encoder writes into one buffer, while large record sets are sent as the very buffers the log
 * holds (not copies) and small ones are copied.
 */
class FrameWriterTest {

    static ByteBuffer joined(ByteBuffer[] frame) {
        int size = 0;
        for (ByteBuffer b : frame) {
            size += b.remaining();
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        for (ByteBuffer b : frame) {
            out.put(b.duplicate());
        }
        return out.flip();
    }

    private static ByteBuffer batch(long baseOffset, int records, int valueSize) {
        SimpleRecord[] rs = new SimpleRecord[records];
        for (int i = 0; i < records; i++) {
            byte[] value = new byte[valueSize];
            java.util.Arrays.fill(value, (byte) (baseOffset + i));
            rs[i] = new SimpleRecord(i, ("k" + i).getBytes(), value);
        }
        return MemoryRecords.withRecords(baseOffset, Compression.NONE, rs).buffer();
    }

    /** The frame kafka-clients writes for the same message into one buffer: the oracle. */
    private static ByteBuffer kafkaEncoding(short version, int correlationId, FetchResponseData data,
            FetchResponseData sameWithMemoryRecords) {
        short headerVersion = ApiKeys.FETCH.responseHeaderVersion(version);
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = header.size(cache, headerVersion) + sameWithMemoryRecords.size(cache, version);
        ByteBuffer out = ByteBuffer.allocate(4 + size);
        out.putInt(size);
        ByteBufferAccessor w = new ByteBufferAccessor(out);
        header.write(w, cache, headerVersion);
        sameWithMemoryRecords.write(w, cache, version);
        return out.flip();
    }

    private static FetchResponseData response(List<Object> recordsPerPartition) {
        FetchResponseData data = new FetchResponseData().setSessionId(7);
        FetchResponseData.FetchableTopicResponse t = new FetchResponseData.FetchableTopicResponse()
                .setTopic("t").setTopicId(new Uuid(1, 2));
        for (int p = 0; p < recordsPerPartition.size(); p++) {
            Object r = recordsPerPartition.get(p);
            t.partitions().add(new FetchResponseData.PartitionData().setPartitionIndex(p).setHighWatermark(100 + p)
                    .setLastStableOffset(100 + p).setLogStartOffset(0)
                    .setRecords((org.apache.kafka.common.record.internal.BaseRecords) r));
        }
        data.responses().add(t);
        return data;
    }

    @Test
    void fetchResponse_sameBytesAsKafkasEncoder_largeBatchesByReference_smallOnesCopied() {
        ByteBuffer big1 = batch(0, 20, 1000);
        ByteBuffer big2 = batch(20, 10, 1000);
        ByteBuffer small = batch(30, 1, 10);
        List<ByteBuffer> partition0 = List.of(big1, big2);
        List<ByteBuffer> partition1 = List.of(small);
        List<Object> ours = new ArrayList<>();
        ours.add(BatchRecordsAccess.of(partition0));
        ours.add(BatchRecordsAccess.of(partition1));
        ours.add(BatchRecordsAccess.of(List.of()));
        List<Object> kafkas = new ArrayList<>();
        kafkas.add(MemoryRecords.readableRecords(joined(new ByteBuffer[] {big1, big2})));
        kafkas.add(MemoryRecords.readableRecords(small.duplicate()));
        kafkas.add(MemoryRecords.EMPTY);
        for (short version : new short[] {7, 11, 12, 16, ApiKeys.FETCH.latestVersion()}) {
            FetchResponseData mine = response(ours);
            FetchResponseData oracle = response(kafkas);
            if (version < 13) {
                mine.responses().get(0).setTopicId(Uuid.ZERO_UUID);
                oracle.responses().get(0).setTopicId(Uuid.ZERO_UUID);
            }
            ByteBuffer[] frame = ResponseWriter.encode(ApiKeys.FETCH, version, 42, mine);
            assertEquals(kafkaEncoding(version, 42, mine, oracle), joined(frame), "v" + version);
            int referenced = 0;
            for (ByteBuffer b : frame) {
                if (b.isReadOnly()) {
                    referenced++;
                }
            }
            assertEquals(2, referenced, "v" + version + ": the two large batches go out as views of the log's buffers");
        }
    }

    @Test
    void aLargeBatch_isSentFromTheLogsOwnBuffer() {
        ByteBuffer big = batch(0, 20, 1000);
        FetchResponseData data = response(List.of(BatchRecordsAccess.of(List.of(big))));
        ByteBuffer[] frame = ResponseWriter.encode(ApiKeys.FETCH, ApiKeys.FETCH.latestVersion(), 1, data);
        ByteBuffer sent = null;
        for (ByteBuffer b : frame) {
            if (b.remaining() == big.remaining()) {
                sent = b;
            }
        }
        assertTrue(sent != null && sent.isReadOnly(), "the batch is a segment of its own");
        // A view of the same memory: a change to the log's buffer would show (it never changes; this proves no copy).
        big.put(big.position() + 20, (byte) 99);
        assertEquals(99, sent.get(sent.position() + 20));
    }
}
