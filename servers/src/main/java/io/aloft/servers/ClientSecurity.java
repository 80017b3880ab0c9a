package io.aloft.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * How benchmark clients reach a broker: the security protocol of the listener they connect to, and
 * what both sides need for it. PLAINTEXT (the default) leaves the brokers exactly as they were;
 * any other protocol gives each broker a second listener named {@value #LISTENER} with that
 * protocol for the clients, while brokers and controllers keep talking PLAINTEXT among themselves,
 * so that only the clients' path is measured with TLS and SASL.
 *
 * <p>With TLS (SSL, SASL_SSL) one {@link BenchCertificates} serves every broker of the run, Kafka
 * and Aloft alike; clients trust its CA and check the host name. With SASL (SASL_PLAINTEXT,
 * SASL_SSL) the mechanism is PLAIN with one user, {@value #USER}, and a random password; the broker
 * takes it from Kafka's JAAS syntax in {@code listener.name.client.plain.sasl.jaas.config}, which
 * both Kafka and Aloft read.
 *
 * <p>Immutable, apart from {@link #close()} deleting the files it made.
 */
public final class ClientSecurity implements AutoCloseable {
    /** The client listener's name when it is not PLAINTEXT. */
    public static final String LISTENER = "CLIENT";
    /** The one SASL/PLAIN user. */
    public static final String USER = "bench";
    private static final String PLAIN_LOGIN = "org.apache.kafka.common.security.plain.PlainLoginModule required";

    private static final ClientSecurity PLAINTEXT = new ClientSecurity(SecurityProtocol.PLAINTEXT, null, null, null);

    private final SecurityProtocol protocol;
    private final BenchCertificates certificates;
    private final String saslPassword;
    /** Where the certificates are, deleted by {@link #close()}; null without TLS. */
    private final Path dir;

    private ClientSecurity(SecurityProtocol protocol, BenchCertificates certificates, String saslPassword, Path dir) {
        this.protocol = protocol;
        this.certificates = certificates;
        this.saslPassword = saslPassword;
        this.dir = dir;
    }

    /** Clients over PLAINTEXT to the brokers' only listener, as before security existed. */
    public static ClientSecurity plaintext() {
        return PLAINTEXT;
    }

    /**
     * Parses a protocol name as Kafka spells it ({@code security.protocol}), in any case.
     *
     * @throws IllegalArgumentException naming the valid ones
     */
    public static SecurityProtocol parseProtocol(String name) {
        try {
            return SecurityProtocol.forName(name.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + name + "' is not one of " + SecurityProtocol.names()
                    .stream().map(n -> n.toLowerCase(Locale.ROOT)).toList());
        }
    }

    /**
     * The settings for {@code protocol}: for TLS, a CA and server certificate made under a new
     * temporary directory in {@code scratchParent} (deleted by {@link #close()}).
     */
    public static ClientSecurity create(SecurityProtocol protocol, Path scratchParent)
            throws IOException, InterruptedException {
        if (protocol == SecurityProtocol.PLAINTEXT) {
            return PLAINTEXT;
        }
        String sasl = isSasl(protocol) ? randomSecret() : null;
        if (!isTls(protocol)) {
            return new ClientSecurity(protocol, null, sasl, null);
        }
        Files.createDirectories(scratchParent);
        Path dir = Files.createTempDirectory(scratchParent, "omb-certificates-");
        try {
            return new ClientSecurity(protocol, BenchCertificates.generate(dir, randomSecret()), sasl, dir);
        } catch (IOException | InterruptedException | RuntimeException e) {
            ChildProcess.deleteRecursively(dir);
            throw e;
        }
    }

    public SecurityProtocol protocol() {
        return protocol;
    }

    public boolean isPlaintext() {
        return protocol == SecurityProtocol.PLAINTEXT;
    }

    /**
     * What a Kafka client adds to {@code bootstrap.servers} to connect: nothing for PLAINTEXT;
     * otherwise {@code security.protocol}, with TLS the trust store, with SASL the PLAIN
     * mechanism and its JAAS line.
     */
    public Map<String, String> clientProperties() {
        Map<String, String> p = new LinkedHashMap<>();
        if (isPlaintext()) {
            return p;
        }
        p.put("security.protocol", protocol.name);
        if (certificates != null) {
            p.put("ssl.truststore.type", "PKCS12");
            p.put("ssl.truststore.location", certificates.trustStore().toString());
            p.put("ssl.truststore.password", certificates.password());
        }
        if (saslPassword != null) {
            p.put("sasl.mechanism", "PLAIN");
            p.put("sasl.jaas.config", PLAIN_LOGIN + " username=\"" + USER + "\" password=\"" + saslPassword + "\";");
        }
        return p;
    }

    /**
     * The broker properties of the {@value #LISTENER} listener, the same for Kafka and Aloft: its key
     * store (unprefixed, as only this listener is TLS) and, with SASL, PLAIN as its only mechanism
     * and its one user. Empty for PLAINTEXT.
     */
    public Map<String, String> brokerProperties() {
        Map<String, String> p = new LinkedHashMap<>();
        if (certificates != null) {
            p.put("ssl.keystore.type", "PKCS12");
            p.put("ssl.keystore.location", certificates.keyStore().toString());
            p.put("ssl.keystore.password", certificates.password());
            p.put("ssl.key.password", certificates.password());
        }
        if (saslPassword != null) {
            String prefix = "listener.name." + LISTENER.toLowerCase(Locale.ROOT) + ".";
            // Kafka's default mechanism is GSSAPI, which would need Kerberos: name PLAIN for both.
            p.put(prefix + "sasl.enabled.mechanisms", "PLAIN");
            p.put(prefix + "plain.sasl.jaas.config", PLAIN_LOGIN + " user_" + USER + "=\"" + saslPassword + "\";");
        }
        return p;
    }

    /** For a system's description: ", clients over SASL_SSL (PLAIN, TLS: ...)"; empty for PLAINTEXT. */
    public String describe() {
        if (isPlaintext()) {
            return "";
        }
        StringBuilder s = new StringBuilder(", clients over ").append(protocol.name).append(" (");
        if (saslPassword != null) {
            s.append("SASL/PLAIN");
        }
        if (certificates != null) {
            s.append(saslPassword != null ? ", " : "")
                    .append("TLS with an EC P-256 certificate from a generated CA, host name checked");
        }
        return s.append("; brokers and controller on PLAINTEXT)").toString();
    }

    /** Deletes the certificates, if any. Idempotent. */
    @Override
    public void close() {
        if (dir != null) {
            ChildProcess.deleteRecursively(dir);
        }
    }

    private static boolean isTls(SecurityProtocol protocol) {
        return protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL;
    }

    private static boolean isSasl(SecurityProtocol protocol) {
        return protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL;
    }

    private static String randomSecret() {
        byte[] bytes = new byte[12];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
