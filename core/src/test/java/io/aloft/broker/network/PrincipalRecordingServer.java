package io.aloft.broker.network;

import static org.junit.jupiter.api.Assertions.assertThrows;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.handler.ApiVersionsHandler;
import io.aloft.broker.security.Principal;
import io.aloft.broker.security.TestCertificates;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;

/**
 * The network layer alone behind one listener, for the listener security tests: it serves
 * ApiVersions, the given extra handlers (SASL's), and a Metadata that names this server as broker 1
 * and records each request's principal, so a test sees who the connection was authenticated as, and
 * that nothing was served before. Plus the kafka-clients Admin settings and calls those tests use.
 *
 * <p>Not thread-safe to start; {@link #seen} is read by the test thread, written by the server's.
 */
final class PrincipalRecordingServer implements AutoCloseable {
    /** Principals of the Metadata requests served, in order. */
    final ConcurrentLinkedQueue<Principal> seen = new ConcurrentLinkedQueue<>();
    private final KafkaServer server;
    private final int port;

    /** Starts a server with a dispatcher. */
    private interface Starter {
        KafkaServer start(RequestDispatcher dispatcher) throws Exception;
    }

    private PrincipalRecordingServer(List<ApiHandler<?>> extra, Starter start, String listenerName) throws Exception {
        AtomicReference<RequestDispatcher> dispatcher = new AtomicReference<>();
        AtomicInteger boundPort = new AtomicInteger();
        List<ApiHandler<?>> handlers = new ArrayList<>();
        handlers.add(new ApiVersionsHandler(() -> dispatcher.get().apiVersions()));
        handlers.addAll(extra);
        handlers.add(new ApiHandler<MetadataRequest>() {
            @Override
            public ApiKeys apiKey() {
                return ApiKeys.METADATA;
            }

            @Override
            public CompletableFuture<AbstractResponse> handle(RequestContext context, MetadataRequest request) {
                seen.add(context.principal());
                MetadataResponseData data = new MetadataResponseData().setClusterId("listener-test").setControllerId(1);
                data.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(1)
                        .setHost("127.0.0.1").setPort(boundPort.get()));
                return CompletableFuture.completedFuture(new MetadataResponse(data, request.version()));
            }
        });
        dispatcher.set(new RequestDispatcher(handlers));
        server = start.start(dispatcher.get());
        port = server.port(listenerName);
        boundPort.set(port);
    }

    /** Serves {@code listener} (bound to port 0), with {@code extra} handlers beside ApiVersions and Metadata. */
    static PrincipalRecordingServer start(KafkaServer.Listener listener, List<ApiHandler<?>> extra) throws Exception {
        return new PrincipalRecordingServer(extra, d -> KafkaServer.start(List.of(listener), 1 << 20, 1, d),
                listener.name());
    }

    int port() {
        return port;
    }

    /**
     * Admin settings for {@code protocol} (SSL or SASL_SSL) trusting {@code trustStore} (PKCS12),
     * presenting {@code keyStore} (PKCS12) when not null; short timeouts so a refusal shows quickly.
     */
    static Properties tlsClient(String protocol, int port, Path trustStore, Path keyStore) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, protocol);
        p.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, trustStore.toString());
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

    /** Lists topics (a Metadata request) as {@code client}; throws if refused. */
    static void listTopics(Properties client) throws Exception {
        try (Admin admin = Admin.create(client)) {
            admin.listTopics().names().get(30, TimeUnit.SECONDS);
        }
    }

    /** Why listing topics as {@code client} fails (the test fails if it succeeds). */
    static Throwable refused(Properties client) {
        try (Admin admin = Admin.create(client)) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> admin.listTopics().names().get(30, TimeUnit.SECONDS));
            return e.getCause();
        }
    }

    @Override
    public void close() {
        server.close();
    }
}
