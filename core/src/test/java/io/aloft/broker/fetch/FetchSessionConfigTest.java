package io.aloft.broker.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.config.ConfigException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FetchSessionConfigTest {

    @Test
    void defaults_kafkaValues() {
        assertEquals(1000, FetchSessionConfig.fromProperties(Map.of()).cacheSlots());
        assertEquals(120_000L, FetchSessionConfig.MIN_EVICTION_MS);
    }

    @Test
    void cacheSlots_zeroAllowed_negativeRejectedNamingTheKey() {
        assertEquals(0, FetchSessionConfig.fromProperties(
                Map.of("max.incremental.fetch.session.cache.slots", "0")).cacheSlots());
        ConfigException e = assertThrows(ConfigException.class, () -> FetchSessionConfig.fromProperties(
                Map.of("max.incremental.fetch.session.cache.slots", "-1")));
        assertTrue(e.getMessage().startsWith("max.incremental.fetch.session.cache.slots"), e.getMessage());
    }
}
