package io.aloft.broker.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.TestBroker;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code transaction.partition.verification.enable=false}: a transaction-version-1 producer's batch
 * is appended without asking its coordinator (what Kafka does with the setting off, and what
 * TransactionVerificationOracleTest shows refused with it on), while a version-2 producer's
 * partition is still added by the leader.
 */
class TransactionVerificationDisabledTest {
    @TempDir
    Path dir;

    @Test
    void version1BatchForAPartitionNeverAdded_appended_version2StillAdded() throws Exception {
        try (TestBroker broker = new TestBroker(dir, Map.of("aloft.transactions.enable", "true",
                "transaction.state.log.num.partitions", "1", "transaction.partition.verification.enable", "false"));
                Admin admin = Admin.create(broker.clientProps())) {
            admin.createTopics(List.of(new NewTopic("verify", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            try (TransactionVerificationOracleTest.Client c = new TransactionVerificationOracleTest.Client(
                    broker.bootstrap())) {
                InitProducerIdResponseData v1 = c.init("unverified");
                assertEquals(Errors.NONE, c.produce((short) 11, "unverified", v1.producerId(), v1.producerEpoch(), 0));
                InitProducerIdResponseData v2 = c.init("added");
                assertEquals(Errors.NONE, c.produce((short) 12, "added", v2.producerId(), v2.producerEpoch(), 0));
                assertEquals(Errors.NONE, c.endTxn((short) 5, "added", v2.producerId(), v2.producerEpoch(), true));
            }
        }
    }
}
