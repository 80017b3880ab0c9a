package io.aloft.broker.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.stream.storage.ObjectStorageStats;
import io.aloft.stream.storage.ObjectStorageStats.Operation;
import io.aloft.stream.store.StreamStoreStats;
import io.aloft.wal.WalStats;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One line per interval while object storage misbehaves, one when it stops, nothing while healthy. */
class StorageWarningsTest {

    @Test
    void objectStorageTrouble_oneLinePerInterval_thenCleared() {
        ObjectStorageStats data = new ObjectStorageStats();
        ObjectStorageStats wal = new ObjectStorageStats();
        data.recordFailure(Operation.GET); // before the warnings start: not reported
        StorageWarnings warnings = new StorageWarnings(new WalStats(), new StreamStoreStats(), data, wal);
        assertEquals(List.of(), warnings.check(), "healthy: nothing logged");

        for (int i = 0; i < 50; i++) {
            data.recordRetry(Operation.PUT);
        }
        data.recordFailure(Operation.PUT);
        data.recordFailure(Operation.PUT);
        assertEquals(List.of("WARN Object storage (data): failed=2 retried=50 interval_s=10 operations=PUT,GET "
                + "(requests failed after their retries, or needed retries)"), warnings.check());

        wal.recordRetry(Operation.PUT);
        assertEquals(List.of("INFO Object storage (data): cleared (no failed or retried request in the last 10 s)",
                "WARN Object storage (wal): failed=0 retried=1 interval_s=10 operations=PUT "
                        + "(requests failed after their retries, or needed retries)"), warnings.check());
        assertEquals(List.of("INFO Object storage (wal): cleared (no failed or retried request in the last 10 s)"),
                warnings.check());
        assertEquals(List.of(), warnings.check(), "cleared once, then quiet");
    }
}
