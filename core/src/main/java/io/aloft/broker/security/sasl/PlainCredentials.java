package io.aloft.broker.security.sasl;

import io.aloft.config.ConfigException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.Map;

/**
 * The users of a PLAIN listener and their passwords, from Kafka's JAAS-config syntax:
 * {@code org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";}
 * (one {@code user_NAME="password"} option per user; other options are ignored, as Kafka's PLAIN
 * server ignores {@code username}/{@code password}, which are the broker's own client credentials).
 *
 * <p>Passwords are kept only as SHA-256 digests and compared in constant time (digests of equal
 * length, {@link MessageDigest#isEqual}); an unknown user is compared against a dummy digest, so
 * the time taken does not tell whether the user exists. Immutable, thread-safe.
 */
public final class PlainCredentials {
    static final String LOGIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule";
    private static final byte[] NO_USER = digest("\u0000no such user\u0000");

    private final Map<String, byte[]> digests;

    private PlainCredentials(Map<String, byte[]> digests) {
        this.digests = Map.copyOf(digests);
    }

    /**
     * @param key the config key, for errors
     * @throws ConfigException for a syntax error, another login module, or no user
     */
    static PlainCredentials fromJaasConfig(String key, String text) {
        JaasConfig jaas;
        try {
            jaas = JaasConfig.parse(text);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key, e.getMessage());
        }
        if (!jaas.loginModule().equals(LOGIN_MODULE)) {
            throw new ConfigException(key, "login module " + jaas.loginModule() + " is not " + LOGIN_MODULE);
        }
        Map<String, byte[]> users = new HashMap<>();
        jaas.options().forEach((name, value) -> {
            if (name.startsWith("user_") && name.length() > "user_".length()) {
                users.put(name.substring("user_".length()), digest(value));
            }
        });
        if (users.isEmpty()) {
            throw new ConfigException(key, "no user_NAME=\"password\" option: no user could log in");
        }
        return new PlainCredentials(users);
    }

    /** Whether {@code user} exists and {@code password} is its password; takes the same time either way. */
    public boolean check(String user, String password) {
        byte[] expected = digests.get(user);
        boolean match = MessageDigest.isEqual(expected == null ? NO_USER : expected, digest(password));
        return expected != null && match;
    }

    private static byte[] digest(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
