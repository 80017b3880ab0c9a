package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code transaction.partition.verification.enable=false}: TxnOffsetCommit v0-4 are written without
 * asking the transaction coordinator, as Kafka skips the check then (the offsets of a transaction
 * that never sent AddOffsetsToTxn are taken), while v5 still adds the offsets partition and a
 * producer the coordinator does not know is still refused there. With verification on, the same
 * v4 request is refused (TxnOffsetCommitVerificationOracleTest).
 */
class TxnOffsetCommitVerificationDisabledTest {

    @TempDir
    Path dir;

    @Test
    void verificationOff_v4WithoutAddOffsets_taken_v5StillChecked() throws Exception {
        try (TestBroker broker = new TestBroker(dir, Map.of("aloft.transactions.enable", "true",
                "transaction.state.log.num.partitions", "2", "transaction.partition.verification.enable", "false"))) {
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap()))) {
                admin.createTopics(List.of(new NewTopic("txv-topic", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            }
            try (TxnOffsetCommitVerificationOracleTest.Client c =
                         new TxnOffsetCommitVerificationOracleTest.Client(broker.bootstrap())) {
                InitProducerIdResponse p = c.init("txv-off");
                long pid = p.data().producerId();
                short epoch = p.data().producerEpoch();
                assertEquals("NONE", c.commit((short) 4, c.simple("txv-off", pid, epoch, "txv-off-g")),
                        "not verified: taken without AddOffsetsToTxn");
                assertEquals("INVALID_PRODUCER_ID_MAPPING", c.commit((short) 5, c.simple("txv-off", pid + 1_000_000,
                        epoch, "txv-off-other")), "v5 adds the partition at the coordinator, which checks the producer");
            }
        }
    }
}
