package io.aloft.broker.security.sasl;

import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigException;
import io.aloft.config.ConfigKey;
import io.aloft.config.ConfigType;
import io.aloft.config.ConfigValues;
import io.aloft.config.Validator;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * SASL settings of the broker's SASL listeners, with Kafka's key names. The per-listener keys are
 * Kafka's prefixed ones ({@code listener.name.<listener lower-case>.} before the key, and for the
 * JAAS config also the mechanism: {@code listener.name.sasl_plaintext.plain.sasl.jaas.config}), so
 * they are read here from the raw properties rather than declared one by one. Immutable.
 */
public final class SaslConfig {
    private SaslConfig() {
    }

    public static final String PLAIN = "PLAIN";
    public static final String SCRAM_SHA_256 = "SCRAM-SHA-256";
    public static final String SCRAM_SHA_512 = "SCRAM-SHA-512";
    /** The mechanisms served. */
    static final List<String> SERVED = List.of(PLAIN, SCRAM_SHA_256, SCRAM_SHA_512);

    public static final String ENABLED_MECHANISMS_CONFIG = "sasl.enabled.mechanisms";
    public static final ConfigKey<List<String>> ENABLED_MECHANISMS = ConfigKey.customKey(ENABLED_MECHANISMS_CONFIG,
            ConfigType.LIST, SaslConfig::parseMechanisms, ConfigKey::formatList)
            .defaultValue(List.of(PLAIN))
            .doc("SASL mechanisms a SASL_PLAINTEXT or SASL_SSL listener accepts, in the order SaslHandshake lists them; "
                    + "listener.name.<listener>.sasl.enabled.mechanisms overrides it for one listener, as in "
                    + "Kafka. PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 (Kafka's default is GSSAPI, which Aloft does not "
                    + "serve). A PLAIN listener takes its users from listener.name.<listener>.plain.sasl.jaas.config, "
                    + "Kafka's syntax: org.apache.kafka.common.security.plain.PlainLoginModule required "
                    + "user_alice=\"alice-secret\"; (one user_NAME=\"password\" option per user; no JAAS file). "
                    + "SCRAM users are the cluster's credentials, set with AlterUserScramCredentials (kafka-configs.sh "
                    + "--alter --entity-type users --entity-name alice --add-config 'SCRAM-SHA-256=[password=...]').")
            .build();

    public static final String FAILED_AUTHENTICATION_DELAY_MS_CONFIG = "connection.failed.authentication.delay.ms";
    public static final ConfigKey<Integer> FAILED_AUTHENTICATION_DELAY_MS = ConfigKey.intKey(
            FAILED_AUTHENTICATION_DELAY_MS_CONFIG).defaultValue(100).validator(Validator.atLeast(0))
            .doc("How long the answer to a failed SASL authentication is held back before it is sent and the "
                    + "connection closed, as in Kafka: it slows down password guessing from one connection.")
            .build();

    public static final String FAILED_AUTHENTICATION_MAX_DELAY_MS_CONFIG =
            "aloft.connection.failed.authentication.max.delay.ms";
    public static final ConfigKey<Integer> FAILED_AUTHENTICATION_MAX_DELAY_MS = ConfigKey.intKey(
            FAILED_AUTHENTICATION_MAX_DELAY_MS_CONFIG).defaultValue(5_000).validator(Validator.atLeast(0))
            .doc("Against password guessing from one address: each failed SASL authentication from a client "
                    + "address within a minute of its previous one doubles the delay before the answer, from "
                    + "connection.failed.authentication.delay.ms up to this (a minute without failures starts "
                    + "again from the base delay). Equal to (or below) the base delay: Kafka's fixed delay.")
            .build();

    public static final String MAX_REAUTH_MS_CONFIG = "connections.max.reauth.ms";
    public static final ConfigKey<Long> MAX_REAUTH_MS = ConfigKey.longKey(MAX_REAUTH_MS_CONFIG).defaultValue(0L)
            .validator(Validator.atLeast(0L))
            .doc("Re-authentication (KIP-368): when positive, a SASL session lasts this long; SaslAuthenticate "
                    + "v1+ tells the client so (session_lifetime_ms), the client re-authenticates on the same "
                    + "connection (as the same user), and a connection whose session has expired is closed at its "
                    + "next request. listener.name.<listener>.connections.max.reauth.ms overrides it for one "
                    + "listener. 0: sessions never expire and a second handshake gets ILLEGAL_SASL_STATE.")
            .build();

    /** Every key this class declares. */
    public static final ConfigDefinition DEFINITION = ConfigDefinition.of("sasl", ENABLED_MECHANISMS,
            FAILED_AUTHENTICATION_DELAY_MS, FAILED_AUTHENTICATION_MAX_DELAY_MS, MAX_REAUTH_MS);

    /**
     * The SASL settings of listener {@code listenerName}, from the raw properties (for the prefixed
     * keys).
     *
     * @throws ConfigException naming the key, for an unsupported mechanism or a missing or bad JAAS config
     */
    public static SaslListenerSettings forListener(Map<?, ?> props, String listenerName) {
        ConfigValues values = DEFINITION.parse(props);
        String prefix = "listener.name." + listenerName.toLowerCase(Locale.ROOT) + ".";
        List<String> mechanisms = values.get(ENABLED_MECHANISMS);
        Object own = props.get(prefix + ENABLED_MECHANISMS_CONFIG);
        if (own != null) {
            try {
                mechanisms = parseMechanisms(own.toString().trim());
            } catch (IllegalArgumentException e) {
                throw new ConfigException(prefix + ENABLED_MECHANISMS_CONFIG, e.getMessage());
            }
        }
        PlainCredentials users = null;
        if (mechanisms.contains(PLAIN)) {
            String key = prefix + "plain.sasl.jaas.config";
            Object jaas = props.get(key);
            if (jaas == null || jaas.toString().isBlank()) {
                throw new ConfigException(key, "listener " + listenerName + " enables PLAIN, and this key, "
                        + "which holds its users, is not set (Aloft reads no JAAS file)");
            }
            users = PlainCredentials.fromJaasConfig(key, jaas.toString());
        }
        long reauthMs = values.get(MAX_REAUTH_MS);
        Object ownReauth = props.get(prefix + MAX_REAUTH_MS_CONFIG);
        if (ownReauth != null) {
            try {
                reauthMs = Long.parseLong(ownReauth.toString().trim());
            } catch (NumberFormatException e) {
                reauthMs = -1;
            }
            if (reauthMs < 0) {
                throw new ConfigException(prefix + MAX_REAUTH_MS_CONFIG, "'" + ownReauth + "' is not a number of "
                        + "milliseconds (0 or more)");
            }
        }
        return new SaslListenerSettings(listenerName, mechanisms, users, values.get(FAILED_AUTHENTICATION_DELAY_MS),
                values.get(FAILED_AUTHENTICATION_MAX_DELAY_MS), reauthMs, null);
    }

    /** Whether {@code key} is a per-listener key this class reads ({@code listener.name.X.…}). */
    public static boolean isListenerKey(String key) {
        return key.startsWith("listener.name.") && (key.endsWith("." + ENABLED_MECHANISMS_CONFIG)
                || key.endsWith(".plain.sasl.jaas.config") || key.endsWith("." + MAX_REAUTH_MS_CONFIG));
    }

    static List<String> parseMechanisms(String text) {
        List<String> out = new ArrayList<>();
        for (String part : text.split(",")) {
            String m = part.trim();
            if (m.isEmpty()) {
                continue;
            }
            if (!SERVED.contains(m)) {
                throw new IllegalArgumentException("mechanism " + m + " is not supported (served: "
                        + String.join(", ", SERVED) + ")");
            }
            if (!out.contains(m)) {
                out.add(m);
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no mechanism given");
        }
        return List.copyOf(out);
    }
}
