package io.aloft.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.handler.ApiVersionsHandler;
import io.aloft.broker.security.ListenerSecurity;
import io.aloft.broker.security.Principal;
import io.aloft.broker.security.SslConfig;
import io.aloft.broker.security.TestCertificates;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
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

    private final ConcurrentLinkedQueue<Principal> seen = new ConcurrentLinkedQueue<>();
    private KafkaServer kafka;

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
        if (kafka != null) {
            kafka.close();
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
        AtomicReference<RequestDispatcher> dispatcher = new AtomicReference<>();
        AtomicReference<Integer> port = new AtomicReference<>();
        List<ApiHandler<?>> handlers = new ArrayList<>();
        handlers.add(new ApiVersionsHandler(() -> dispatcher.get().apiVersions()));
        handlers.add(new ApiHandler<MetadataRequest>() {
            @Override
            public ApiKeys apiKey() {
                return ApiKeys.METADATA;
            }

            @Override
            public CompletableFuture<AbstractResponse> handle(RequestContext context, MetadataRequest request) {
                seen.add(context.principal());
                MetadataResponseData data = new MetadataResponseData().setClusterId("tls-test").setControllerId(1);
                data.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(1)
                        .setHost("127.0.0.1").setPort(port.get()));
                return CompletableFuture.completedFuture(new MetadataResponse(data, request.version()));
            }
        });
        dispatcher.set(new RequestDispatcher(handlers));
        SslConfig config = SslConfig.forListener("SSL", props);
        kafka = KafkaServer.start(List.of(new KafkaServer.Listener("SSL", "127.0.0.1", 0,
                ListenerSecurity.ssl(config))), 1 << 20, 1, dispatcher.get());
        port.set(kafka.port("SSL"));
        return port.get();
    }

    private static Properties client(int port, Path keyStore) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
        p.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, clientTrust.toString());
        p.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
        p.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12");
        if (keyStore != null) {
            p.put(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, keyStore.toString());
            p.put(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
            p.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PKCS12");
        }
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        return p;
    }

    private static void listTopics(Properties client) throws Exception {
        try (Admin admin = Admin.create(client)) {
            admin.listTopics().names().get(30, TimeUnit.SECONDS);
        }
    }

    private static Throwable refused(Properties client) {
        try (Admin admin = Admin.create(client)) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> admin.listTopics().names().get(30, TimeUnit.SECONDS));
            return e.getCause();
        }
    }

    @Test
    void noClientAuth_serves_asAnonymous() throws Exception {
        int port = start(serverSsl());
        listTopics(client(port, null));
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
        listTopics(client(port, alice));
        assertTrue(!seen.isEmpty());
        seen.forEach(p -> assertEquals(Principal.user("alice"), p));
    }

    @Test
    void clientAuthRequired_defaultRule_isTheWholeDn() throws Exception {
        Map<String, String> props = serverSsl();
        props.put("ssl.client.auth", "required");
        int port = start(props);
        listTopics(client(port, alice));
        assertEquals(Principal.user("CN=Alice,OU=Clients,O=Aloft"), seen.peek());
    }

    @Test
    void clientAuthRequired_refusesClientsWithoutOrWithAnUntrustedCertificate() throws Exception {
        Map<String, String> props = serverSsl();
        props.put("ssl.client.auth", "required");
        int port = start(props);
        assertInstanceOf(SslAuthenticationException.class, refused(client(port, null)));
        assertInstanceOf(SslAuthenticationException.class, refused(client(port, stranger)));
        assertTrue(seen.isEmpty(), "no request served before authentication: " + seen);
    }

    @Test
    void clientAuthRequested_withoutCertificate_isAnonymous_withOne_isMapped() throws Exception {
        Map<String, String> props = serverSsl();
        props.put("ssl.client.auth", "requested");
        props.put("ssl.principal.mapping.rules", "RULE:^CN=([^,]*),.*$/$1/");
        int port = start(props);
        listTopics(client(port, null));
        assertEquals(Principal.ANONYMOUS, seen.poll());
        seen.clear();
        listTopics(client(port, alice));
        assertEquals(Principal.user("Alice"), seen.poll());
    }

    @Test
    void aDnNoRuleAppliesTo_failsAuthentication() throws Exception {
        Map<String, String> props = serverSsl();
        props.put("ssl.client.auth", "required");
        props.put("ssl.principal.mapping.rules", "RULE:^CN=([^,]*),OU=Admins,.*$/$1/");
        int port = start(props);
        // Checked during the handshake: the client learns at once, as from an untrusted certificate.
        assertInstanceOf(SslAuthenticationException.class, refused(client(port, alice)));
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
        assertInstanceOf(SslAuthenticationException.class, refused(tls12));
        Properties tls13 = client(port, null);
        tls13.put(SslConfigs.SSL_ENABLED_PROTOCOLS_CONFIG, "TLSv1.3");
        listTopics(tls13);
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
        listTopics(client(port, alice));
        assertEquals(Principal.user("alice"), seen.peek());
        assertInstanceOf(SslAuthenticationException.class, refused(client(port, stranger)));
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
        listTopics(client(port, null));
        assertEquals(Principal.ANONYMOUS, seen.peek());
    }
}
