package io.aloft.broker.security.scram;

import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The SCRAM mechanisms Kafka serves (RFC 5802 with RFC 7677's hash): their SASL names, the type
 * byte AlterUserScramCredentials and DescribeUserScramCredentials use (Kafka's
 * {@code org.apache.kafka.clients.admin.ScramMechanism}: 1 and 2; 0 is UNKNOWN), the hash and HMAC
 * primitives, and Kafka's iteration bounds for stored credentials. Immutable.
 */
public enum ScramMechanism {
    SCRAM_SHA_256("SCRAM-SHA-256", (byte) 1, "SHA-256", "HmacSHA256"),
    SCRAM_SHA_512("SCRAM-SHA-512", (byte) 2, "SHA-512", "HmacSHA512");

    /** Kafka's minimum iterations for a stored credential (both mechanisms). */
    public static final int MIN_ITERATIONS = 4096;
    /** Kafka's maximum iterations for a credential set through AlterUserScramCredentials. */
    public static final int MAX_ITERATIONS = 16384;

    private final String mechanismName;
    private final byte type;
    private final String hash;
    private final String hmac;

    ScramMechanism(String mechanismName, byte type, String hash, String hmac) {
        this.mechanismName = mechanismName;
        this.type = type;
        this.hash = hash;
        this.hmac = hmac;
    }

    /** The SASL mechanism name, e.g. {@code SCRAM-SHA-256}. */
    public String mechanismName() {
        return mechanismName;
    }

    /** The wire type of the admin APIs. */
    public byte type() {
        return type;
    }

    /** The mechanism named {@code name}, or null. */
    public static ScramMechanism forName(String name) {
        for (ScramMechanism m : values()) {
            if (m.mechanismName.equals(name)) {
                return m;
            }
        }
        return null;
    }

    /** The mechanism of wire type {@code type}, or null (Kafka's UNKNOWN). */
    public static ScramMechanism forType(byte type) {
        for (ScramMechanism m : values()) {
            if (m.type == type) {
                return m;
            }
        }
        return null;
    }

    /** H(data). */
    byte[] hash(byte[] data) {
        try {
            return MessageDigest.getInstance(hash).digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has " + hash, e);
        }
    }

    /**
     * HMAC(key, data).
     *
     * @throws IllegalArgumentException for an empty key (the JDK refuses one)
     */
    byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance(hmac);
            mac.init(new SecretKeySpec(key, hmac));
            return mac.doFinal(data);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("cannot use " + hmac, e);
        }
    }

    /** The digest length in bytes: the length of a proof, a stored key and a server key. */
    int length() {
        return hash(new byte[0]).length;
    }
}
