package io.aloft.stream.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ObjectStorageOptionsTest {

    @Test
    void build_nothingSet_usesDocumentedDefaults() {
        ObjectStorageOptions o = ObjectStorageOptions.builder().build();

        assertEquals(ObjectStorageOptions.MAX_ATTEMPTS_DEFAULT, o.maxAttempts());
        assertEquals(ObjectStorageOptions.LIST_PAGE_SIZE_DEFAULT, o.listPageSize());
        assertEquals(ObjectStorageOptions.RETRY_BASE_DELAY_DEFAULT, o.retryBaseDelay());
    }

    @Test
    void set_twice_isRejectedNamingTheOption() {
        ObjectStorageOptions.Builder b = ObjectStorageOptions.builder().maxAttempts(3);

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> b.maxAttempts(4));
        assertTrue(e.getMessage().contains("maxAttempts was already set to 3"), e.getMessage());
    }

    @Test
    void set_outOfRange_isRejectedWithTheValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ObjectStorageOptions.builder().listPageSize(1001));
        assertTrue(e.getMessage().contains("1001"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ObjectStorageOptions.builder().maxAttempts(0));
        assertThrows(IllegalArgumentException.class, () -> ObjectStorageOptions.builder().retryBaseDelay(Duration.ZERO));
    }

    @Test
    void build_clashingDelays_namesBothValues() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ObjectStorageOptions.builder()
                .retryBaseDelay(Duration.ofSeconds(5)).retryMaxDelay(Duration.ofSeconds(1)).build());

        assertTrue(e.getMessage().contains("PT5S") && e.getMessage().contains("PT1S"), e.getMessage());
    }
}
