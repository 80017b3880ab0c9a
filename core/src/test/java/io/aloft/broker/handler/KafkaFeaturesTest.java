package io.aloft.broker.handler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.junit.jupiter.api.Test;

/**
 * ApiVersions' features section by request version, as Kafka 4.3.1 fills it (compared with Kafka in
 * TransactionVerificationOracleTest): none before v3; from v3 the finalized level and epoch; the
 * supported range of a feature whose minimum is 0 only from v4 (KAFKA-17011).
 */
class KafkaFeaturesTest {

    private static ApiVersionsResponseData filled(KafkaFeatures f, short version) {
        ApiVersionsResponseData data = new ApiVersionsResponseData();
        f.fill(data, version);
        return data;
    }

    @Test
    void transactionVersion_byApiVersionsVersion() {
        KafkaFeatures f = KafkaFeatures.transactions((short) 2, 42);
        ApiVersionsResponseData v2 = filled(f, (short) 2);
        assertTrue(v2.supportedFeatures().isEmpty() && v2.finalizedFeatures().isEmpty());
        assertEquals(-1, v2.finalizedFeaturesEpoch());

        ApiVersionsResponseData v3 = filled(f, (short) 3);
        assertNull(v3.supportedFeatures().find("transaction.version"), "min 0: left out of v3");
        assertEquals(2, v3.finalizedFeatures().find("transaction.version").maxVersionLevel());
        assertEquals(2, v3.finalizedFeatures().find("transaction.version").minVersionLevel());
        assertEquals(42, v3.finalizedFeaturesEpoch());

        ApiVersionsResponseData v4 = filled(f, (short) 4);
        ApiVersionsResponseData.SupportedFeatureKey s = v4.supportedFeatures().find("transaction.version");
        assertNotNull(s);
        assertEquals(0, s.minVersion());
        assertEquals(2, s.maxVersion());
    }

    @Test
    void level1_finalizedAt1_none_listsNothing() {
        assertEquals(1, filled(KafkaFeatures.transactions((short) 1, 0), (short) 4).finalizedFeatures()
                .find("transaction.version").maxVersionLevel());
        ApiVersionsResponseData none = filled(KafkaFeatures.NONE, (short) 4);
        assertTrue(none.supportedFeatures().isEmpty() && none.finalizedFeatures().isEmpty());
        assertEquals(-1, none.finalizedFeaturesEpoch());
    }
}
