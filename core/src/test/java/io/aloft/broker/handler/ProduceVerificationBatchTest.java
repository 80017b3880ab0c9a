package io.aloft.broker.handler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.api.RequestContext;
import io.aloft.broker.log.LogConfig;
import io.aloft.broker.log.LogFixture;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.partition.PartitionManager;
import io.aloft.broker.partition.TransactionCheck;
import io.aloft.broker.partition.TransactionVerifier;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16: a transaction-version-2 Produce (v12) whose batches open the transaction in three
 * partitions asks the coordinator once, naming the three (one AddPartitionsToTxn, one durable
 * write), and its next batches there ask nothing.
 */
class ProduceVerificationBatchTest {
    private static final int SELF = 1;
    private static final short PRODUCE_V12 = 12;

    @TempDir
    Path dir;

    /** Agrees to everything, recording the partitions of each question. */
    private static final class CountingVerifier implements TransactionVerifier {
        final List<Set<TopicPartition>> questions = new CopyOnWriteArrayList<>();

        @Override
        public CompletableFuture<Map<TopicPartition, Errors>> checkAll(String transactionalId, long producerId,
                short producerEpoch, Collection<TopicPartition> partitions, TransactionCheck check) {
            questions.add(Set.copyOf(partitions));
            Map<TopicPartition, Errors> all = new HashMap<>();
            partitions.forEach(tp -> all.put(tp, Errors.NONE));
            return CompletableFuture.completedFuture(all);
        }
    }

    private static ProduceRequest produce(int partitions, int sequence) {
        ProduceRequestData.TopicProduceData t = new ProduceRequestData.TopicProduceData().setName("busy");
        for (int p = 0; p < partitions; p++) {
            t.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(p).setRecords(
                    MemoryRecords.withTransactionalRecords(Compression.NONE, 7L, (short) 0, sequence,
                            new SimpleRecord(("v" + sequence).getBytes()))));
        }
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(t);
        return ProduceRequest.builder(new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000)
                .setTransactionalId("tx").setTopicData(topics), true).build(PRODUCE_V12);
    }

    @Test
    void transactionalProduce_threePartitions_oneCoordinatorQuestion() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try (LogFixture f = new LogFixture(dir)) {
            MetadataCache cache = new MetadataCache();
            List<PartitionInfo> parts = new ArrayList<>();
            for (int p = 0; p < 3; p++) {
                parts.add(new PartitionInfo(p, SELF, 1, List.of(f.store.createStream().get(10, TimeUnit.SECONDS),
                        f.store.createStream().get(10, TimeUnit.SECONDS))));
            }
            cache.putTopic(new TopicInfo(UUID.randomUUID(), "busy", Map.of(), parts));
            PartitionManager partitions = new PartitionManager(SELF, cache, f.store, f.metadata, LogConfig::defaults,
                    f.clock::get, scheduler, 60_000);
            CountingVerifier verifier = new CountingVerifier();
            partitions.verifyTransactionsWith(verifier);
            try {
                for (int p = 0; p < 3; p++) { // the logs open (a check that waits for an open asks on its own)
                    LogFixture.get(partitions.append(new TopicPartition("busy", p),
                            MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("open".getBytes()))));
                }
                ProduceHandler handler = new ProduceHandler(cache, partitions, true);
                RequestContext context = new RequestContext(new RequestHeader(ApiKeys.PRODUCE, PRODUCE_V12, "client",
                        1), "PLAINTEXT", new InetSocketAddress("127.0.0.1", 40000), "conn-1");
                for (int sequence = 0; sequence < 2; sequence++) {
                    ProduceResponse response = (ProduceResponse) handler.handle(context, produce(3, sequence))
                            .get(10, TimeUnit.SECONDS);
                    for (ProduceResponseData.PartitionProduceResponse p
                            : response.data().responses().find("busy", org.apache.kafka.common.Uuid.ZERO_UUID)
                                    .partitionResponses()) {
                        assertEquals(Errors.NONE.code(), p.errorCode(), p.errorMessage());
                        assertEquals(1 + sequence, p.baseOffset());
                    }
                }
                assertEquals(List.of(Set.of(new TopicPartition("busy", 0), new TopicPartition("busy", 1),
                        new TopicPartition("busy", 2))), verifier.questions,
                        "one question for the request's three partitions; none once the transaction is open");
            } finally {
                partitions.close();
            }
        } finally {
            scheduler.shutdownNow();
        }
    }
}
