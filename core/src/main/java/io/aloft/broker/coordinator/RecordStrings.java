package io.aloft.broker.coordinator;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The byte-level pieces the coordinator record serdes of {@code __transaction_state} and
 * {@code __share_group_state} share: a string as an int16 length and UTF-8 bytes, strictly decoded
 * (malformed bytes are a corrupt record, not replaced), and the check that a key or value was read
 * to its end. Failures are reported through the serde's own corrupt-record exception. Stateless.
 */
public final class RecordStrings {
    /** Makes a serde's corrupt-record exception from a message and a cause (null when there is none). */
    @FunctionalInterface
    public interface Corrupt {
        RuntimeException of(String message, Throwable cause);
    }

    private RecordStrings() {
    }

    /**
     * {@code s} as UTF-8, at most {@link Short#MAX_VALUE} bytes, else IllegalArgumentException naming
     * {@code what} (the field) and {@code topic}.
     */
    public static byte[] utf8(String s, String what, String topic) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > Short.MAX_VALUE) {
            throw new IllegalArgumentException(what + " of " + b.length + " bytes is too long for a "
                    + topic + " record");
        }
        return b;
    }

    /**
     * Reads an int16 length and that many UTF-8 bytes. A negative length or malformed UTF-8 is
     * {@code corrupt} (the latter naming {@code what}); too few bytes is BufferUnderflowException.
     */
    public static String read(ByteBuffer in, String what, Corrupt corrupt) {
        short len = in.getShort();
        if (len < 0) {
            throw corrupt.of("negative string length " + len, null);
        }
        if (len > in.remaining()) {
            throw new BufferUnderflowException();
        }
        ByteBuffer slice = in.slice(in.position(), len);
        in.position(in.position() + len);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(slice).toString();
        } catch (CharacterCodingException e) {
            throw corrupt.of(what + " is not UTF-8", e);
        }
    }

    /** Fails with {@code corrupt} if bytes are left in {@code b}, the {@code part} (key, value) of a record. */
    public static void requireEnd(ByteBuffer b, String topic, String part, Corrupt corrupt) {
        if (b.hasRemaining()) {
            throw corrupt.of(topic + " " + part + " has " + b.remaining() + " bytes left over", null);
        }
    }
}
