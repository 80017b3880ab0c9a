package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With transactions turned off ({@code aloft.transactions.enable=false}), a transactional producer
 * fails fast and says why (issue 11, item 6): its coordinator lookup is answered INVALID_REQUEST
 * with a reason, which the client does not retry, rather than COORDINATOR_NOT_AVAILABLE, which it
 * retries until {@code max.block.ms}.
 */
class TransactionsRefusedTest {
    @TempDir
    Path dir;

    @Test
    void initTransactions_failsWithinSeconds_namingTheReason() throws Exception {
        try (TestBroker broker = new TestBroker(dir, Map.of("aloft.transactions.enable", "false"))) {
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-1");
            // The default: a lookup retried instead would block this long before failing.
            p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
                long start = System.nanoTime();
                KafkaException e = assertThrows(KafkaException.class, producer::initTransactions);
                long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
                assertTrue(seconds < 10, "initTransactions took " + seconds + " s");
                assertTrue(e.getMessage().contains("does not support transactions"), e.toString());
            }
        }
    }
}
