package io.aloft.broker.interbroker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.BrokerConfig;
import io.aloft.broker.TestBroker;
import io.aloft.config.ConfigException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The inter-broker client over a SASL_PLAINTEXT listener (issue 20): against a real broker whose
 * SASL listener accepts user {@code broker}, the client configured from that listener's JAAS key
 * (its {@code username}/{@code password}) authenticates and is answered; with a wrong password its
 * requests fail with kafka-clients' {@link SaslAuthenticationException} and the broker logs one
 * ERROR naming the key to check; without SASL the listener answers nothing. And the settings that
 * stop a broker at start.
 */
class InterBrokerSaslTest {
    private static final String JAAS_KEY = "listener.name.internal.plain.sasl.jaas.config";
    private static final String USERS = "user_broker=\"broker-secret\" user_alice=\"alice-secret\"";

    @TempDir
    static Path dir;
    private static TestBroker broker;
    private static int saslPort;

    @BeforeAll
    static void start() throws Exception {
        broker = new TestBroker(dir, Map.of(
                "listeners", "PLAINTEXT://127.0.0.1:0,INTERNAL://127.0.0.1:0",
                "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,INTERNAL:SASL_PLAINTEXT",
                JAAS_KEY, jaas("broker", "broker-secret")));
        saslPort = broker.broker().port("INTERNAL");
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static String jaas(String user, String password) {
        return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user
                + "\" password=\"" + password + "\" " + USERS + ";";
    }

    /** The client side of listener INTERNAL as a broker with these properties derives it. */
    private static InterBrokerSecurity security(Map<String, String> overrides) {
        Map<String, String> props = new HashMap<>(Map.of(
                "listeners", "INTERNAL://127.0.0.1:0",
                "listener.security.protocol.map", "INTERNAL:SASL_PLAINTEXT",
                JAAS_KEY, jaas("broker", "broker-secret")));
        props.putAll(overrides);
        return BrokerConfig.fromProperties(props).interBrokerSecurity();
    }

    private static NetworkInterBrokerClient client(InterBrokerSecurity security, int requestTimeoutMs) {
        return new NetworkInterBrokerClient(1, id -> new Node(id, "127.0.0.1", saslPort), "INTERNAL", security,
                r -> {
                    Thread t = new Thread(r, "test-inter-broker-sender");
                    t.setDaemon(true);
                    return t;
                }, requestTimeoutMs);
    }

    private static CompletableFuture<AbstractResponse> describeCluster(NetworkInterBrokerClient c) {
        return c.send(1, new DescribeClusterRequest.Builder(new DescribeClusterRequestData()));
    }

    private static Throwable failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
        return e.getCause();
    }

    @Test
    void send_overSasl_authenticatesWithTheListenersCredentials_andIsAnswered() throws Exception {
        InterBrokerSecurity security = security(Map.of());
        assertEquals(SecurityProtocol.SASL_PLAINTEXT, security.protocol());
        assertEquals("PLAIN", security.saslMechanism());
        assertTrue(!security.toString().contains("secret"), security.toString());
        try (NetworkInterBrokerClient c = client(security, 30_000)) {
            for (int i = 0; i < 3; i++) { // the first authenticates the connection, the others reuse it
                DescribeClusterResponse r = (DescribeClusterResponse) describeCluster(c).get(30, TimeUnit.SECONDS);
                assertEquals(Errors.NONE.code(), r.data().errorCode());
            }
        }
    }

    @Test
    void send_withoutSasl_toTheSaslListener_isNotAnswered() throws Exception {
        // The broker closes a connection whose first request after ApiVersions is not SASL.
        try (NetworkInterBrokerClient c = client(InterBrokerSecurity.plaintext(), 10_000)) {
            assertInstanceOf(DisconnectException.class, failure(describeCluster(c)));
        }
    }

    @Test
    void send_withAWrongPassword_failsWithSaslAuthentication_andLogsOneErrorNamingTheKey() throws Exception {
        ConcurrentLinkedQueue<String> lines = new ConcurrentLinkedQueue<>();
        AbstractAppender capture = new AbstractAppender("inter-broker-capture", null, null, true,
                Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                if (event.getLoggerName().equals(NetworkInterBrokerClient.class.getName())) {
                    lines.add(event.getLevel() + " " + event.getMessage().getFormattedMessage());
                }
            }
        };
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        capture.start();
        context.getConfiguration().getRootLogger().addAppender(capture, Level.WARN, null);
        context.updateLoggers();
        try (NetworkInterBrokerClient c = client(security(Map.of(JAAS_KEY, jaas("broker", "wrong"))), 30_000)) {
            Throwable first = failure(describeCluster(c));
            assertInstanceOf(SaslAuthenticationException.class, first);
            assertTrue(first.getMessage().contains("Invalid username or password"), first.getMessage());
            // Tried again after the reconnect backoff, refused again; logged once within the minute.
            assertInstanceOf(SaslAuthenticationException.class, failure(describeCluster(c)));
        } finally {
            context.getConfiguration().getRootLogger().removeAppender(capture.getName());
            context.updateLoggers();
            capture.stop();
        }
        List<String> errors = lines.stream().filter(l -> l.startsWith("ERROR")).toList();
        assertEquals(1, errors.size(), lines.toString());
        String line = errors.get(0);
        assertTrue(line.contains("refused this broker's SASL_PLAINTEXT authentication on inter-broker listener "
                + "INTERNAL"), line);
        assertTrue(line.contains(JAAS_KEY), line);
        assertTrue(!line.contains("wrong") && !line.contains("secret"), "no password in the log: " + line);
    }

    @Test
    void start_refusesAMechanismTheListenerDoesNotEnable_orAJaasKeyWithoutCredentials() {
        ConfigException notEnabled = assertThrows(ConfigException.class, () -> security(Map.of(
                "sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-256")));
        assertEquals("sasl.mechanism.inter.broker.protocol", notEnabled.key());
        ConfigException noCredentials = assertThrows(ConfigException.class, () -> security(Map.of(JAAS_KEY,
                "org.apache.kafka.common.security.plain.PlainLoginModule required " + USERS + ";")));
        assertEquals(JAAS_KEY, noCredentials.key());
        assertTrue(noCredentials.getMessage().contains("username"), noCredentials.getMessage());
        assertTrue(!noCredentials.getMessage().contains("secret"), noCredentials.getMessage());
        // A SASL listener that is not the inter-broker one needs no credentials of the broker's own.
        Map<String, String> external = new HashMap<>(Map.of(
                "listeners", "INTERNAL://127.0.0.1:0,EXTERNAL://127.0.0.1:0",
                "listener.security.protocol.map", "INTERNAL:PLAINTEXT,EXTERNAL:SASL_PLAINTEXT",
                "listener.name.external.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required " + USERS + ";"));
        assertEquals(SecurityProtocol.PLAINTEXT, BrokerConfig.fromProperties(external).interBrokerSecurity()
                .protocol());
    }
}
