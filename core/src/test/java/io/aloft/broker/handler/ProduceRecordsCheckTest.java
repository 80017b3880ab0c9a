package io.aloft.broker.handler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/**
 * Transactional batches against {@code aloft.transactions.enable}: refused while off, as before;
 * accepted with a transactional id while on.
 */
class ProduceRecordsCheckTest {
    private static final short VERSION = 11;

    private static MemoryRecords transactional() {
        return MemoryRecords.withTransactionalRecords(Compression.NONE, 7L, (short) 0, 0,
                new SimpleRecord("v".getBytes()));
    }

    @Test
    void check_transactionalBatch_refusedWhileTransactionsAreOff() {
        assertEquals(Errors.INVALID_PRODUCER_ID_MAPPING,
                ProduceRecordsCheck.check(VERSION, transactional(), "tx", false).error());
        assertEquals(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                ProduceRecordsCheck.check(VERSION, transactional(), null, false).error());
    }

    @Test
    void check_transactionalBatch_acceptedWithAnIdWhileTransactionsAreOn() {
        assertNull(ProduceRecordsCheck.check(VERSION, transactional(), "tx", true));
        assertEquals(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                ProduceRecordsCheck.check(VERSION, transactional(), null, true).error());
    }
}
