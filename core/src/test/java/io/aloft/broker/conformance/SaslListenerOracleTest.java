package io.aloft.broker.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.broker.TestBroker;
import io.aloft.servers.ApacheKafkaServer;
import io.aloft.servers.ClientSecurity;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SASL exchange on a SASL_PLAINTEXT listener, byte for byte against Apache Kafka 4.3.1 with the
 * same listener settings (PLAIN, one user): each script sends the same frames on a new connection
 * to both and records what came back (error codes, messages, mechanisms, whether the broker closed
 * the connection); the records must be equal. Covers what a client can get wrong: requests before
 * authenticating, an unknown mechanism, a wrong password, an unknown user, a malformed token,
 * frames out of order, and the success path.
 *
 * <p>Not thread-safe: one test thread.
 */
class SaslListenerOracleTest {
    @TempDir
    static Path dir;
    private static ClientSecurity security;
    private static ApacheKafkaServer kafka;
    private static TestBroker aloft;
    private static String user;
    private static String password;

    /** What one script sends on one connection; it records what it sees. */
    private interface Script {
        void run(RawConnection c, List<String> seen) throws Exception;
    }

    @BeforeAll
    static void start() throws Exception {
        security = ClientSecurity.create(SecurityProtocol.SASL_PLAINTEXT, dir);
        Matcher m = Pattern.compile("username=\"([^\"]+)\" password=\"([^\"]+)\"")
                .matcher(security.clientProperties().get("sasl.jaas.config"));
        assertTrue(m.find());
        user = m.group(1);
        password = m.group(2);
        kafka = new ApacheKafkaServer(ApacheKafkaServer.findLibsDir(), "512m", false, dir, Map.of(), security,
                Duration.ofSeconds(120));
        kafka.start();
        Map<String, String> props = new HashMap<>(security.brokerProperties());
        props.put("listeners", "PLAINTEXT://127.0.0.1:0," + ClientSecurity.LISTENER + "://127.0.0.1:0");
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + ClientSecurity.LISTENER
                + ":SASL_PLAINTEXT");
        aloft = new TestBroker(dir.resolve("aloft"), props);
    }

    @AfterAll
    static void stop() {
        if (aloft != null) {
            aloft.close();
        }
        if (kafka != null) {
            kafka.stop();
        }
        if (security != null) {
            security.close();
        }
    }

    @TestFactory
    Stream<DynamicTest> eachScriptAnswersAsKafkaDoes() {
        Map<String, Script> scripts = new java.util.LinkedHashMap<>();
        scripts.put("ApiVersions, then Metadata before authenticating", (c, seen) -> {
            record(seen, "api versions", c.send(ApiKeys.API_VERSIONS, (short) 3, apiVersions()));
            record(seen, "metadata", c.send(ApiKeys.METADATA, (short) 12, metadata()));
        });
        scripts.put("Metadata first", (c, seen) ->
                record(seen, "metadata", c.send(ApiKeys.METADATA, (short) 12, metadata())));
        scripts.put("SaslAuthenticate before any handshake", (c, seen) -> {
            record(seen, "authenticate", c.send(ApiKeys.SASL_AUTHENTICATE, (short) 2, token(user, password)));
            record(seen, "then api versions", c.send(ApiKeys.API_VERSIONS, (short) 3, apiVersions()));
        });
        for (short v = 0; v <= 1; v++) {
            short version = v;
            scripts.put("SaslHandshake v" + v + " with an unknown mechanism", (c, seen) -> {
                record(seen, "handshake", c.send(ApiKeys.SASL_HANDSHAKE, version,
                        new SaslHandshakeRequestData().setMechanism("SCRAM-SHA-999")));
                record(seen, "then api versions", c.send(ApiKeys.API_VERSIONS, (short) 3, apiVersions()));
            });
        }
        for (short v = 0; v <= 2; v++) {
            short version = v;
            scripts.put("SaslAuthenticate v" + v + ": a wrong password", (c, seen) -> {
                handshake(c, seen);
                record(seen, "authenticate", c.send(ApiKeys.SASL_AUTHENTICATE, version, token(user, "wrong")));
                record(seen, "then metadata", c.send(ApiKeys.METADATA, (short) 12, metadata()));
            });
            scripts.put("SaslAuthenticate v" + v + ": the right password, then Metadata", (c, seen) -> {
                handshake(c, seen);
                record(seen, "authenticate", c.send(ApiKeys.SASL_AUTHENTICATE, version, token(user, password)));
                record(seen, "then metadata", c.send(ApiKeys.METADATA, (short) 12, metadata()));
            });
        }
        scripts.put("an unknown user", (c, seen) -> {
            handshake(c, seen);
            record(seen, "authenticate", c.send(ApiKeys.SASL_AUTHENTICATE, (short) 2, token("nobody", password)));
        });
        scripts.put("a PLAIN token without separators", (c, seen) -> {
            handshake(c, seen);
            record(seen, "authenticate", c.send(ApiKeys.SASL_AUTHENTICATE, (short) 2,
                    new SaslAuthenticateRequestData().setAuthBytes("garbage".getBytes(StandardCharsets.UTF_8))));
        });
        scripts.put("an empty user name", (c, seen) -> {
            handshake(c, seen);
            record(seen, "authenticate", c.send(ApiKeys.SASL_AUTHENTICATE, (short) 2, token("", password)));
        });
        scripts.put("a second handshake before authenticating", (c, seen) -> {
            handshake(c, seen);
            record(seen, "handshake again", c.send(ApiKeys.SASL_HANDSHAKE, (short) 1,
                    new SaslHandshakeRequestData().setMechanism("PLAIN")));
            record(seen, "then api versions", c.send(ApiKeys.API_VERSIONS, (short) 3, apiVersions()));
        });
        scripts.put("a handshake after authenticating (no re-authentication configured)", (c, seen) -> {
            handshake(c, seen);
            record(seen, "authenticate", c.send(ApiKeys.SASL_AUTHENTICATE, (short) 2, token(user, password)));
            record(seen, "handshake again", c.send(ApiKeys.SASL_HANDSHAKE, (short) 1,
                    new SaslHandshakeRequestData().setMechanism("PLAIN")));
            record(seen, "then metadata", c.send(ApiKeys.METADATA, (short) 12, metadata()));
        });
        scripts.put("SaslAuthenticate twice after success", (c, seen) -> {
            handshake(c, seen);
            record(seen, "authenticate", c.send(ApiKeys.SASL_AUTHENTICATE, (short) 2, token(user, password)));
            record(seen, "authenticate again", c.send(ApiKeys.SASL_AUTHENTICATE, (short) 2, token(user, password)));
            record(seen, "then metadata", c.send(ApiKeys.METADATA, (short) 12, metadata()));
        });
        scripts.put("ApiVersions between handshake and authenticate", (c, seen) -> {
            handshake(c, seen);
            record(seen, "api versions", c.send(ApiKeys.API_VERSIONS, (short) 3, apiVersions()));
            record(seen, "then authenticate", c.send(ApiKeys.SASL_AUTHENTICATE, (short) 2, token(user, password)));
        });
        scripts.put("Metadata between handshake and authenticate", (c, seen) -> {
            handshake(c, seen);
            record(seen, "metadata", c.send(ApiKeys.METADATA, (short) 12, new MetadataRequestData()
                    .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("t")))));
            record(seen, "then authenticate", c.send(ApiKeys.SASL_AUTHENTICATE, (short) 2, token(user, password)));
        });
        scripts.put("a token of 3 parts, 4 separators", (c, seen) -> {
            handshake(c, seen);
            record(seen, "authenticate", c.send(ApiKeys.SASL_AUTHENTICATE, (short) 2,
                    new SaslAuthenticateRequestData().setAuthBytes(("\u0000" + user + "\u0000" + password + "\u0000")
                            .getBytes(StandardCharsets.UTF_8))));
        });
        scripts.put("an authorization id other than the user", (c, seen) -> {
            handshake(c, seen);
            record(seen, "authenticate", c.send(ApiKeys.SASL_AUTHENTICATE, (short) 2,
                    new SaslAuthenticateRequestData().setAuthBytes(("admin\u0000" + user + "\u0000" + password)
                            .getBytes(StandardCharsets.UTF_8))));
        });
        return scripts.entrySet().stream().map(e -> DynamicTest.dynamicTest(e.getKey(), () -> {
            List<String> expected = run(kafka.bootstrap(), e.getValue());
            List<String> got = run("127.0.0.1:" + aloft.broker().port(ClientSecurity.LISTENER), e.getValue());
            assertEquals(expected, got, "Kafka 4.3.1 (expected) and Aloft answer differently");
        }));
    }

    private static List<String> run(String bootstrap, Script script) throws Exception {
        List<String> seen = new ArrayList<>();
        try (RawConnection c = RawConnection.open(bootstrap)) {
            script.run(c, seen);
        }
        return seen;
    }

    private static void handshake(RawConnection c, List<String> seen) throws Exception {
        record(seen, "handshake", c.send(ApiKeys.SASL_HANDSHAKE, (short) 1,
                new SaslHandshakeRequestData().setMechanism("PLAIN")));
    }

    private static ApiVersionsRequestData apiVersions() {
        return new ApiVersionsRequestData().setClientSoftwareName("aloft-oracle").setClientSoftwareVersion("1");
    }

    private static MetadataRequestData metadata() {
        return new MetadataRequestData().setTopics(List.of());
    }

    private static SaslAuthenticateRequestData token(String name, String secret) {
        return new SaslAuthenticateRequestData().setAuthBytes(("\u0000" + name + "\u0000" + secret)
                .getBytes(StandardCharsets.UTF_8));
    }

    /** The parts of an answer a client acts on; broker-specific values (ids, hosts) left out. */
    private static void record(List<String> seen, String step, RawConnection.Answer answer) {
        ApiMessage body = answer.body();
        String what;
        if (answer.closed()) {
            what = "connection closed";
        } else if (body instanceof ApiVersionsResponseData r) {
            what = "error " + r.errorCode();
        } else if (body instanceof MetadataResponseData r) {
            what = "served (" + r.topics().size() + " topics" + r.topics().stream().map(t -> ", " + t.name()
                    + " error " + t.errorCode()).collect(java.util.stream.Collectors.joining()) + ")";
        } else if (body instanceof SaslHandshakeResponseData r) {
            what = "error " + r.errorCode() + ", mechanisms " + r.mechanisms();
        } else if (body instanceof SaslAuthenticateResponseData r) {
            what = "error " + r.errorCode() + " '" + r.errorMessage() + "', " + r.authBytes().length
                    + " auth bytes, session lifetime " + r.sessionLifetimeMs();
        } else {
            what = String.valueOf(body);
        }
        seen.add(step + ": " + what);
    }
}
