package io.aloft.broker.handler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.conformance.KafkaOracle;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.Endpoint;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import io.aloft.broker.conformance.RawConnection;
import io.aloft.broker.share.ShareGroupConfig;
import io.aloft.broker.share.ShareGroupSettingsSource;
import io.aloft.broker.share.fetch.FakeSharePartitions;
import io.aloft.broker.share.fetch.ShareSessionCache;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.Test;

/**
 * Share session errors, and malformed acknowledgements, answered as Apache Kafka 4.3.1 (the oracle)
 * answers them: the same raw
 * ShareFetch / ShareAcknowledge frames, at v1 and v2, in the same order, to both, comparing each
 * response's top-level error code, AcquisitionLockTimeoutMs and partition count. The requests name
 * no topic (a topic id differs between the two clusters) except where the request is refused
 * before any topic is looked at, or, for the acknowledgement checks, a topic Aloft's metadata
 * holds under Kafka's id; Aloft's share partitions are a fake that no compared request reaches.
 */
class ShareSessionOracleTest {
    private static final Uuid UNKNOWN_TOPIC = Uuid.randomUuid();

    private static ShareFetchRequestData fetch(String member, int epoch) {
        return new ShareFetchRequestData().setGroupId("oracle-share-g").setMemberId(member)
                .setShareSessionEpoch(epoch).setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 20).setMaxRecords(10)
                .setBatchSize(10);
    }

    private static ShareFetchRequestData withAck(ShareFetchRequestData d) {
        ShareFetchRequestData.FetchPartition p = new ShareFetchRequestData.FetchPartition().setPartitionIndex(0);
        p.acknowledgementBatches().add(new ShareFetchRequestData.AcknowledgementBatch().setFirstOffset(0)
                .setLastOffset(0).setAcknowledgeTypes(List.of((byte) 1)));
        ShareFetchRequestData.FetchTopic t = new ShareFetchRequestData.FetchTopic().setTopicId(Uuid.randomUuid());
        t.partitions().add(p);
        d.topics().add(t);
        return d;
    }

    private static ShareAcknowledgeRequestData ack(String member, int epoch) {
        return new ShareAcknowledgeRequestData().setGroupId("oracle-share-g").setMemberId(member)
                .setShareSessionEpoch(epoch);
    }

    /** The sequence, as "what: answer" lines. */
    private static List<String> run(String bootstrap) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawConnection c = RawConnection.open(bootstrap)) {
            for (short v = 1; v <= 2; v++) {
                String m = "oracle-m-" + v; // Kafka accepts any non-empty member id for a session
                String m2 = Uuid.randomUuid().toString();
                send(c, out, v, "fetch, no session, epoch 5", fetch(m, 5));
                send(c, out, v, "fetch, no session, epoch -1", fetch(m, -1));
                send(c, out, v, "ack, no session, epoch 0", ack(m, 0));
                send(c, out, v, "ack, no session, epoch 3", ack(m, 3));
                send(c, out, v, "ack, no session, epoch -1", ack(m, -1));
                send(c, out, v, "fetch epoch 0 with acknowledgements", withAck(fetch(m, 0)));
                send(c, out, v, "fetch epoch 0 without member id", fetch("", 0));
                send(c, out, v, "fetch epoch 0 opens", fetch(m, 0));
                send(c, out, v, "fetch epoch 1", fetch(m, 1));
                send(c, out, v, "fetch epoch 1 again", fetch(m, 1));
                send(c, out, v, "fetch epoch 3, 2 expected", fetch(m, 3));
                send(c, out, v, "ack epoch 0 in a session", ack(m, 0));
                send(c, out, v, "ack epoch 2", ack(m, 2));
                send(c, out, v, "fetch epoch 2 after the ack took it", fetch(m, 2));
                send(c, out, v, "fetch epoch 0 replaces", fetch(m, 0));
                send(c, out, v, "fetch epoch 1 of the new session", fetch(m, 1));
                send(c, out, v, "fetch epoch -1 closes", fetch(m, -1));
                send(c, out, v, "fetch epoch 2 after closing", fetch(m, 2));
                send(c, out, v, "other member opens", fetch(m2, 0));
                send(c, out, v, "other member ack epoch -1 closes", ack(m2, -1));
                send(c, out, v, "other member fetch epoch 1 after closing", fetch(m2, 1));
                if (v >= 2) {
                    send(c, out, v, "renew-only fetch asking for records", fetch(m2, 0).setIsRenewAck(true));
                }
            }
        }
        return out;
    }

    private static void send(RawConnection c, List<String> out, short v, String what, ApiMessage body)
            throws Exception {
        ApiKeys api = body instanceof ShareFetchRequestData ? ApiKeys.SHARE_FETCH : ApiKeys.SHARE_ACKNOWLEDGE;
        ApiMessage r = c.send(api, v, body).body();
        String answer;
        if (r instanceof ShareFetchResponseData f) {
            answer = "error=" + f.errorCode() + " lock=" + f.acquisitionLockTimeoutMs() + " topics="
                    + f.responses().size();
        } else {
            ShareAcknowledgeResponseData a = (ShareAcknowledgeResponseData) r;
            answer = "error=" + a.errorCode() + " lock=" + a.acquisitionLockTimeoutMs() + " topics="
                    + a.responses().size();
        }
        out.add(api + " v" + v + " " + what + ": " + answer);
    }

    @Test
    void sessionErrors_asKafka() throws Exception {
        List<String> kafka = run(KafkaOracle.bootstrap());
        ShareFixture f = new ShareFixture();
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        FakeSharePartitions shares = new FakeSharePartitions();
        ShareSessionCache sessions = new ShareSessionCache(100, 60_000, System::currentTimeMillis, shares);
        ShareGroupSettingsSource defaults = ShareGroupSettingsSource.fixed(ShareGroupConfig.defaults()
                .brokerDefaults()); // Kafka's defaults: a 30 s lock
        try (ShareServer aloft = new ShareServer(new ShareFetchHandler(f.cache, shares, sessions, defaults, timer),
                new ShareAcknowledgeHandler(f.cache, shares, sessions, defaults))) {
            assertEquals(String.join("\n", kafka), String.join("\n", run(aloft.bootstrap())));
        } finally {
            timer.shutdownNow();
            f.close();
        }
    }

    /** Malformed acknowledgement batches, each alone in a request, and an unknown topic id. */
    private static List<String> acknowledgementChecks(String bootstrap, Uuid topicId) throws Exception {
        // Valid batches are left out: Kafka's share partition answers them (INVALID_RECORD_STATE here, as
        // nothing was acquired), Aloft's fake would not.
        long[][] ranges = {{5, 3}, {0, 2, 1, 4}, {0, 3}, {0, 0}, {0, 0}, {0, 0}, {0, 0}};
        byte[][] types = {{1}, {1}, {1, 1}, {5}, {-1}, {4}, {}};
        List<String> out = new ArrayList<>();
        try (RawConnection c = RawConnection.open(bootstrap)) {
            for (short v = 1; v <= 2; v++) {
                String m = "oracle-acks-" + v;
                int epoch = 0;
                send(c, out, v, "open", fetch(m, epoch++));
                for (int i = 0; i <= ranges.length; i++) {
                    if (i == ranges.length) { // an unknown topic id, in a ShareAcknowledge (Kafka fails a
                        // ShareFetch naming one with UNKNOWN_SERVER_ERROR: see ShareFetchHandler)
                        ShareAcknowledgeRequestData d = ack(m, epoch++);
                        ShareAcknowledgeRequestData.AcknowledgePartition p =
                                new ShareAcknowledgeRequestData.AcknowledgePartition().setPartitionIndex(0);
                        p.acknowledgementBatches().add(new ShareAcknowledgeRequestData.AcknowledgementBatch()
                                .setFirstOffset(0).setLastOffset(0).setAcknowledgeTypes(List.of((byte) 1)));
                        ShareAcknowledgeRequestData.AcknowledgeTopic at =
                                new ShareAcknowledgeRequestData.AcknowledgeTopic().setTopicId(UNKNOWN_TOPIC);
                        at.partitions().add(p);
                        d.topics().add(at);
                        ShareAcknowledgeResponseData a = (ShareAcknowledgeResponseData) c.send(
                                ApiKeys.SHARE_ACKNOWLEDGE, v, d).body();
                        out.add("ack unknown topic v" + v + ": " + a.errorCode() + " " + a.responses().stream()
                                .flatMap(x -> x.partitions().stream()).map(x -> x.errorCode()).toList());
                        continue;
                    }
                    for (boolean piggybacked : new boolean[] {false, true}) {
                        List<Byte> t = new ArrayList<>();
                        for (byte b : types[i]) {
                            t.add(b);
                        }
                        String what = (piggybacked ? "fetch" : "ack") + " batches " + java.util.Arrays.toString(
                                ranges[i]) + " types " + t;
                        ApiMessage r;
                        if (piggybacked) {
                            ShareFetchRequestData d = fetch(m, epoch++);
                            ShareFetchRequestData.FetchPartition p = new ShareFetchRequestData.FetchPartition()
                                    .setPartitionIndex(0);
                            for (int b = 0; b < ranges[i].length; b += 2) {
                                p.acknowledgementBatches().add(new ShareFetchRequestData.AcknowledgementBatch()
                                        .setFirstOffset(ranges[i][b]).setLastOffset(ranges[i][b + 1])
                                        .setAcknowledgeTypes(t));
                            }
                            ShareFetchRequestData.FetchTopic ft = new ShareFetchRequestData.FetchTopic()
                                    .setTopicId(topicId);
                            ft.partitions().add(p);
                            d.topics().add(ft);
                            r = c.send(ApiKeys.SHARE_FETCH, v, d).body();
                            ShareFetchResponseData f = (ShareFetchResponseData) r;
                            out.add(what + " v" + v + ": error=" + f.errorCode() + " ack=" + f.responses().stream()
                                    .flatMap(x -> x.partitions().stream()).map(x -> x.acknowledgeErrorCode())
                                    .toList());
                        } else {
                            ShareAcknowledgeRequestData d = ack(m, epoch++);
                            ShareAcknowledgeRequestData.AcknowledgePartition p =
                                    new ShareAcknowledgeRequestData.AcknowledgePartition().setPartitionIndex(0);
                            for (int b = 0; b < ranges[i].length; b += 2) {
                                p.acknowledgementBatches().add(new ShareAcknowledgeRequestData.AcknowledgementBatch()
                                        .setFirstOffset(ranges[i][b]).setLastOffset(ranges[i][b + 1])
                                        .setAcknowledgeTypes(t));
                            }
                            ShareAcknowledgeRequestData.AcknowledgeTopic at =
                                    new ShareAcknowledgeRequestData.AcknowledgeTopic().setTopicId(topicId);
                            at.partitions().add(p);
                            d.topics().add(at);
                            ShareAcknowledgeResponseData a = (ShareAcknowledgeResponseData) c.send(
                                    ApiKeys.SHARE_ACKNOWLEDGE, v, d).body();
                            out.add(what + " v" + v + ": error=" + a.errorCode() + " partitions=" + a.responses()
                                    .stream().flatMap(x -> x.partitions().stream()).map(x -> x.errorCode()).toList());
                        }
                    }
                }
            }
        }
        return out;
    }

    @Test
    void malformedAcknowledgements_asKafka() throws Exception {
        String kafkaBootstrap = KafkaOracle.bootstrap();
        Uuid topicId;
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
                java.util.Map.of("bootstrap.servers", kafkaBootstrap))) {
            try {
                admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic("oracle-share-acks", 1,
                        (short) 1))).all().get();
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
                    throw e;
                }
            }
            topicId = admin.describeTopics(List.of("oracle-share-acks")).allTopicNames().get()
                    .get("oracle-share-acks").topicId();
        }
        List<String> kafka = acknowledgementChecks(kafkaBootstrap, topicId);
        // Aloft's metadata: the same topic, with Kafka's topic id.
        MetadataCache cache = new MetadataCache();
        cache.onImage(new ClusterImage(1, List.of(new BrokerInfo(1, "run-1", 1, List.of(new Endpoint("PLAINTEXT",
                "127.0.0.1", 9092, "PLAINTEXT")), null, BrokerState.ACTIVE)), List.of(new TopicInfo(
                new UUID(topicId.getMostSignificantBits(), topicId.getLeastSignificantBits()), "oracle-share-acks",
                java.util.Map.of(), List.of(new PartitionInfo(0, 1, 0, List.of(1L)))))));
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        FakeSharePartitions shares = new FakeSharePartitions();
        ShareSessionCache sessions = new ShareSessionCache(100, 60_000, System::currentTimeMillis, shares);
        ShareGroupSettingsSource defaults = ShareGroupSettingsSource.fixed(ShareGroupConfig.defaults()
                .brokerDefaults());
        try (ShareServer aloft = new ShareServer(new ShareFetchHandler(cache, shares, sessions, defaults, timer),
                new ShareAcknowledgeHandler(cache, shares, sessions, defaults))) {
            assertEquals(String.join("\n", kafka), String.join("\n", acknowledgementChecks(aloft.bootstrap(),
                    topicId)));
        } finally {
            timer.shutdownNow();
        }
        assertEquals(List.of(), shares.acknowledges, "nothing malformed reaches the share partitions");
    }
}
