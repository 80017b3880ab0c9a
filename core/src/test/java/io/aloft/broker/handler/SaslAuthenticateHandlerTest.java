package io.aloft.broker.handler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.aloft.broker.api.RequestContext;
import io.aloft.broker.security.ConnectionSecurity;
import io.aloft.broker.security.Principal;
import io.aloft.broker.security.sasl.FailedAuthentications;
import io.aloft.broker.security.sasl.SaslConfig;
import io.aloft.broker.security.sasl.SaslSession;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.Test;

class SaslAuthenticateHandlerTest {
    @Test
    void success_setsTheConnectionsPrincipal_failureLeavesItAnonymous() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try {
            SaslAuthenticateHandler handler = new SaslAuthenticateHandler(scheduler);
            assertEquals(Principal.user("alice"), authenticate(handler, "alice-secret").principal());
            assertEquals(Principal.ANONYMOUS, authenticate(handler, "wrong").principal());
        } finally {
            scheduler.shutdownNow();
        }
    }

    private static RequestContext authenticate(SaslAuthenticateHandler handler, String password) throws Exception {
        SaslSession session = new SaslSession(SaslConfig.forListener(Map.of(
                "connection.failed.authentication.delay.ms", "0",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"alice-secret\";"),
                "SASL_PLAINTEXT"), System::nanoTime, new FailedAuthentications(System::nanoTime));
        assertEquals(Errors.NONE, session.handshake("PLAIN", (short) 1));
        RequestContext context = new RequestContext(new RequestHeader(ApiKeys.SASL_AUTHENTICATE, (short) 2, "t", 1),
                "SASL_PLAINTEXT", new InetSocketAddress("127.0.0.1", 1),
                "c1", new ConnectionSecurity("SASL_PLAINTEXT", SecurityProtocol.SASL_PLAINTEXT), session);
        SaslAuthenticateResponse r = (SaslAuthenticateResponse) handler.handle(context,
                new SaslAuthenticateRequest.Builder(new SaslAuthenticateRequestData().setAuthBytes(
                        ("\u0000alice\u0000" + password).getBytes(StandardCharsets.UTF_8))).build((short) 2))
                .get(10, TimeUnit.SECONDS);
        assertEquals(password.equals("alice-secret") ? Errors.NONE : Errors.SASL_AUTHENTICATION_FAILED, r.error());
        return context;
    }
}
