package io.aloft.broker.log;

/**
 * What an append answers a producer with (the fields of a Produce response partition).
 *
 * <p>Immutable.
 *
 * @param baseOffset offset of the first record appended, or -1 when the request held no batch
 * @param lastOffset offset of the last record appended, or -1 when the request held no batch
 * @param logAppendTimeMs the broker's timestamp for LogAppendTime topics, else -1
 * @param logStartOffset the log start offset after the append
 */
public record AppendResult(long baseOffset, long lastOffset, long logAppendTimeMs, long logStartOffset) {
}
