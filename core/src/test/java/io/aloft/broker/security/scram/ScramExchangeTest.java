package io.aloft.broker.security.scram;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The server side of SCRAM against RFC 7677's SCRAM-SHA-256 example (user "user", password
 * "pencil"), byte for byte, and its failures: wrong proof, unknown user, tampered nonce or channel
 * binding, an authorization id that is not the user, a delegation-token request, garbage.
 */
class ScramExchangeTest {
    private static final String GENERIC = "generic failure";
    private static final byte[] SALT = Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ==");
    private static final String CLIENT_FIRST = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
    private static final String SERVER_NONCE = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
    private static final String SERVER_FIRST = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
            + "s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
    private static final String CLIENT_FINAL = "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
            + "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
    private static final String SERVER_FINAL = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

    private static final ScramCredential PENCIL = ScramCredential.fromSaltedPassword(ScramMechanism.SCRAM_SHA_256,
            SALT, ScramCredential.saltedPassword(ScramMechanism.SCRAM_SHA_256, "pencil", SALT, 4096), 4096);

    private static ScramExchange exchange(Map<String, ScramCredential> users) {
        return new ScramExchange(ScramMechanism.SCRAM_SHA_256, (user, m) -> users.get(user), GENERIC,
                () -> SERVER_NONCE);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void rfc7677Example_serverMessagesMatch() throws Exception {
        ScramExchange e = exchange(Map.of("user", PENCIL));
        assertEquals(SERVER_FIRST, new String(e.evaluate(bytes(CLIENT_FIRST)), StandardCharsets.UTF_8));
        assertTrue(!e.complete());
        assertEquals(SERVER_FINAL, new String(e.evaluate(bytes(CLIENT_FINAL)), StandardCharsets.UTF_8));
        assertTrue(e.complete());
        assertEquals("user", e.user());
    }

    @Test
    void credential_encodesAndDecodes_withoutThePassword() {
        byte[] stored = PENCIL.encode();
        ScramCredential back = ScramCredential.decode(stored);
        assertEquals(4096, back.iterations());
        assertArrayEquals(PENCIL.salt(), back.salt());
        assertArrayEquals(PENCIL.storedKey(), back.storedKey());
        assertArrayEquals(PENCIL.serverKey(), back.serverKey());
        assertTrue(!new String(stored, StandardCharsets.ISO_8859_1).contains("pencil"));
        assertThrows(IllegalArgumentException.class, () -> ScramCredential.decode(new byte[] {2, 0, 0}));
        assertThrows(IllegalArgumentException.class, () -> ScramCredential.decode(java.util.Arrays.copyOf(stored,
                stored.length - 1)));
    }

    /** librdkafka 2.0 repeats its nonce before the combined one; Kafka accepts that (the proof covers it). */
    @Test
    void clientNonceRepeatedBeforeTheCombinedOne_accepted_asKafkaDoes() throws Exception {
        ScramExchange e = exchange(Map.of("user", PENCIL));
        e.evaluate(bytes(CLIENT_FIRST));
        String withoutProof = "c=biws,r=rOprNGfwEbeRWgbNEkqO" + SERVER_FIRST.substring(2, SERVER_FIRST.indexOf(','));
        byte[] salted = ScramCredential.saltedPassword(ScramMechanism.SCRAM_SHA_256, "pencil", SALT, 4096);
        byte[] clientKey = ScramMechanism.SCRAM_SHA_256.hmac(salted, bytes("Client Key"));
        byte[] signature = ScramMechanism.SCRAM_SHA_256.hmac(ScramMechanism.SCRAM_SHA_256.hash(clientKey),
                bytes(CLIENT_FIRST.substring(3) + "," + SERVER_FIRST + "," + withoutProof));
        for (int i = 0; i < clientKey.length; i++) {
            clientKey[i] ^= signature[i];
        }
        e.evaluate(bytes(withoutProof + ",p=" + Base64.getEncoder().encodeToString(clientKey)));
        assertTrue(e.complete());
    }

    @Test
    void wrongProof_fails() throws Exception {
        ScramExchange e = exchange(Map.of("user", PENCIL));
        e.evaluate(bytes(CLIENT_FIRST));
        String wrong = CLIENT_FINAL.replace("p=dHzb", "p=dHzc");
        ScramExchange.Failure f = assertThrows(ScramExchange.Failure.class, () -> e.evaluate(bytes(wrong)));
        assertEquals(GENERIC, f.getMessage());
        assertTrue(!e.complete());
    }

    @Test
    void unknownUser_failsAtTheFirstMessage() {
        ScramExchange e = exchange(Map.of());
        assertEquals(GENERIC, assertThrows(ScramExchange.Failure.class, () -> e.evaluate(bytes(CLIENT_FIRST)))
                .getMessage());
    }

    @Test
    void tamperedNonceOrChannelBinding_fails() throws Exception {
        for (String tampered : new String[] {CLIENT_FINAL.replace("r=rOpr", "r=xOpr"),
                CLIENT_FINAL.replace("c=biws", "c=eSws"), "c=biws,p=abc", "garbage"}) {
            ScramExchange e = exchange(Map.of("user", PENCIL));
            e.evaluate(bytes(CLIENT_FIRST));
            assertThrows(ScramExchange.Failure.class, () -> e.evaluate(bytes(tampered)), tampered);
        }
    }

    @Test
    void authorizationIdOfAnotherUser_failsWithKafkasMessage() {
        ScramExchange e = exchange(Map.of("user", PENCIL));
        ScramExchange.Failure f = assertThrows(ScramExchange.Failure.class,
                () -> e.evaluate(bytes("n,a=admin,n=user,r=abc")));
        assertEquals("Authentication failed: Client requested an authorization id that is different from username",
                f.getMessage());
    }

    @Test
    void authorizationIdOfTheUser_andEscapedNames_accepted() throws Exception {
        ScramExchange e = exchange(Map.of("user", PENCIL, "a,b=c", PENCIL));
        assertTrue(new String(e.evaluate(bytes("n,a=user,n=user,r=abc")), StandardCharsets.UTF_8).startsWith("r=abc"));
        ScramExchange escaped = exchange(Map.of("a,b=c", PENCIL));
        escaped.evaluate(bytes("n,,n=a=2Cb=3Dc,r=abc"));
    }

    @Test
    void delegationTokenOrGarbage_fails() {
        for (String first : new String[] {"n,,n=user,r=abc,tokenauth=true", "y,,n=user,r=abc", "p=tls-unique,,n=user,r=a",
                "", "n,,n=,r=abc", "\u0000\u00ff"}) {
            ScramExchange e = exchange(Map.of("user", PENCIL));
            assertThrows(ScramExchange.Failure.class, () -> e.evaluate(bytes(first)), first);
        }
    }
}
