package io.aloft.broker.security.scram;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One user's credential for one SCRAM mechanism, as a server keeps it (RFC 5802 section 3): the
 * salt and iteration count the client needs to derive its keys, the stored key (to verify the
 * client's proof) and the server key (to sign the server's answer). Never the password, nor the
 * salted password. Immutable (the arrays are not exposed).
 *
 * <p>Stored value (under {@code security/scram/<user>/<mechanism>}), big-endian:
 * <pre>
 * offset 0  FORMAT_VERSION (byte, 1)
 *        1  iterations (int32)
 *        5  salt length (uint16), then the salt
 *        .. stored key length (uint16), then the stored key
 *        .. server key length (uint16), then the server key
 * </pre>
 * A value of another version or a malformed one does not decode ({@link #decode} throws).
 */
public final class ScramCredential {
    static final byte FORMAT_VERSION = 1;
    private static final int VERSION_OFFSET = 0;
    private static final int ITERATIONS_OFFSET = 1;
    private static final int SALT_LENGTH_OFFSET = 5;

    private final byte[] salt;
    private final byte[] storedKey;
    private final byte[] serverKey;
    private final int iterations;

    ScramCredential(byte[] salt, byte[] storedKey, byte[] serverKey, int iterations) {
        this.salt = salt.clone();
        this.storedKey = storedKey.clone();
        this.serverKey = serverKey.clone();
        this.iterations = iterations;
    }

    /**
     * The credential from a salted password (what Kafka's admin client sends: Hi(password, salt,
     * iterations)): StoredKey = H(HMAC(SaltedPassword, "Client Key")), ServerKey =
     * HMAC(SaltedPassword, "Server Key").
     *
     * @throws IllegalArgumentException for an empty salted password
     */
    public static ScramCredential fromSaltedPassword(ScramMechanism mechanism, byte[] salt, byte[] saltedPassword,
            int iterations) {
        byte[] clientKey = mechanism.hmac(saltedPassword, "Client Key".getBytes(StandardCharsets.US_ASCII));
        return new ScramCredential(salt, mechanism.hash(clientKey),
                mechanism.hmac(saltedPassword, "Server Key".getBytes(StandardCharsets.US_ASCII)), iterations);
    }

    /** Hi(password, salt, i) of RFC 5802 (PBKDF2 with the mechanism's HMAC): for tests and tools. */
    public static byte[] saltedPassword(ScramMechanism mechanism, String password, byte[] salt, int iterations) {
        byte[] pw = password.getBytes(StandardCharsets.UTF_8);
        byte[] u = mechanism.hmac(pw, ByteBuffer.allocate(salt.length + 4).put(salt).putInt(1).array());
        byte[] result = u.clone();
        for (int i = 1; i < iterations; i++) {
            u = mechanism.hmac(pw, u);
            for (int j = 0; j < result.length; j++) {
                result[j] ^= u[j];
            }
        }
        return result;
    }

    public int iterations() {
        return iterations;
    }

    byte[] salt() {
        return salt.clone();
    }

    byte[] storedKey() {
        return storedKey.clone();
    }

    byte[] serverKey() {
        return serverKey.clone();
    }

    /** The stored form (see the class comment). */
    public byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(1 + 4 + 2 + salt.length + 2 + storedKey.length + 2 + serverKey.length);
        b.put(FORMAT_VERSION).putInt(iterations);
        b.putShort((short) salt.length).put(salt);
        b.putShort((short) storedKey.length).put(storedKey);
        b.putShort((short) serverKey.length).put(serverKey);
        return b.array();
    }

    /** @throws IllegalArgumentException if {@code value} is not a credential of a known format */
    public static ScramCredential decode(byte[] value) {
        try {
            ByteBuffer b = ByteBuffer.wrap(value);
            if (b.get(VERSION_OFFSET) != FORMAT_VERSION) {
                throw new IllegalArgumentException("unknown SCRAM credential format " + b.get(VERSION_OFFSET));
            }
            int iterations = b.getInt(ITERATIONS_OFFSET);
            b.position(SALT_LENGTH_OFFSET);
            byte[] salt = field(b);
            byte[] stored = field(b);
            byte[] server = field(b);
            if (b.hasRemaining()) {
                throw new IllegalArgumentException(b.remaining() + " bytes after the SCRAM credential");
            }
            return new ScramCredential(salt, stored, server, iterations);
        } catch (IndexOutOfBoundsException | java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated SCRAM credential", e);
        }
    }

    private static byte[] field(ByteBuffer b) {
        byte[] out = new byte[Short.toUnsignedInt(b.getShort())];
        b.get(out);
        return out;
    }
}
