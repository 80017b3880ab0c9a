package io.aloft.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.handler.ApiVersionsHandler;
import io.aloft.broker.handler.SaslAuthenticateHandler;
import io.aloft.broker.handler.SaslHandshakeHandler;
import io.aloft.broker.security.ListenerSecurity;
import io.aloft.broker.security.Principal;
import io.aloft.broker.security.SslConfig;
import io.aloft.broker.security.TestCertificates;
import io.aloft.broker.security.sasl.SaslConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
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

    private final ConcurrentLinkedQueue<Principal> seen = new ConcurrentLinkedQueue<>();
    private KafkaServer kafka;

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
        if (kafka != null) {
            kafka.close();
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
        AtomicReference<RequestDispatcher> dispatcher = new AtomicReference<>();
        AtomicReference<Integer> port = new AtomicReference<>();
        List<ApiHandler<?>> handlers = new ArrayList<>();
        handlers.add(new ApiVersionsHandler(() -> dispatcher.get().apiVersions()));
        handlers.add(new SaslHandshakeHandler());
        handlers.add(new SaslAuthenticateHandler(scheduler));
        handlers.add(new ApiHandler<MetadataRequest>() {
            @Override
            public ApiKeys apiKey() {
                return ApiKeys.METADATA;
            }

            @Override
            public CompletableFuture<AbstractResponse> handle(RequestContext context, MetadataRequest request) {
                seen.add(context.principal());
                MetadataResponseData data = new MetadataResponseData().setClusterId("sasl-ssl").setControllerId(1);
                data.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(1)
                        .setHost("127.0.0.1").setPort(port.get()));
                return CompletableFuture.completedFuture(new MetadataResponse(data, request.version()));
            }
        });
        dispatcher.set(new RequestDispatcher(handlers));
        SslConfig tls = SslConfig.forListener("SASL_SSL", props, true);
        kafka = KafkaServer.start(List.of(new KafkaServer.Listener("SASL_SSL", "127.0.0.1", 0,
                ListenerSecurity.of(SecurityProtocol.SASL_SSL, tls), SaslConfig.forListener(props, "SASL_SSL"))),
                1 << 20, 1, dispatcher.get());
        port.set(kafka.port("SASL_SSL"));
        return port.get();
    }

    private static Properties client(int port, String password, Path keyStore) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_SSL");
        p.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, clientTrust.toString());
        p.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
        p.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12");
        if (keyStore != null) {
            p.put(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, keyStore.toString());
            p.put(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
            p.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PKCS12");
        }
        p.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"alice\" password=\"" + password + "\";");
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
    void saslOverTls_principalIsTheSaslUser() throws Exception {
        int port = start(serverProps());
        listTopics(client(port, "alice-secret", null));
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
        assertInstanceOf(SslAuthenticationException.class, refused(client(port, "alice-secret", null)));
        assertTrue(seen.isEmpty(), "no request served: " + seen);
        listTopics(client(port, "alice-secret", clientCert));
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
        listTopics(client(port, "alice-secret", null));
        assertEquals(Principal.user("alice"), seen.peek());
    }

    @Test
    void wrongPassword_refusedBeforeAnyRequest() throws Exception {
        int port = start(serverProps());
        assertInstanceOf(SaslAuthenticationException.class, refused(client(port, "wrong", null)));
        assertTrue(seen.isEmpty(), "no request served: " + seen);
    }
}
