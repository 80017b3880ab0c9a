package io.aloft.broker.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.log.LogConfig;
import org.junit.jupiter.api.Test;

class TransactionStateTopicTest {

    @Test
    void topic_kafkasNameCompactedAndNeverAgedOut() {
        assertEquals("__transaction_state", TransactionStateTopic.TOPIC);
        assertEquals("compact", TransactionStateTopic.TOPIC_CONFIGS.get(LogConfig.CLEANUP_POLICY_CONFIG));
        assertEquals("-1", TransactionStateTopic.TOPIC_CONFIGS.get(LogConfig.RETENTION_MS_CONFIG));
        assertEquals("-1", TransactionStateTopic.TOPIC_CONFIGS.get(LogConfig.RETENTION_BYTES_CONFIG));
    }
}
