package io.aloft.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.security.ListenerSecurity;
import io.aloft.broker.security.Principal;
import io.aloft.broker.security.SslConfig;
import io.aloft.broker.security.TestCertificates;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An SSL listener of the network layer alone, with kafka-clients' Admin as the client: the
 * principal each request sees (ANONYMOUS without a client certificate, the mapped DN with one),
 * mutual TLS refusing clients without a trusted certificate, TLS versions, and PEM key material.
 * Requests are answered by a Metadata handler that records the principal of each.
 */
class TlsListenerTest {
    @TempDir
    static Path dir;
    private static TestCertificates certs;
    private static Path server;
    private static Path alice;
    private static Path stranger;
    private static Path brokerTrust;
    private static Path clientTrust;

    private PrincipalRecordingServer listener;
    private ConcurrentLinkedQueue<Principal> seen = new ConcurrentLinkedQueue<>();

    @BeforeAll
    static void makeCertificates() throws Exception {
        certs = new TestCertificates(dir);
        server = certs.identity("server", "CN=localhost,O=Aloft");
        alice = certs.identity("alice", "CN=Alice,OU=Clients,O=Aloft");
        stranger = certs.identity("stranger", "CN=stranger,OU=Clients,O=Aloft");
        brokerTrust = certs.trustStore("broker-trust.jks", "JKS", alice);
        clientTrust = certs.trustStore("client-trust.p12", "PKCS12", server);
    }

    @AfterEach
    void stop() {
        if (listener != null) {
            listener.close();
        }
    }

    private Map<String, String> serverSsl() {
        Map<String, String> p = new HashMap<>();
        p.put("ssl.keystore.type", "PKCS12");
        p.put("ssl.keystore.location", server.toString());
        p.put("ssl.keystore.password", TestCertificates.PASSWORD);
        p.put("ssl.truststore.location", brokerTrust.toString());
        p.put("ssl.truststore.password", TestCertificates.PASSWORD);
        return p;
    }

    /** Starts an SSL listener with {@code props}; Metadata answers name this server as broker 1. */
    private int start(Map<String, String> props) throws Exception {
        listener = PrincipalRecordingServer.start(new KafkaServer.Listener("SSL", "127.0.0.1", 0,
                ListenerSecurity.ssl(SslConfig.forListener("SSL", props))), List.of());
        seen = listener.seen;
        return listener.port();
    }

    private static Properties client(int port, Path keyStore) {
        return PrincipalRecordingServer.tlsClient("SSL", port, clientTrust, keyStore);
    }

    @Test
    void noClientAuth_serves_asAnonymous() throws Exception {
        int port = start(serverSsl());
        PrincipalRecordingServer.listTopics(client(port, null));
        assertTrue(!seen.isEmpty());
        seen.forEach(p -> assertEquals(Principal.ANONYMOUS, p));
        assertEquals("User:ANONYMOUS", seen.peek().toString());
    }

    @Test
    void clientAuthRequired_trustedCertificate_isItsMappedName() throws Exception {
        Map<String, String> props = serverSsl();
        props.put("ssl.client.auth", "required");
        props.put("ssl.principal.mapping.rules", "RULE:^CN=([^,]*),OU=Clients,.*$/$1/L,DEFAULT");
        int port = start(props);
        PrincipalRecordingServer.listTopics(client(port, alice));
        assertTrue(!seen.isEmpty());
        seen.forEach(p -> assertEquals(Principal.user("alice"), p));
    }

    @Test
    void clientAuthRequired_defaultRule_isTheWholeDn() throws Exception {
        Map<String, String> props = serverSsl();
        props.put("ssl.client.auth", "required");
        int port = start(props);
        PrincipalRecordingServer.listTopics(client(port, alice));
        assertEquals(Principal.user("CN=Alice,OU=Clients,O=Aloft"), seen.peek());
    }

    @Test
    void clientAuthRequired_refusesClientsWithoutOrWithAnUntrustedCertificate() throws Exception {
        Map<String, String> props = serverSsl();
        props.put("ssl.client.auth", "required");
        int port = start(props);
        assertInstanceOf(SslAuthenticationException.class, PrincipalRecordingServer.refused(client(port, null)));
        assertInstanceOf(SslAuthenticationException.class, PrincipalRecordingServer.refused(client(port, stranger)));
        assertTrue(seen.isEmpty(), "no request served before authentication: " + seen);
    }

    @Test
    void clientAuthRequested_withoutCertificate_isAnonymous_withOne_isMapped() throws Exception {
        Map<String, String> props = serverSsl();
        props.put("ssl.client.auth", "requested");
        props.put("ssl.principal.mapping.rules", "RULE:^CN=([^,]*),.*$/$1/");
        int port = start(props);
        PrincipalRecordingServer.listTopics(client(port, null));
        assertEquals(Principal.ANONYMOUS, seen.poll());
        seen.clear();
        PrincipalRecordingServer.listTopics(client(port, alice));
        assertEquals(Principal.user("Alice"), seen.poll());
    }

    @Test
    void aDnNoRuleAppliesTo_failsAuthentication() throws Exception {
        Map<String, String> props = serverSsl();
        props.put("ssl.client.auth", "required");
        props.put("ssl.principal.mapping.rules", "RULE:^CN=([^,]*),OU=Admins,.*$/$1/");
        int port = start(props);
        // Checked during the handshake: the client learns at once, as from an untrusted certificate.
        assertInstanceOf(SslAuthenticationException.class, PrincipalRecordingServer.refused(client(port, alice)));
        assertTrue(seen.isEmpty(), "no request served: " + seen);
    }

    @Test
    void tlsVersions_onlyThoseEnabledAreAccepted() throws Exception {
        Map<String, String> props = serverSsl();
        props.put("ssl.enabled.protocols", "TLSv1.3");
        int port = start(props);
        Properties tls12 = client(port, null);
        tls12.put(SslConfigs.SSL_ENABLED_PROTOCOLS_CONFIG, "TLSv1.2");
        tls12.put(SslConfigs.SSL_PROTOCOL_CONFIG, "TLSv1.2");
        assertInstanceOf(SslAuthenticationException.class, PrincipalRecordingServer.refused(tls12));
        Properties tls13 = client(port, null);
        tls13.put(SslConfigs.SSL_ENABLED_PROTOCOLS_CONFIG, "TLSv1.3");
        PrincipalRecordingServer.listTopics(tls13);
    }

    @Test
    void pemKeyMaterial_inlineForOneListener() throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("ssl.keystore.location", "/nonexistent/ignored-for-pem-inline");
        props.put("listener.name.ssl.ssl.keystore.type", "PEM");
        props.put("listener.name.ssl.ssl.keystore.certificate.chain", TestCertificates.certificatePem(server));
        props.put("listener.name.ssl.ssl.keystore.key", TestCertificates.privateKeyPem(server));
        props.put("listener.name.ssl.ssl.truststore.type", "PEM");
        props.put("listener.name.ssl.ssl.truststore.certificates", TestCertificates.certificatePem(alice));
        props.put("listener.name.ssl.ssl.client.auth", "required");
        props.put("ssl.principal.mapping.rules", "RULE:^CN=([^,]*),.*$/$1/L");
        int port = start(props);
        PrincipalRecordingServer.listTopics(client(port, alice));
        assertEquals(Principal.user("alice"), seen.peek());
        assertInstanceOf(SslAuthenticationException.class, PrincipalRecordingServer.refused(client(port, stranger)));
    }

    @Test
    void pemKeyMaterial_inOneFile() throws Exception {
        Path pem = dir.resolve("server.pem");
        java.nio.file.Files.writeString(pem, TestCertificates.privateKeyPem(server)
                + TestCertificates.certificatePem(server));
        Map<String, String> props = new HashMap<>();
        props.put("ssl.keystore.type", "PEM");
        props.put("ssl.keystore.location", pem.toString());
        int port = start(props);
        PrincipalRecordingServer.listTopics(client(port, null));
        assertEquals(Principal.ANONYMOUS, seen.peek());
    }
}
