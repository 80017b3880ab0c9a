package io.aloft.broker.interbroker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.aloft.broker.BrokerConfig;
import io.aloft.broker.TestBroker;
import io.aloft.broker.security.TestCertificates;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The inter-broker client over a SASL_SSL listener: TLS with the listener's stores (the broker's
 * certificate trusted through the listener's trust store), then SASL/PLAIN with the listener's JAAS
 * credentials; a wrong password is refused as over SASL_PLAINTEXT.
 */
class InterBrokerSaslSslTest {
    private static final String JAAS_KEY = "listener.name.internal.plain.sasl.jaas.config";

    @TempDir
    Path dir;

    private static String jaas(String password) {
        return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"broker\" password=\""
                + password + "\" user_broker=\"broker-secret\";";
    }

    @Test
    void authenticatesOverTls_andAWrongPasswordIsRefused() throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        Path server = certs.identity("server", "CN=localhost,O=Aloft");
        Path trust = certs.trustStore("trust.p12", "PKCS12", server);
        Map<String, String> props = new HashMap<>(Map.of(
                "listeners", "PLAINTEXT://127.0.0.1:0,INTERNAL://127.0.0.1:0",
                "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,INTERNAL:SASL_SSL",
                "ssl.keystore.type", "PKCS12", "ssl.keystore.location", server.toString(),
                "ssl.keystore.password", TestCertificates.PASSWORD,
                "ssl.truststore.type", "PKCS12", "ssl.truststore.location", trust.toString(),
                "ssl.truststore.password", TestCertificates.PASSWORD,
                JAAS_KEY, jaas("broker-secret")));
        try (TestBroker broker = new TestBroker(dir.resolve("b"), props)) {
            int port = broker.broker().port("INTERNAL");
            Map<String, String> clientProps = new HashMap<>(props);
            clientProps.put("inter.broker.listener.name", "INTERNAL");
            InterBrokerSecurity security = BrokerConfig.fromProperties(clientProps).interBrokerSecurity();
            assertEquals(SecurityProtocol.SASL_SSL, security.protocol());
            try (NetworkInterBrokerClient c = client(security, port)) {
                DescribeClusterResponse r = (DescribeClusterResponse) describeCluster(c).get(30, TimeUnit.SECONDS);
                assertEquals(Errors.NONE.code(), r.data().errorCode());
            }
            clientProps.put(JAAS_KEY, jaas("not-the-password"));
            InterBrokerSecurity wrong = BrokerConfig.fromProperties(clientProps).interBrokerSecurity();
            try (NetworkInterBrokerClient c = client(wrong, port)) {
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> describeCluster(c).get(30, TimeUnit.SECONDS));
                assertEquals(SaslAuthenticationException.class, e.getCause().getClass(), e.toString());
            }
        }
    }

    private static NetworkInterBrokerClient client(InterBrokerSecurity security, int port) {
        return new NetworkInterBrokerClient(1, id -> new Node(id, "127.0.0.1", port), "INTERNAL", security, r -> {
            Thread t = new Thread(r, "test-inter-broker-sender");
            t.setDaemon(true);
            return t;
        }, 30_000);
    }

    private static CompletableFuture<AbstractResponse> describeCluster(NetworkInterBrokerClient c) {
        return c.send(1, new DescribeClusterRequest.Builder(new DescribeClusterRequestData()));
    }
}
