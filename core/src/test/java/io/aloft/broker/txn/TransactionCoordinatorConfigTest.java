package io.aloft.broker.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.config.ConfigException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TransactionCoordinatorConfigTest {

    @Test
    void defaults_kafkasValues() {
        TransactionCoordinatorConfig c = TransactionCoordinatorConfig.defaults();
        assertEquals(50, c.stateLogPartitions());
        assertEquals(900_000, c.maxTimeoutMs());
        assertEquals(10_000, c.abortTimedOutIntervalMs());
        assertEquals(604_800_000, c.idExpirationMs());
        assertEquals(3_600_000, c.removeExpiredIntervalMs());
    }

    @Test
    void fromProperties_textValues_parsedAndBadOnesNamed() {
        assertEquals(60_000, TransactionCoordinatorConfig.fromProperties(
                Map.of("transaction.max.timeout.ms", "60000")).maxTimeoutMs());
        ConfigException e = assertThrows(ConfigException.class, () -> TransactionCoordinatorConfig.fromProperties(
                Map.of("transaction.state.log.num.partitions", "0")));
        assertTrue(e.getMessage().startsWith("transaction.state.log.num.partitions"), e.getMessage());
    }
}
