package io.aloft.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.handler.SaslAuthenticateHandler;
import io.aloft.broker.handler.SaslHandshakeHandler;
import io.aloft.broker.security.ListenerSecurity;
import io.aloft.broker.security.Principal;
import io.aloft.broker.security.SslConfig;
import io.aloft.broker.security.TestCertificates;
import io.aloft.broker.security.sasl.SaslConfig;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A SASL_SSL listener of the network layer alone (TLS first, then the SASL gate), with kafka-clients'
 * Admin as the client: the principal is the SASL user also when the client presents a certificate
 * (Kafka ignores it for the principal on SASL_SSL), {@code ssl.client.auth} applies to SASL_SSL only
 * in its listener-prefixed form (KIP-684, as Kafka 4.3), and a wrong password or a missing required
 * certificate is refused before any request is served. A Metadata handler records each principal.
 */
class SaslSslListenerTest {
    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "user_alice=\"alice-secret\";";

    @TempDir
    static Path dir;
    private static TestCertificates certs;
    private static Path server;
    private static Path clientCert;
    private static Path brokerTrust;
    private static Path clientTrust;
    private static ScheduledExecutorService scheduler;

    private PrincipalRecordingServer listener;
    private ConcurrentLinkedQueue<Principal> seen = new ConcurrentLinkedQueue<>();

    @BeforeAll
    static void makeCertificates() throws Exception {
        certs = new TestCertificates(dir);
        server = certs.identity("server", "CN=localhost,O=Aloft");
        clientCert = certs.identity("client", "CN=Carol,OU=Clients,O=Aloft");
        brokerTrust = certs.trustStore("broker-trust.jks", "JKS", clientCert);
        clientTrust = certs.trustStore("client-trust.p12", "PKCS12", server);
        scheduler = Executors.newSingleThreadScheduledExecutor();
    }

    @AfterAll
    static void stopScheduler() {
        scheduler.shutdownNow();
    }

    @AfterEach
    void stop() {
        if (listener != null) {
            listener.close();
        }
    }

    private static Map<String, String> serverProps() {
        Map<String, String> p = new HashMap<>();
        p.put("ssl.keystore.type", "PKCS12");
        p.put("ssl.keystore.location", server.toString());
        p.put("ssl.keystore.password", TestCertificates.PASSWORD);
        p.put("ssl.truststore.location", brokerTrust.toString());
        p.put("ssl.truststore.password", TestCertificates.PASSWORD);
        p.put("listener.name.sasl_ssl.plain.sasl.jaas.config", JAAS);
        p.put("connection.failed.authentication.delay.ms", "0");
        return p;
    }

    private int start(Map<String, String> props) throws Exception {
        SslConfig tls = SslConfig.forListener("SASL_SSL", props, true);
        listener = PrincipalRecordingServer.start(new KafkaServer.Listener("SASL_SSL", "127.0.0.1", 0,
                ListenerSecurity.of(SecurityProtocol.SASL_SSL, tls), SaslConfig.forListener(props, "SASL_SSL")),
                List.of(new SaslHandshakeHandler(), new SaslAuthenticateHandler(scheduler)));
        seen = listener.seen;
        return listener.port();
    }

    private static Properties client(int port, String password, Path keyStore) {
        Properties p = PrincipalRecordingServer.tlsClient("SASL_SSL", port, clientTrust, keyStore);
        p.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"alice\" password=\"" + password + "\";");
        return p;
    }

    @Test
    void saslOverTls_principalIsTheSaslUser() throws Exception {
        int port = start(serverProps());
        PrincipalRecordingServer.listTopics(client(port, "alice-secret", null));
        assertTrue(!seen.isEmpty());
        seen.forEach(p -> assertEquals(Principal.user("alice"), p));
    }

    @Test
    void prefixedClientAuthRequired_certificateNeeded_butPrincipalStillTheSaslUser() throws Exception {
        Map<String, String> props = serverProps();
        props.put("listener.name.sasl_ssl.ssl.client.auth", "required");
        // On SSL this rule would refuse CN=Carol (no rule applies); on SASL_SSL the DN names nobody.
        props.put("ssl.principal.mapping.rules", "RULE:^CN=([^,]*),OU=Admins,.*$/$1/");
        int port = start(props);
        assertInstanceOf(SslAuthenticationException.class, PrincipalRecordingServer.refused(client(port, "alice-secret", null)));
        assertTrue(seen.isEmpty(), "no request served: " + seen);
        PrincipalRecordingServer.listTopics(client(port, "alice-secret", clientCert));
        assertTrue(!seen.isEmpty());
        seen.forEach(p -> assertEquals(Principal.user("alice"), p));
    }

    @Test
    void unprefixedClientAuthRequired_ignoredOnSaslSsl() throws Exception {
        Map<String, String> props = serverProps();
        props.put("ssl.client.auth", "required");
        assertEquals(SslConfig.ClientAuth.NONE, SslConfig.forListener("SASL_SSL", props, true).clientAuth());
        assertEquals(SslConfig.ClientAuth.REQUIRED, SslConfig.forListener("SSL", props).clientAuth());
        int port = start(props);
        PrincipalRecordingServer.listTopics(client(port, "alice-secret", null));
        assertEquals(Principal.user("alice"), seen.peek());
    }

    @Test
    void wrongPassword_refusedBeforeAnyRequest() throws Exception {
        int port = start(serverProps());
        assertInstanceOf(SaslAuthenticationException.class, PrincipalRecordingServer.refused(client(port, "wrong", null)));
        assertTrue(seen.isEmpty(), "no request served: " + seen);
    }
}
