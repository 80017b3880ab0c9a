package io.aloft.broker.security.scram;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server side of one SCRAM exchange (RFC 5802, RFC 7677), as Kafka's brokers run it: the
 * client-first message (GS2 header {@code n,,} or {@code n,a=<user>,}: no channel binding),
 * answered by the server-first (combined nonce, salt, iterations); the client-final message with
 * its proof, answered by the server-final (server signature). Extensions in the client-first
 * message are ignored, except {@code tokenauth=true} (a delegation token, which Aloft does not
 * issue), which fails like an unknown user.
 *
 * <p>Failures are {@link Failure}s whose message is what the client is told: Kafka's generic
 * message for an unknown user, a wrong password or a malformed message, and Kafka's own one for an
 * authorization id that differs from the user name. Confined to the connection's event loop.
 */
public final class ScramExchange {
    /** A failed step; {@link #getMessage()} is the message for the client (no secret in it). */
    public static final class Failure extends Exception {
        Failure(String message) {
            super(message, null, false, false);
        }
    }

    /** Where an exchange finds a user's credential ({@link ScramCredentials#credential}). */
    @FunctionalInterface
    public interface Lookup {
        /** {@code user}'s credential for {@code mechanism}, or null. */
        ScramCredential credential(String user, ScramMechanism mechanism);
    }

    private static final String PRINTABLE = "[\\x21-\\x7E&&[^,]]+";
    private static final String SASL_NAME = "(?:[\\x01-\\x7F&&[^=,]]|=2C|=3D)+";
    /** Kafka's form: gs2 header, then client-first-bare with optional extensions. */
    private static final Pattern CLIENT_FIRST = Pattern.compile("n,(a=(?<authzid>" + SASL_NAME + "))?,"
            + "(?<bare>n=(?<saslname>" + SASL_NAME + "),r=(?<nonce>" + PRINTABLE + ")(?<extensions>(,[^,]*)*))");
    private static final Pattern CLIENT_FINAL = Pattern.compile("(?<withoutProof>c=(?<channel>" + PRINTABLE
            + "),r=(?<nonce>" + PRINTABLE + ")(,[^,]*)*?),p=(?<proof>" + PRINTABLE + ")");
    private static final SecureRandom RANDOM = new SecureRandom();

    private enum Step { CLIENT_FIRST, CLIENT_FINAL, DONE }

    private final ScramMechanism mechanism;
    private final Lookup credentials;
    private final Supplier<String> serverNonces;
    private final String genericFailure;
    private Step step = Step.CLIENT_FIRST;
    private String user;
    private ScramCredential credential;
    private String gs2Header;
    private String clientFirstBare;
    private String serverFirst;
    private String nonce;

    /**
     * @param credentials the users' credentials; null: no user exists
     * @param genericFailure what the client is told for an unknown user, a wrong password or a
     *     malformed message (Kafka: "Authentication failed during authentication due to invalid
     *     credentials with SASL mechanism ...")
     */
    public ScramExchange(ScramMechanism mechanism, Lookup credentials, String genericFailure) {
        this(mechanism, credentials, genericFailure, ScramExchange::randomNonce);
    }

    ScramExchange(ScramMechanism mechanism, Lookup credentials, String genericFailure,
            Supplier<String> serverNonces) {
        this.mechanism = mechanism;
        this.credentials = credentials;
        this.genericFailure = genericFailure;
        this.serverNonces = serverNonces;
    }

    /** Whether the exchange has succeeded (the server-final message was produced). */
    public boolean complete() {
        return step == Step.DONE;
    }

    /** The authenticated user name, once {@link #complete()}. */
    public String user() {
        return step == Step.DONE ? user : null;
    }

    /**
     * Evaluates the client's next message and returns the server's answer.
     *
     * @throws Failure the exchange failed; the connection is to be closed after telling the client
     */
    public byte[] evaluate(byte[] token) throws Failure {
        String message = new String(token, StandardCharsets.UTF_8);
        return switch (step) {
            case CLIENT_FIRST -> clientFirst(message).getBytes(StandardCharsets.UTF_8);
            case CLIENT_FINAL -> clientFinal(message).getBytes(StandardCharsets.UTF_8);
            case DONE -> throw new Failure(genericFailure);
        };
    }

    private String clientFirst(String message) throws Failure {
        Matcher m = CLIENT_FIRST.matcher(message);
        if (!m.matches()) {
            throw new Failure(genericFailure);
        }
        user = unescape(m.group("saslname"));
        String authzid = m.group("authzid");
        for (String extension : m.group("extensions").split(",")) {
            if (extension.equalsIgnoreCase("tokenauth=true")) {
                throw new Failure(genericFailure); // no delegation tokens here
            }
        }
        credential = credentials == null ? null : credentials.credential(user, mechanism);
        if (credential == null || credential.iterations() < ScramMechanism.MIN_ITERATIONS) {
            throw new Failure(genericFailure);
        }
        if (authzid != null && !unescape(authzid).equals(user)) {
            throw new Failure("Authentication failed: Client requested an authorization id that is different from "
                    + "username");
        }
        gs2Header = message.substring(0, m.start("bare"));
        clientFirstBare = m.group("bare");
        nonce = m.group("nonce") + serverNonces.get();
        serverFirst = "r=" + nonce + ",s=" + Base64.getEncoder().encodeToString(credential.salt()) + ",i="
                + credential.iterations();
        step = Step.CLIENT_FINAL;
        return serverFirst;
    }

    private String clientFinal(String message) throws Failure {
        Matcher m = CLIENT_FINAL.matcher(message);
        // Kafka accepts a nonce that ends with the combined one (not only equals it): librdkafka up to
        // 2.0 sends its own nonce again in front of the combined one, and is served by Kafka.
        if (!m.matches() || !m.group("nonce").endsWith(nonce)
                || !m.group("channel").equals(base64(gs2Header.getBytes(StandardCharsets.UTF_8)))) {
            throw new Failure(genericFailure);
        }
        byte[] proof;
        try {
            proof = Base64.getDecoder().decode(m.group("proof"));
        } catch (IllegalArgumentException e) {
            throw new Failure(genericFailure);
        }
        byte[] authMessage = (clientFirstBare + "," + serverFirst + "," + m.group("withoutProof"))
                .getBytes(StandardCharsets.UTF_8);
        byte[] storedKey = credential.storedKey();
        byte[] clientSignature = mechanism.hmac(storedKey, authMessage);
        if (proof.length != clientSignature.length) {
            throw new Failure(genericFailure);
        }
        byte[] clientKey = new byte[proof.length];
        for (int i = 0; i < proof.length; i++) {
            clientKey[i] = (byte) (proof[i] ^ clientSignature[i]);
        }
        if (!MessageDigest.isEqual(mechanism.hash(clientKey), storedKey)) {
            throw new Failure(genericFailure);
        }
        step = Step.DONE;
        return "v=" + base64(mechanism.hmac(credential.serverKey(), authMessage));
    }

    /** A SASL name's user name: {@code =2C} is ',' and {@code =3D} is '=' (RFC 5802 section 5.1). */
    private static String unescape(String saslName) {
        return saslName.replace("=2C", ",").replace("=3D", "=");
    }

    private static String base64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }

    /** 130 random bits in base 36 (letters and digits), as Kafka's brokers make it. */
    private static String randomNonce() {
        return new java.math.BigInteger(130, RANDOM).toString(Character.MAX_RADIX);
    }
}
