package io.aloft.broker.security.sasl;

import io.aloft.broker.security.scram.ScramCredentials;
import java.util.List;

/**
 * What one SASL listener accepts. Immutable.
 *
 * @param listenerName the listener's name, for logs
 * @param mechanisms the enabled mechanisms, in the order SaslHandshake lists them
 * @param plainUsers the PLAIN users, or null when PLAIN is not enabled
 * @param failedAuthenticationDelayMs {@code connection.failed.authentication.delay.ms}
 * @param failedAuthenticationMaxDelayMs the most that delay grows to for an address that keeps failing
 * @param maxReauthMs {@code connections.max.reauth.ms}: a session's lifetime, 0 for no expiry
 * @param scram the cluster's SCRAM credentials (the broker's, given at start: {@link #withScram}), or
 *     null: then no SCRAM user exists and every SCRAM exchange fails as for an unknown user
 */
public record SaslListenerSettings(String listenerName, List<String> mechanisms, PlainCredentials plainUsers,
        int failedAuthenticationDelayMs, int failedAuthenticationMaxDelayMs, long maxReauthMs,
        ScramCredentials scram) {
    public SaslListenerSettings {
        mechanisms = List.copyOf(mechanisms);
    }

    /** These settings with the broker's SCRAM credentials. */
    public SaslListenerSettings withScram(ScramCredentials credentials) {
        return new SaslListenerSettings(listenerName, mechanisms, plainUsers, failedAuthenticationDelayMs,
                failedAuthenticationMaxDelayMs, maxReauthMs, credentials);
    }
}
