package io.aloft.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client security settings and the certificates behind them, without a broker. */
class ClientSecurityTest {
    @TempDir
    Path dir;

    @Test
    void create_sasl_ssl_serverChainSignedByTheCaClientsTrust() throws Exception {
        try (ClientSecurity security = ClientSecurity.create(SecurityProtocol.SASL_SSL, dir)) {
            Map<String, String> client = security.clientProperties();
            Map<String, String> broker = security.brokerProperties();
            assertEquals("SASL_SSL", client.get("security.protocol"));
            assertEquals("PLAIN", client.get("sasl.mechanism"));
            String password = broker.get("ssl.keystore.password");

            KeyStore server = load(Path.of(broker.get("ssl.keystore.location")), password);
            Certificate[] chain = server.getCertificateChain("server");
            assertEquals(2, chain.length, "server, then the CA");
            X509Certificate leaf = (X509Certificate) chain[0];
            assertEquals(List.of(List.of(7, "127.0.0.1"), List.of(2, "localhost")),
                    leaf.getSubjectAlternativeNames().stream().toList(), "IP and DNS names clients check");
            leaf.verify(chain[1].getPublicKey());

            // What a client trusts (its trust store) accepts the chain the broker presents.
            KeyStore trust = load(Path.of(client.get("ssl.truststore.location")),
                    client.get("ssl.truststore.password"));
            assertEquals(1, trust.size());
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            ((X509TrustManager) tmf.getTrustManagers()[0]).checkServerTrusted(
                    new X509Certificate[] {leaf, (X509Certificate) chain[1]}, "ECDHE_ECDSA");

            // The user the client logs in as is the one user the CLIENT listener knows, same password.
            String jaas = client.get("sasl.jaas.config");
            String userPassword = jaas.replaceAll(".*password=\"([^\"]+)\".*", "$1");
            assertTrue(jaas.contains("username=\"bench\""), jaas);
            assertEquals("org.apache.kafka.common.security.plain.PlainLoginModule required user_bench=\""
                    + userPassword + "\";", broker.get("listener.name.client.plain.sasl.jaas.config"));
            assertEquals("PLAIN", broker.get("listener.name.client.sasl.enabled.mechanisms"));
            assertTrue(security.describe().startsWith(", clients over SASL_SSL (SASL/PLAIN, TLS"), security.describe());
        }
        try (var left = Files.list(dir)) {
            assertFalse(left.findAny().isPresent(), "close() deletes the certificates");
        }
    }

    @Test
    void create_plaintextAndSaslPlaintext_noCertificates() throws Exception {
        ClientSecurity plain = ClientSecurity.create(SecurityProtocol.PLAINTEXT, dir);
        assertTrue(plain.isPlaintext());
        assertEquals(Map.of(), plain.clientProperties());
        assertEquals(Map.of(), plain.brokerProperties());
        assertEquals("", plain.describe());

        ClientSecurity sasl = ClientSecurity.create(SecurityProtocol.SASL_PLAINTEXT, dir);
        assertEquals("SASL_PLAINTEXT", sasl.clientProperties().get("security.protocol"));
        assertFalse(sasl.clientProperties().containsKey("ssl.truststore.location"));
        assertFalse(sasl.brokerProperties().containsKey("ssl.keystore.location"));
        try (var left = Files.list(dir)) {
            assertFalse(left.findAny().isPresent(), "nothing written without TLS");
        }
    }

    @Test
    void parseProtocol_anyCase_elseNamesTheValidOnes() {
        assertEquals(SecurityProtocol.SASL_SSL, ClientSecurity.parseProtocol("sasl_ssl"));
        assertEquals(SecurityProtocol.SSL, ClientSecurity.parseProtocol("SSL"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ClientSecurity.parseProtocol("tls"));
        assertEquals("'tls' is not one of [plaintext, ssl, sasl_plaintext, sasl_ssl]", e.getMessage());
    }

    private static KeyStore load(Path file, String password) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            ks.load(in, password.toCharArray());
        }
        return ks;
    }
}
