package io.aloft.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.Test;

/** The decision behind every request's turn: its response, its error response, or a closed connection. */
class ResponseFramesTest {
    private static final RequestHeader HEADER = new RequestHeader(ApiKeys.DESCRIBE_CLUSTER, (short) 1, "c", 9);

    /** A request whose error response is as broken as its answer: nothing can be sent for it. */
    private static final class Unanswerable extends AbstractRequest {
        Unanswerable() {
            super(ApiKeys.DESCRIBE_CLUSTER, (short) 1);
        }

        @Override
        public ApiMessage data() {
            return new DescribeClusterRequestData();
        }

        @Override
        public AbstractResponse getErrorResponse(int throttleTimeMs, Throwable e) {
            throw new IllegalStateException("no error response for you");
        }
    }

    private static DescribeClusterResponseData decode(ByteBuffer[] frame) {
        ByteBuffer b = FrameWriterTest.joined(frame);
        assertEquals(b.remaining() - 4, b.getInt());
        assertEquals(9, ResponseHeader.parse(b, ApiKeys.DESCRIBE_CLUSTER.responseHeaderVersion((short) 1))
                .correlationId());
        DescribeClusterResponseData d = new DescribeClusterResponseData();
        d.read(new ByteBufferAccessor(b), (short) 1);
        return d;
    }

    private static AbstractResponse unencodable() {
        // A DescribeCluster answer whose message is too long for its length prefix.
        return new DescribeClusterResponse(new DescribeClusterResponseData().setErrorMessage("x".repeat(40_000)));
    }

    @Test
    void of_encodableResponse_isItsFrame() {
        ResponseFrames.Outcome o = ResponseFrames.of(HEADER, new DescribeClusterRequest.Builder(
                new DescribeClusterRequestData()).build((short) 1), true,
                new DescribeClusterResponse(new DescribeClusterResponseData().setClusterId("c1")), null, "conn");
        assertNull(o.closeReason());
        assertEquals("c1", decode(o.frame()).clusterId());
    }

    @Test
    void of_unencodableResponse_isTheRequestsUnknownServerErrorResponse() {
        ResponseFrames.Outcome o = ResponseFrames.of(HEADER, new DescribeClusterRequest.Builder(
                new DescribeClusterRequestData()).build((short) 1), true, unencodable(), null, "conn");
        assertNull(o.closeReason());
        assertEquals(Errors.UNKNOWN_SERVER_ERROR.code(), decode(o.frame()).errorCode());
    }

    @Test
    void of_unencodableResponseAndNoErrorResponse_closesNamingWhy() {
        ResponseFrames.Outcome o = ResponseFrames.of(HEADER, new Unanswerable(), true, unencodable(), null, "conn");
        assertNull(o.frame());
        assertTrue(o.closeReason().contains("no error response for you"), o.closeReason());
    }

    @Test
    void of_dispatcherFailed_closes() {
        ResponseFrames.Outcome o = ResponseFrames.of(HEADER, new Unanswerable(), true, null,
                new IllegalStateException("boom"), "conn");
        assertNull(o.frame());
        assertNotNull(o.closeReason());
    }

    @Test
    void of_acksZeroProduce_sendsNothing_orClosesWhenItFailed() {
        RequestHeader produce = new RequestHeader(ApiKeys.PRODUCE, (short) 12, "c", 1);
        assertEquals(ResponseFrames.Outcome.NOTHING, ResponseFrames.of(produce, null, false, listOffsets(Errors.NONE),
                null, "conn"));
        ResponseFrames.Outcome failed = ResponseFrames.of(produce, null, false, listOffsets(Errors.NOT_LEADER_OR_FOLLOWER),
                null, "conn");
        assertTrue(failed.expectedClose() && failed.closeReason() != null, failed.toString());
        assertTrue(ResponseFrames.of(produce, null, false, null, null, "conn").expectedClose());
    }

    /** Any response with one partition error (the acks=0 rule looks at error counts only). */
    private static AbstractResponse listOffsets(Errors error) {
        return new ListOffsetsResponse(new ListOffsetsResponseData().setTopics(List.of(new ListOffsetsTopicResponse()
                .setName("t").setPartitions(List.of(new ListOffsetsPartitionResponse().setErrorCode(error.code()))))));
    }
}
