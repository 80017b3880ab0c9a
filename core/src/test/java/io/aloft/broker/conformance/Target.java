package io.aloft.broker.conformance;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One broker under test (Aloft or Kafka) and what the conformance cases find on it: the same
 * topics, with the same records, made the same way on both, their ids (each cluster gives its own)
 * and leader epochs, and an Admin client for a case's own setup.
 *
 * <p>Not thread-safe: one test thread uses it.
 */
final class Target implements AutoCloseable {
    /** Three partitions of {@link #RECORDS_PER_PARTITION} records each. */
    static final String DATA = "conf-data";
    /** One empty partition. */
    static final String EMPTY = "conf-empty";
    static final int DATA_PARTITIONS = 3;
    static final int RECORDS_PER_PARTITION = 5;
    /** CreateTime of the first record of each partition; each next record is a second later. */
    static final long FIRST_TIMESTAMP = System.currentTimeMillis() - 600_000;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    final String name;
    final String bootstrap;
    final Admin admin;
    private final Map<String, Uuid> topicIds = new HashMap<>();
    private final Map<Uuid, String> topicNames = new HashMap<>();
    private final Map<String, Integer> leaderEpochs = new HashMap<>();

    private Target(String name, String bootstrap) {
        this.name = name;
        this.bootstrap = bootstrap;
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        this.admin = Admin.create(p);
    }

    /** Connects to a broker and creates the shared topics and records, once both coordinators answer. */
    static Target prepare(String name, String bootstrap) throws Exception {
        Target t = new Target(name, bootstrap);
        try {
            t.createTopic(DATA, DATA_PARTITIONS);
            t.createTopic(EMPTY, 1);
            t.createTopic(ProduceCases.TOPIC, 3);
            t.produceData();
            t.awaitGroupCoordinator();
            return t;
        } catch (Exception | Error e) {
            t.close();
            throw e;
        }
    }

    /**
     * Writes the shared records once per broker: several test classes prepare a target on the one
     * Kafka oracle of the test JVM, and each expects exactly these records.
     */
    private void produceData() throws Exception {
        var end = admin.listOffsets(Map.of(new org.apache.kafka.common.TopicPartition(DATA, 0),
                org.apache.kafka.clients.admin.OffsetSpec.latest())).all().get(30, TimeUnit.SECONDS);
        if (end.values().iterator().next().offset() > 0) {
            return;
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int partition = 0; partition < DATA_PARTITIONS; partition++) {
                for (int i = 0; i < RECORDS_PER_PARTITION; i++) {
                    producer.send(new ProducerRecord<>(DATA, partition, FIRST_TIMESTAMP + i * 1000L, "k" + i, "v" + i))
                            .get(30, TimeUnit.SECONDS);
                }
            }
        }
    }

    /** Creates a topic (if missing) and waits until the broker's metadata shows every partition led. */
    void createTopic(String topic, int partitions) throws Exception {
        try {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
        awaitTopic(topic, partitions);
    }

    /** Waits until the broker's metadata shows the topic with every partition led, and notes its id. */
    void awaitTopic(String topic, int partitions) throws Exception {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        try (RawConnection c = RawConnection.open(bootstrap)) {
            while (true) {
                MetadataRequestData request = new MetadataRequestData().setAllowAutoTopicCreation(false)
                        .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName(topic)));
                MetadataResponseData m = (MetadataResponseData) c.send(ApiKeys.METADATA, (short) 12, request).body();
                MetadataResponseData.MetadataResponseTopic t = m.topics().find(topic);
                if (t != null && t.errorCode() == Errors.NONE.code() && t.partitions().size() == partitions
                        && t.partitions().stream().allMatch(pt -> pt.leaderId() >= 0)
                        && leadsEveryPartition(c, topic, partitions)) {
                    topicIds.put(topic, t.topicId());
                    topicNames.put(t.topicId(), topic);
                    t.partitions().forEach(pt -> leaderEpochs.put(topic + "-" + pt.partitionIndex(), pt.leaderEpoch()));
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(name + ": topic " + topic + " not ready within " + READY_TIMEOUT + ": " + t);
                }
                pause();
            }
        }
    }

    /**
     * Whether the broker answers ListOffsets for every partition without an error. Kafka's broker
     * publishes a new topic in its metadata cache a moment before its replica manager leads the
     * partitions, and a produce in between gets NOT_LEADER_OR_FOLLOWER; ListOffsets asks the replica
     * manager.
     */
    private static boolean leadsEveryPartition(RawConnection c, String topic, int partitions) throws Exception {
        ListOffsetsRequestData.ListOffsetsTopic t = new ListOffsetsRequestData.ListOffsetsTopic().setName(topic);
        for (int p = 0; p < partitions; p++) {
            t.partitions().add(new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(p)
                    .setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP));
        }
        ListOffsetsResponseData r = (ListOffsetsResponseData) c.send(ApiKeys.LIST_OFFSETS, (short) 7,
                new ListOffsetsRequestData().setReplicaId(-1).setTopics(List.of(t))).body();
        return r.topics().stream().flatMap(rt -> rt.partitions().stream())
                .allMatch(rp -> rp.errorCode() == Errors.NONE.code());
    }

    /** Waits until a group's coordinator is found (Kafka creates its offsets topic on first use). */
    private void awaitGroupCoordinator() throws Exception {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        try (RawConnection c = RawConnection.open(bootstrap)) {
            while (true) {
                FindCoordinatorResponseData r = (FindCoordinatorResponseData) c.send(ApiKeys.FIND_COORDINATOR,
                        (short) 3, new FindCoordinatorRequestData().setKey("conf-warmup").setKeyType((byte) 0)).body();
                if (r.errorCode() == Errors.NONE.code()) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(name + ": no group coordinator within " + READY_TIMEOUT + ": " + r);
                }
                pause();
            }
        }
    }

    /**
     * Polls until a transactional id's coordinator is found and a transactional batch is answered
     * with a final code, not a retriable one: Kafka creates its transaction state topic on first use.
     */
    void awaitTransactionCoordinatorSettled() throws Exception {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        try (RawConnection c = RawConnection.open(bootstrap)) {
            while (true) {
                FindCoordinatorResponseData r = (FindCoordinatorResponseData) c.send(ApiKeys.FIND_COORDINATOR,
                        (short) 3, new FindCoordinatorRequestData().setKey("conf-tx").setKeyType((byte) 1)).body();
                ProduceResponseData p = (ProduceResponseData) c.send(ApiKeys.PRODUCE, (short) 12,
                        ProduceCases.request(this, (short) 12, ProduceCases.TOPIC, 0, Batches.transactional(4242),
                                (short) -1, "conf-tx")).body();
                Errors produced = Errors.forCode(p.responses().iterator().next().partitionResponses().get(0)
                        .errorCode());
                if (r.errorCode() == Errors.NONE.code() && !(produced.exception()
                        instanceof org.apache.kafka.common.errors.RetriableException)) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(name + ": transaction coordinator still unsettled: " + r + ", " + produced);
                }
                pause();
            }
        }
    }

    Uuid topicId(String topic) {
        Uuid id = topicIds.get(topic);
        if (id == null) {
            throw new IllegalArgumentException(name + ": no id known for " + topic);
        }
        return id;
    }

    /** The topic name of an id this target gave, or the id itself for an id it did not. */
    String topicName(Uuid id) {
        return topicNames.getOrDefault(id, id.toString());
    }

    int leaderEpoch(String topic, int partition) {
        return leaderEpochs.get(topic + "-" + partition);
    }

    /** Describes a topic through Admin (for setup checks). */
    TopicDescription describe(String topic) throws Exception {
        return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
    }

    /** Between two polls of another process's state (each poll has a deadline). */
    static void pause() {
        java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }

    @Override
    public String toString() {
        return name;
    }
}
