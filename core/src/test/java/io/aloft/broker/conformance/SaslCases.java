package io.aloft.broker.conformance;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * SaslHandshake and SaslAuthenticate on a PLAINTEXT listener (the targets' only one), where both
 * brokers answer outside any SASL exchange: a supported and an unsupported mechanism, a token. The
 * exchange on a SASL_PLAINTEXT listener is tested in {@code security.sasl.SaslPlainTest}.
 *
 * <p>Stateless.
 */
final class SaslCases {
    private SaslCases() {
    }

    static List<Shape> shapes() {
        return List.of(handshake("PLAIN"), handshake("NOT-A-MECHANISM"),
                Shape.script(ApiKeys.SASL_AUTHENTICATE, "PLAIN token on a PLAINTEXT listener", 0, Short.MAX_VALUE,
                        (s, v) -> {
                            SaslAuthenticateResponseData r = (SaslAuthenticateResponseData) s.ask("token",
                                    ApiKeys.SASL_AUTHENTICATE, v, new SaslAuthenticateRequestData().setAuthBytes(
                                            "\u0000alice\u0000alice-secret".getBytes(StandardCharsets.UTF_8)));
                            if (r != null) {
                                s.note("token", "message", r.errorMessage());
                                s.note("token", "auth bytes", r.authBytes().length);
                                s.note("token", "session lifetime", r.sessionLifetimeMs());
                            }
                        }));
    }

    /** A handshake, then whether the connection still serves a request (Metadata). */
    private static Shape handshake(String mechanism) {
        return Shape.script(ApiKeys.SASL_HANDSHAKE, mechanism + " on a PLAINTEXT listener", 0, Short.MAX_VALUE,
                (s, v) -> {
                    SaslHandshakeResponseData r = (SaslHandshakeResponseData) s.ask("handshake",
                            ApiKeys.SASL_HANDSHAKE, v, new SaslHandshakeRequestData().setMechanism(mechanism));
                    if (r != null) {
                        s.note("handshake", "mechanisms", r.mechanisms());
                    }
                    s.ask("then metadata", ApiKeys.METADATA, (short) 12,
                            new MetadataRequestData().setTopics(List.of()));
                });
    }
}
