package io.aloft.broker.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.config.ConfigException;
import io.aloft.metrics.CostConfig;
import io.aloft.stream.storage.ObjectStorageStats;
import io.aloft.stream.storage.ObjectStorageStats.Operation;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ObjectStorageCostTest {

    private static final ObjectStorageCost AWS = new ObjectStorageCost(CostConfig.fromProperties(Map.of()));

    @Test
    void requestsUsd_pricesEachOperationByItsClass_atTheDefaultListPrices() {
        ObjectStorageStats stats = new ObjectStorageStats();
        count(stats, Operation.PUT, 2_000);
        count(stats, Operation.MULTIPART_CREATE, 10);
        count(stats, Operation.MULTIPART_PART, 80);
        count(stats, Operation.MULTIPART_COMPLETE, 10);
        count(stats, Operation.LIST, 100);
        count(stats, Operation.GET, 50_000);
        count(stats, Operation.HEAD, 500);
        count(stats, Operation.DELETE, 7_000);
        count(stats, Operation.MULTIPART_ABORT, 3);
        stats.recordRetry(Operation.PUT); // a retried attempt is not billed here
        // 2,200 PUT-class requests at $0.005 per 1,000; 50,500 GET-class at $0.0004 per 1,000; deletes free.
        assertEquals(2_200 * 0.005 / 1000 + 50_500 * 0.0004 / 1000, AWS.requestsUsd(stats), 1e-12);
        assertEquals(0.011 + 0.0202, AWS.requestsUsd(stats), 1e-12);
    }

    @Test
    void requestsUsd_followsConfiguredPrices() {
        ObjectStorageCost cost = new ObjectStorageCost(CostConfig.fromProperties(Map.of(
                CostConfig.PUT_PER_1000_CONFIG, "1", CostConfig.GET_PER_1000_CONFIG, "0.5")));
        ObjectStorageStats stats = new ObjectStorageStats();
        count(stats, Operation.PUT, 3);
        count(stats, Operation.GET, 4);
        assertEquals(3 * 0.001 + 4 * 0.0005, cost.requestsUsd(stats), 1e-15);
        assertEquals(0, cost.requestsUsd(new ObjectStorageStats()));
    }

    @Test
    void storageUsdPerMonth_isBytesInBinaryGigabytesTimesThePrice() {
        assertEquals(0.023, AWS.storageUsdPerMonth(1L << 30), 1e-15);
        assertEquals(1000 * 0.023, AWS.storageUsdPerMonth(1000.0 * (1L << 30)), 1e-9);
        assertTrue(Double.isNaN(AWS.storageUsdPerMonth(Double.NaN)), "unknown stays unknown");
    }

    @Test
    void priceClass_followsS3sRequestClasses() {
        Map<Operation, ObjectStorageCost.PriceClass> expected = Map.of(
                Operation.PUT, ObjectStorageCost.PriceClass.PUT, Operation.LIST, ObjectStorageCost.PriceClass.PUT,
                Operation.MULTIPART_CREATE, ObjectStorageCost.PriceClass.PUT,
                Operation.MULTIPART_PART, ObjectStorageCost.PriceClass.PUT,
                Operation.MULTIPART_COMPLETE, ObjectStorageCost.PriceClass.PUT,
                Operation.GET, ObjectStorageCost.PriceClass.GET, Operation.HEAD, ObjectStorageCost.PriceClass.GET,
                Operation.DELETE, ObjectStorageCost.PriceClass.FREE,
                Operation.MULTIPART_ABORT, ObjectStorageCost.PriceClass.FREE);
        assertEquals(Operation.values().length, expected.size());
        expected.forEach((op, priceClass) -> assertEquals(priceClass, ObjectStorageCost.priceClass(op), op.name()));
    }

    @Test
    void negativePrices_areRefusedNamingTheKey() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> CostConfig.fromProperties(Map.of(CostConfig.STORAGE_GB_MONTH_CONFIG, "-1")));
        assertTrue(e.getMessage().startsWith(CostConfig.STORAGE_GB_MONTH_CONFIG), e.getMessage());
    }

    private static void count(ObjectStorageStats stats, Operation op, int requests) {
        for (int i = 0; i < requests; i++) {
            stats.recordRequest(op);
        }
    }
}
