package io.aloft.wal;

import java.nio.ByteBuffer;

/**
 * One record read back from the log.
 *
 * @param offset the logical offset the record was appended at
 * @param body the record's bytes as appended; a read-only buffer owned by the receiver
 */
public record WalRecord(long offset, ByteBuffer body) {
}
