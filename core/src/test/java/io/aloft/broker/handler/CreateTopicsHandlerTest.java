package io.aloft.broker.handler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.api.RequestContext;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.topic.TopicManager;
import io.aloft.controller.ControllerConfig;
import io.aloft.controller.TestQuorum;
import io.aloft.controller.client.ControllerClient;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicCollection;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

/** CreateTopics against a controller quorum that never answers (its only voter's address has no listener). */
class CreateTopicsHandlerTest {

    /**
     * Without a quorum the controller client retries for {@code controller.request.timeout.ms} (and
     * was seen not to answer within 60 s), so the handler itself must bound the wait by the
     * request's timeoutMs (ControllerQuorumLossTest: the answer came only once the quorum was back).
     */
    @Test
    void handle_noControllerAnswer_requestTimedOutWithinTimeoutMs() throws Exception {
        ControllerConfig config = ControllerConfig.builder().nodeId(999)
                .voters("1@127.0.0.1:" + TestQuorum.freePort()).build();
        try (ControllerClient controller = ControllerClient.create(config)) {
            CreateTopicsHandler handler = new CreateTopicsHandler(new TopicManager(controller, new MetadataCache(), 1,
                    1));
            CreatableTopicCollection topics = new CreatableTopicCollection();
            topics.add(new CreatableTopic().setName("t").setNumPartitions(1).setReplicationFactor((short) 1));
            CreateTopicsRequest request = new CreateTopicsRequest.Builder(new CreateTopicsRequestData()
                    .setTopics(topics).setTimeoutMs(500)).build((short) 7);
            RequestContext context = new RequestContext(new RequestHeader(ApiKeys.CREATE_TOPICS, (short) 7, "client",
                    1), "PLAINTEXT", new InetSocketAddress("127.0.0.1", 40000), "conn-1");

            CreateTopicsResponse response = (CreateTopicsResponse) handler.handle(context, request)
                    .get(10, TimeUnit.SECONDS);

            CreatableTopicResult result = response.data().topics().find("t");
            assertEquals(Errors.REQUEST_TIMED_OUT.code(), result.errorCode(), result.errorMessage());
        }
    }
}
