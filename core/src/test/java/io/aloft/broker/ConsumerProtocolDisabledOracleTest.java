package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.servers.ApacheKafkaServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.ConsumerGroupDescribeRequest;
import org.apache.kafka.common.requests.ConsumerGroupDescribeResponse;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code group.coordinator.rebalance.protocols=classic}: ApiVersions and the KIP-848 APIs answer as
 * Apache Kafka 4.3.1 (the oracle, same setting) does: still advertised, refused with UNSUPPORTED_VERSION.
 */
class ConsumerProtocolDisabledOracleTest {
    private static final Map<String, String> CLASSIC_ONLY = Map.of("group.coordinator.rebalance.protocols", "classic");

    @TempDir
    static Path dir;
    static TestBroker aloft;
    static ApacheKafkaServer kafka;

    @BeforeAll
    static void start() throws Exception {
        aloft = new TestBroker(dir.resolve("aloft"), CLASSIC_ONLY);
        kafka = new ApacheKafkaServer(ApacheKafkaServer.findLibsDir(), "512m", false, dir.resolve("kafka"),
                CLASSIC_ONLY, Duration.ofSeconds(120));
        kafka.start();
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.stop();
        }
        if (aloft != null) {
            aloft.close();
        }
    }

    private static String answers(String bootstrap) throws Exception {
        try (RawKafkaClient c = new RawKafkaClient(bootstrap)) {
            ApiVersionsResponse versions = c.send(new ApiVersionsRequest.Builder().build((short) 3));
            String advertised = "heartbeat advertised=" + versions.data().apiKeys()
                    .find(ApiKeys.CONSUMER_GROUP_HEARTBEAT.id) + " describe advertised="
                    + versions.data().apiKeys().find(ApiKeys.CONSUMER_GROUP_DESCRIBE.id);
            ConsumerGroupHeartbeatResponse hb = c.send(new ConsumerGroupHeartbeatRequest.Builder(
                    new ConsumerGroupHeartbeatRequestData().setGroupId("g").setMemberId("m").setMemberEpoch(0)
                            .setRebalanceTimeoutMs(30_000).setSubscribedTopicNames(List.of("t"))
                            .setTopicPartitions(List.of()), true).build((short) 1));
            ConsumerGroupDescribeResponse d = c.send(new ConsumerGroupDescribeRequest.Builder(
                    new ConsumerGroupDescribeRequestData().setGroupIds(List.of("g")), true).build((short) 1));
            return advertised + " heartbeat=" + hb.data().errorCode() + " " + hb.data().errorMessage() + " describe="
                    + d.data().groups().get(0).errorCode();
        }
    }

    @Test
    void consumerProtocolOff_requestsAnsweredAsKafkaDoes() throws Exception {
        String kafkaAnswers = answers(kafka.bootstrap());
        assertEquals(kafkaAnswers, answers(aloft.bootstrap()));
        assertTrue(kafkaAnswers.contains("heartbeat=35 "), kafkaAnswers); // UNSUPPORTED_VERSION
    }
}
