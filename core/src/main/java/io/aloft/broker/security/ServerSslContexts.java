package io.aloft.broker.security;

import io.aloft.config.ConfigException;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.UnrecoverableKeyException;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collections;
import java.util.Locale;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Builds an SSL listener's server-side Netty {@link SslContext} (the JDK's TLS provider) from its
 * {@link SslConfig}: key store (JKS, PKCS12, PEM file or inline), trust store, client
 * authentication, protocols and cipher suites. Everything is loaded and checked here, at start, so
 * a missing file or a wrong password stops the broker with a {@link ConfigException} naming the key,
 * rather than failing each handshake later. Stateless.
 */
public final class ServerSslContexts {
    private ServerSslContexts() {
    }

    /**
     * @throws ConfigException naming the key (as set for this listener) whose value cannot be used
     */
    public static SslContext build(SslConfig c) {
        SslContextBuilder b = keyMaterial(c);
        trustMaterial(c, b);
        b.sslProvider(SslProvider.JDK)
                .protocols(c.get(SslConfig.ENABLED_PROTOCOLS))
                .clientAuth(switch (c.clientAuth()) {
                    case NONE -> ClientAuth.NONE;
                    case REQUESTED -> ClientAuth.OPTIONAL;
                    case REQUIRED -> ClientAuth.REQUIRE;
                });
        if (c.get(SslConfig.CIPHER_SUITES) != null && !c.get(SslConfig.CIPHER_SUITES).isEmpty()) {
            b.ciphers(c.get(SslConfig.CIPHER_SUITES));
        }
        try {
            return b.build();
        } catch (IOException | IllegalArgumentException e) {
            throw new ConfigException(c.keyName(SslConfig.ENABLED_PROTOCOLS_CONFIG), "listener "
                    + c.listenerName() + ": cannot build a TLS context: " + e.getMessage(), e);
        }
    }

    private static SslContextBuilder keyMaterial(SslConfig c) {
        String type = c.get(SslConfig.KEYSTORE_TYPE).toUpperCase(Locale.ROOT);
        String location = c.get(SslConfig.KEYSTORE_LOCATION);
        String keyPassword = c.get(SslConfig.KEY_PASSWORD);
        if (type.equals("PEM")) {
            String chain = c.get(SslConfig.KEYSTORE_CERTIFICATE_CHAIN);
            String key = c.get(SslConfig.KEYSTORE_KEY);
            try {
                if (chain != null || key != null) {
                    require(chain != null, c, SslConfig.KEYSTORE_CERTIFICATE_CHAIN_CONFIG, "must be set with "
                            + SslConfig.KEYSTORE_KEY_CONFIG);
                    require(key != null, c, SslConfig.KEYSTORE_KEY_CONFIG, "must be set with "
                            + SslConfig.KEYSTORE_CERTIFICATE_CHAIN_CONFIG);
                    return SslContextBuilder.forServer(stream(chain), stream(key), keyPassword);
                }
                require(location != null, c, SslConfig.KEYSTORE_LOCATION_CONFIG, "must be set for SSL listener "
                        + c.listenerName() + " (or, with PEM, " + SslConfig.KEYSTORE_KEY_CONFIG + " and "
                        + SslConfig.KEYSTORE_CERTIFICATE_CHAIN_CONFIG + ")");
                // One file holds both the key and the chain, as Kafka's PEM key store file does.
                byte[] pem = read(c, SslConfig.KEYSTORE_LOCATION_CONFIG, location);
                return SslContextBuilder.forServer(new ByteArrayInputStream(pem), new ByteArrayInputStream(pem),
                        keyPassword);
            } catch (IllegalArgumentException e) {
                if (e instanceof ConfigException) {
                    throw e;
                }
                throw new ConfigException(c.keyName(chain != null ? SslConfig.KEYSTORE_KEY_CONFIG
                        : SslConfig.KEYSTORE_LOCATION_CONFIG), "listener " + c.listenerName()
                        + ": not a PEM private key and certificate chain (or wrong " + SslConfig.KEY_PASSWORD_CONFIG
                        + "): " + e.getMessage(), e);
            }
        }
        require(location != null, c, SslConfig.KEYSTORE_LOCATION_CONFIG, "must be set for SSL listener "
                + c.listenerName());
        String storePassword = c.get(SslConfig.KEYSTORE_PASSWORD);
        KeyStore store = load(c, type, SslConfig.KEYSTORE_LOCATION_CONFIG, location,
                SslConfig.KEYSTORE_PASSWORD_CONFIG, storePassword);
        try {
            boolean hasKey = false;
            for (String alias : Collections.list(store.aliases())) {
                hasKey |= store.isKeyEntry(alias);
            }
            require(hasKey, c, SslConfig.KEYSTORE_LOCATION_CONFIG, location + " holds no private key");
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            String password = keyPassword != null ? keyPassword : storePassword;
            kmf.init(store, password == null ? null : password.toCharArray());
            return SslContextBuilder.forServer(kmf);
        } catch (UnrecoverableKeyException e) {
            throw new ConfigException(c.keyName(keyPassword != null ? SslConfig.KEY_PASSWORD_CONFIG
                    : SslConfig.KEYSTORE_PASSWORD_CONFIG), "listener " + c.listenerName()
                    + ": cannot recover the private key in " + location + " (wrong password)", e);
        } catch (GeneralSecurityException e) {
            throw new ConfigException(c.keyName(SslConfig.KEYSTORE_LOCATION_CONFIG), "listener "
                    + c.listenerName() + ": cannot use " + location + ": " + e.getMessage(), e);
        }
    }

    /**
     * The trust store (the JVM's default without one), its trust manager wrapped so that a client
     * certificate must also map to a name ({@link PrincipalCheckingTrustManager}) on an SSL listener;
     * on a SASL_SSL one the certificate names no principal, so only trust is checked, as in Kafka.
     */
    private static void trustMaterial(SslConfig c, SslContextBuilder b) {
        KeyStore store = trustStore(c);
        try {
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store); // null: the JVM's default trust store, as in Kafka
            for (TrustManager tm : tmf.getTrustManagers()) {
                if (tm instanceof X509ExtendedTrustManager x509) {
                    b.trustManager(c.sasl() ? x509 : new PrincipalCheckingTrustManager(x509,
                            c.principalMappingRules()));
                    return;
                }
            }
            throw new ConfigException(c.keyName(SslConfig.TRUSTSTORE_LOCATION_CONFIG), "listener "
                    + c.listenerName() + ": the JVM offers no X.509 trust manager");
        } catch (GeneralSecurityException e) {
            throw new ConfigException(c.keyName(SslConfig.TRUSTSTORE_LOCATION_CONFIG), "listener "
                    + c.listenerName() + ": cannot use the trust store: " + e.getMessage(), e);
        }
    }

    /** The configured trust store, or null for the JVM's default. */
    private static KeyStore trustStore(SslConfig c) {
        String type = c.get(SslConfig.TRUSTSTORE_TYPE).toUpperCase(Locale.ROOT);
        String location = c.get(SslConfig.TRUSTSTORE_LOCATION);
        if (!type.equals("PEM")) {
            return location == null ? null : load(c, type, SslConfig.TRUSTSTORE_LOCATION_CONFIG, location,
                    SslConfig.TRUSTSTORE_PASSWORD_CONFIG, c.get(SslConfig.TRUSTSTORE_PASSWORD));
        }
        String inline = c.get(SslConfig.TRUSTSTORE_CERTIFICATES);
        if (inline == null && location == null) {
            return null;
        }
        String key = inline != null ? SslConfig.TRUSTSTORE_CERTIFICATES_CONFIG : SslConfig.TRUSTSTORE_LOCATION_CONFIG;
        InputStream pem = inline != null ? stream(inline) : new ByteArrayInputStream(read(c, key, location));
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            int i = 0;
            for (Certificate cert : CertificateFactory.getInstance("X.509").generateCertificates(pem)) {
                store.setCertificateEntry("pem-" + i++, cert);
            }
            require(i > 0, c, key, "listener " + c.listenerName() + ": no PEM certificate found");
            return store;
        } catch (IOException | GeneralSecurityException e) {
            throw new ConfigException(c.keyName(key), "listener " + c.listenerName() + ": not PEM certificates: "
                    + e.getMessage(), e);
        }
    }

    private static KeyStore load(SslConfig c, String type, String locationKey, String location, String passwordKey,
            String password) {
        byte[] bytes = read(c, locationKey, location);
        try {
            KeyStore store = KeyStore.getInstance(type);
            store.load(new ByteArrayInputStream(bytes), password == null ? null : password.toCharArray());
            return store;
        } catch (IOException e) {
            // The JDK reports a wrong store password as an IOException caused by UnrecoverableKeyException.
            if (e.getCause() instanceof UnrecoverableKeyException || String.valueOf(e.getMessage())
                    .contains("password")) {
                throw new ConfigException(c.keyName(passwordKey), "listener " + c.listenerName()
                        + ": wrong password for " + location, e);
            }
            throw new ConfigException(c.keyName(locationKey), "listener " + c.listenerName() + ": " + location
                    + " is not a " + type + " store: " + e.getMessage(), e);
        } catch (GeneralSecurityException e) {
            throw new ConfigException(c.keyName(locationKey), "listener " + c.listenerName() + ": cannot load "
                    + location + ": " + e.getMessage(), e);
        }
    }

    private static byte[] read(SslConfig c, String key, String location) {
        try {
            return Files.readAllBytes(Path.of(location));
        } catch (IOException | RuntimeException e) {
            throw new ConfigException(c.keyName(key), "listener " + c.listenerName() + ": cannot read "
                    + location + ": " + e, e);
        }
    }

    private static InputStream stream(String pem) {
        return new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII));
    }

    private static void require(boolean ok, SslConfig c, String key, String problem) {
        if (!ok) {
            throw new ConfigException(c.keyName(key), problem);
        }
    }
}
