package io.aloft.broker.log;

import java.nio.ByteBuffer;
import java.util.List;

/** Builds {@link BatchRecords} for tests outside this package. */
public final class BatchRecordsAccess {
    private BatchRecordsAccess() {
    }

    public static BatchRecords of(List<ByteBuffer> batches) {
        return new BatchRecords(batches);
    }
}
