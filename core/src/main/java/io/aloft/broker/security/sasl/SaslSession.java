package io.aloft.broker.security.sasl;

import io.aloft.broker.security.Principal;
import io.aloft.broker.security.scram.ScramExchange;
import io.aloft.broker.security.scram.ScramMechanism;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The SASL state of one connection on a SASL listener, Kafka's state machine (KIP-152):
 * <ol>
 *   <li>{@code HANDSHAKE}: only ApiVersions and SaslHandshake are served; anything else closes the
 *       connection, as Kafka does.</li>
 *   <li>{@code AUTHENTICATE} (after SaslHandshake v1): only SaslAuthenticate is served.
 *       {@code RAW_TOKEN} (after SaslHandshake v0): the next frame is a bare SASL token, not a Kafka
 *       request (the pre-KIP-152 framing), answered by a bare token.</li>
 *   <li>{@code AUTHENTICATED}: every request is served; the principal is {@code User:<name>}.
 *       {@code FAILED}: the failure's answer is pending, then the connection closes; nothing else
 *       is read.</li>
 * </ol>
 * An unsupported mechanism and a failed authentication close the connection once their answer is
 * sent ({@link #closeAfterResponse()}).
 *
 * <p>PLAIN takes one token; SCRAM two (client-first, client-final), each answered with the
 * server's message ({@link ScramExchange}), the connection authenticated after the second.
 *
 * <p><b>Re-authentication (KIP-368).</b> With {@code connections.max.reauth.ms} positive, an
 * authenticated session expires that long after it was authenticated: a SaslHandshake (same
 * mechanism) then a SaslAuthenticate renew it ({@code REAUTHENTICATE} in between, where only
 * SaslAuthenticate is served), which must name the same user (else the connection fails as on a
 * wrong password); any other request after expiry closes the connection, as Kafka does. With 0, a
 * SaslHandshake after success gets ILLEGAL_SASL_STATE and sessions never expire.
 *
 * <p>Confined to the connection's event loop (handlers run there when dispatched); the clock is
 * injected.
 */
public final class SaslSession {
    /** Kafka's answer to a wrong password or an unknown user. */
    public static final String INVALID_CREDENTIALS = "Authentication failed: Invalid username or password";

    enum State { HANDSHAKE, AUTHENTICATE, RAW_TOKEN, AUTHENTICATED, REAUTHENTICATE, FAILED }

    /**
     * The result of one authentication step: {@code error} null on success; {@code response} the
     * server's token for the client (empty for PLAIN; SCRAM's server-first, then server-final);
     * {@code complete} once the exchange has authenticated the connection (SCRAM takes two steps).
     */
    public record Result(String error, byte[] response, boolean complete) {
        static Result failed(String error) {
            return new Result(error, new byte[0], false);
        }

        public boolean succeeded() {
            return error == null;
        }
    }

    private final SaslListenerSettings settings;
    private final LongSupplier nanoTime;
    private final FailedAuthentications failures;
    private State state = State.HANDSHAKE;
    /** When the authenticated session expires (nanoTime), if re-authentication is on. */
    private long expiresAt;
    private String mechanism;
    private Principal principal;
    /** The principal the last good token named (set by checkPlain, or by a completed SCRAM exchange). */
    private Principal checked;
    /** The SCRAM exchange under way (a new one per handshake), or null. */
    private ScramExchange scram;
    private boolean closeAfterResponse;

    /**
     * @param nanoTime the clock sessions expire by ({@link System#nanoTime})
     * @param failures the broker's recent failures per address, shared by all connections
     */
    public SaslSession(SaslListenerSettings settings, LongSupplier nanoTime, FailedAuthentications failures) {
        this.settings = settings;
        this.nanoTime = nanoTime;
        this.failures = failures;
    }

    /**
     * Records this connection's failed authentication against {@code address} and returns how long
     * to hold back its answer: {@code connection.failed.authentication.delay.ms}, doubled for each
     * earlier recent failure from the address, at most the configured maximum (never below the base).
     */
    public long failureDelayMs(InetAddress address) {
        int recent = failures.record(address);
        long base = settings.failedAuthenticationDelayMs();
        long delay = base << Math.min(recent - 1, 20);
        return Math.max(base, Math.min(delay, settings.failedAuthenticationMaxDelayMs()));
    }

    /** Whether sessions expire ({@code connections.max.reauth.ms} positive). */
    public boolean reauthenticates() {
        return settings.maxReauthMs() > 0;
    }

    public SaslListenerSettings settings() {
        return settings;
    }

    /** Whether a request of {@code key} may be served now; if not, the connection is to be closed. */
    public boolean admits(ApiKeys key) {
        return switch (state) {
            case HANDSHAKE -> key == ApiKeys.API_VERSIONS || key == ApiKeys.SASL_HANDSHAKE;
            case AUTHENTICATE -> key == ApiKeys.SASL_AUTHENTICATE;
            case AUTHENTICATED -> key == ApiKeys.SASL_HANDSHAKE || !expired();
            case REAUTHENTICATE -> key == ApiKeys.SASL_AUTHENTICATE;
            case RAW_TOKEN, FAILED -> false;
        };
    }

    /**
     * Whether {@code key}, not {@linkplain #admits admitted} now, is answered with ILLEGAL_SASL_STATE
     * before the connection closes (rather than closed unanswered): any request but SaslAuthenticate
     * after a SaslHandshake v1 asked for a mechanism, as Kafka answers it.
     */
    public boolean answersIllegalState(ApiKeys key) {
        return (state == State.AUTHENTICATE || state == State.REAUTHENTICATE) && key != ApiKeys.SASL_AUTHENTICATE;
    }

    /** The exchange is broken off by a request out of order: answered, then the connection closes. */
    public void breakOff() {
        state = State.FAILED;
        closeAfterResponse = true;
    }

    /** Whether the next frame is a bare SASL token (after SaslHandshake v0). */
    public boolean expectsRawToken() {
        return state == State.RAW_TOKEN;
    }

    /** Whether authentication failed: frames still arriving are dropped until the connection closes. */
    public boolean failed() {
        return state == State.FAILED;
    }

    /** Whether every request is served (authenticated, the session not expired, no re-authentication under way). */
    public boolean authenticated() {
        return state == State.AUTHENTICATED && !expired();
    }

    /** Whether a SaslAuthenticate now would find the exchange already done (Kafka: ILLEGAL_SASL_STATE). */
    public boolean exchangeDone() {
        return state == State.AUTHENTICATED;
    }

    private boolean expired() {
        return reauthenticates() && nanoTime.getAsLong() - expiresAt >= 0;
    }

    /** Whether the connection is to close once the answer being prepared is written. */
    public boolean closeAfterResponse() {
        return closeAfterResponse;
    }

    /** The session's lifetime for SaslAuthenticate v1+: {@code connections.max.reauth.ms}, 0 when none. */
    public long sessionLifetimeMs() {
        return settings.maxReauthMs();
    }

    /** The authenticated principal ({@code User:<name>}), or null before success. */
    public Principal principal() {
        return principal;
    }

    public List<String> enabledMechanisms() {
        return settings.mechanisms();
    }

    /**
     * A SaslHandshake asking for {@code requested} at {@code version}: NONE (the next step awaits
     * the token), UNSUPPORTED_SASL_MECHANISM (the connection closes after the answer), or
     * ILLEGAL_SASL_STATE (already authenticated).
     */
    public Errors handshake(String requested, short version) {
        boolean again = state == State.AUTHENTICATED && reauthenticates() && version >= 1;
        if (state != State.HANDSHAKE && !again) {
            return Errors.ILLEGAL_SASL_STATE;
        }
        if (!settings.mechanisms().contains(requested) || again && !requested.equals(mechanism)) {
            closeAfterResponse = true;
            state = State.FAILED;
            return Errors.UNSUPPORTED_SASL_MECHANISM;
        }
        mechanism = requested;
        ScramMechanism scramMechanism = ScramMechanism.forName(requested);
        scram = scramMechanism == null ? null : new ScramExchange(scramMechanism,
                settings.scram() == null ? null : settings.scram()::credential, genericFailure(again));
        state = again ? State.REAUTHENTICATE : version == 0 ? State.RAW_TOKEN : State.AUTHENTICATE;
        return Errors.NONE;
    }

    /** The mechanism chosen by the handshake, or null. */
    public String mechanism() {
        return mechanism;
    }

    /**
     * Checks a client's token for the chosen mechanism (PLAIN, RFC 4616: {@code [authzid] NUL
     * authcid NUL passwd}; SCRAM: the next message of its {@link ScramExchange}). Success of the
     * last step authenticates the connection; failure of any marks it to close after the answer.
     * Only in the AUTHENTICATE, RAW_TOKEN or REAUTHENTICATE state (the connection admits nothing else).
     *
     * @return the error message Kafka gives, or success with the server's token
     */
    public Result authenticate(byte[] token) {
        if (state != State.AUTHENTICATE && state != State.RAW_TOKEN && state != State.REAUTHENTICATE) {
            throw new IllegalStateException("no authentication expected in state " + state);
        }
        Principal previous = state == State.REAUTHENTICATE ? principal : null;
        String error;
        byte[] response = new byte[0];
        if (scram != null) {
            try {
                response = scram.evaluate(token);
            } catch (ScramExchange.Failure e) {
                state = State.FAILED;
                closeAfterResponse = true;
                return Result.failed(e.getMessage());
            }
            if (!scram.complete()) {
                return new Result(null, response, false);
            }
            checked = Principal.user(scram.user());
            error = null;
        } else {
            error = checkPlain(token);
        }
        if (error == null && previous != null && !previous.equals(checked)) {
            error = "Cannot change principals during re-authentication from " + previous + ": " + checked;
        }
        if (error == null) {
            principal = checked;
            state = State.AUTHENTICATED;
            expiresAt = nanoTime.getAsLong() + TimeUnit.MILLISECONDS.toNanos(settings.maxReauthMs());
            return new Result(null, response, true);
        }
        state = State.FAILED;
        closeAfterResponse = true;
        return Result.failed(error);
    }

    /** Kafka's answer to a SCRAM failure that names nothing (unknown user, wrong password, bad message). */
    private String genericFailure(boolean reauthentication) {
        return "Authentication failed during " + (reauthentication ? "re-authentication" : "authentication")
                + " due to invalid credentials with SASL mechanism " + mechanism;
    }

    private String checkPlain(byte[] token) {
        String text = new String(token, StandardCharsets.UTF_8);
        String[] parts = text.split("\u0000", -1);
        if (parts.length != 3) {
            return "Invalid SASL/PLAIN response: expected 3 tokens, got " + parts.length; // Kafka's words
        }
        String authzid = parts[0];
        String user = parts[1];
        String password = parts[2];
        if (user.isEmpty()) {
            return "Authentication failed: username not specified";
        }
        if (password.isEmpty()) {
            return "Authentication failed: password not specified";
        }
        if (!settings.plainUsers().check(user, password)) {
            return INVALID_CREDENTIALS;
        }
        if (!authzid.isEmpty() && !authzid.equals(user)) {
            return "Authentication failed: Client requested an authorization id that is different from username";
        }
        checked = Principal.user(user);
        return null;
    }
}
