package io.aloft.broker.interbroker;

import io.aloft.broker.security.SslConfig;
import io.aloft.broker.security.sasl.SaslListenerSettings;
import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigException;
import io.aloft.config.ConfigKey;
import io.aloft.config.Validator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.security.JaasContext;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * How this broker's {@link NetworkInterBrokerClient} secures its connections to the other brokers:
 * the inter-broker listener's security protocol and the kafka-clients settings for it, derived
 * from that listener's own settings as Kafka's brokers derive them. Over SSL or SASL_SSL the
 * listener's {@code ssl.*} keys (its key store is this broker's client certificate, its trust store
 * must trust the others'); over SASL_PLAINTEXT or SASL_SSL the mechanism of
 * {@code sasl.mechanism.inter.broker.protocol} with the {@code username} and {@code password}
 * options of the listener's JAAS key ({@code listener.name.<listener>.plain.sasl.jaas.config}):
 * the same entry holds the users the broker accepts ({@code user_NAME=...}) and the credentials it
 * logs in to the others with, as in Kafka. kafka-clients' SASL channel then runs ApiVersions,
 * SaslHandshake and SaslAuthenticate on each connection before its first request.
 *
 * <p>Immutable. {@link #toString} never shows the settings (they hold passwords).
 */
public final class InterBrokerSecurity {
    /** The only mechanism brokers serve so far (see sasl.enabled.mechanisms). */
    static final String PLAIN = "PLAIN";

    public static final String SASL_MECHANISM_CONFIG = "sasl.mechanism.inter.broker.protocol";
    public static final ConfigKey<String> SASL_MECHANISM = ConfigKey.stringKey(SASL_MECHANISM_CONFIG)
            .defaultValue(PLAIN).validator(Validator.oneOf(PLAIN))
            .doc("SASL mechanism brokers authenticate to each other with when the inter-broker listener is "
                    + "SASL_PLAINTEXT or SASL_SSL, Kafka's key; it must be one of that listener's enabled mechanisms. The "
                    + "broker logs in with the username and password options of the listener's JAAS key "
                    + "(listener.name.<listener>.plain.sasl.jaas.config, which also lists the users it accepts: "
                    + "PlainLoginModule required username=\"broker\" password=\"...\" user_broker=\"...\";). "
                    + "Only PLAIN so far (Kafka's default is GSSAPI, which Aloft does not serve).")
            .build();

    /** Every key this class declares. */
    public static final ConfigDefinition DEFINITION = ConfigDefinition.of("inter-broker", SASL_MECHANISM);

    private static final InterBrokerSecurity PLAINTEXT = new InterBrokerSecurity(SecurityProtocol.PLAINTEXT,
            Map.of());

    private final SecurityProtocol protocol;
    private final Map<String, String> clientSettings;

    private InterBrokerSecurity(SecurityProtocol protocol, Map<String, String> clientSettings) {
        this.protocol = Objects.requireNonNull(protocol);
        this.clientSettings = Map.copyOf(clientSettings);
    }

    /** No security: a PLAINTEXT inter-broker listener. */
    public static InterBrokerSecurity plaintext() {
        return PLAINTEXT;
    }

    /** TLS with these client {@code ssl.*} settings (as {@link SslConfig#clientSettings} gives them). */
    public static InterBrokerSecurity ssl(Map<String, String> sslSettings) {
        return new InterBrokerSecurity(SecurityProtocol.SSL, sslSettings);
    }

    /**
     * The client side of inter-broker listener {@code listener}.
     *
     * @param protocol the listener's security protocol
     * @param ssl its TLS settings (SSL, SASL_SSL), else null
     * @param sasl its SASL settings (SASL_PLAINTEXT, SASL_SSL), else null
     * @param props the raw properties, for the mechanism and the prefixed JAAS key
     * @throws ConfigException naming the key: a mechanism the listener does not enable, a JAAS key
     *     without username and password
     */
    public static InterBrokerSecurity forListener(String listener, SecurityProtocol protocol, SslConfig ssl,
            SaslListenerSettings sasl, Map<?, ?> props) {
        Map<String, String> settings = new HashMap<>();
        if (protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL) {
            settings.putAll(Objects.requireNonNull(ssl, "the listener's TLS settings").clientSettings());
        }
        if (protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL) {
            Objects.requireNonNull(sasl, "the listener's SASL settings");
            String mechanism = DEFINITION.parse(props).get(SASL_MECHANISM);
            if (!sasl.mechanisms().contains(mechanism)) {
                throw new ConfigException(SASL_MECHANISM_CONFIG, mechanism + " is not enabled on listener "
                        + listener + ", which brokers reach each other on (it enables " + sasl.mechanisms() + ")");
            }
            String jaasKey = SslConfig.prefix(listener) + mechanism.toLowerCase(Locale.ROOT) + ".sasl.jaas.config";
            Object jaas = props.get(jaasKey);
            requireCredentials(jaasKey, listener, jaas == null ? "" : jaas.toString());
            settings.put(SaslConfigs.SASL_MECHANISM, mechanism);
            settings.put(SaslConfigs.SASL_JAAS_CONFIG, jaas.toString());
        }
        return new InterBrokerSecurity(protocol, settings);
    }

    /** Reads the entry as kafka-clients will, and checks it names this broker's own credentials. */
    private static void requireCredentials(String jaasKey, String listener, String text) {
        List<AppConfigurationEntry> entries;
        try {
            entries = JaasContext.loadClientContext(Map.of(SaslConfigs.SASL_JAAS_CONFIG, new Password(text)))
                    .configurationEntries();
        } catch (IllegalArgumentException e) {
            // kafka-clients' message may quote the text, passwords included: not repeated here.
            throw new ConfigException(jaasKey, "kafka-clients cannot read it as a JAAS config (one login module "
                    + "entry ending with ';'), which the broker needs to log in to the other brokers");
        }
        Map<String, ?> options = entries.get(0).getOptions();
        if (!(options.get("username") instanceof String user) || user.isEmpty()
                || !(options.get("password") instanceof String)) {
            throw new ConfigException(jaasKey, "listener " + listener + " is the inter-broker listener, so this key "
                    + "needs username=\"...\" and password=\"...\" options: the credentials this broker logs in to "
                    + "the other brokers with (besides the user_NAME entries it accepts)");
        }
    }

    public SecurityProtocol protocol() {
        return protocol;
    }

    /** The kafka-clients settings ({@code ssl.*}, {@code sasl.mechanism}, {@code sasl.jaas.config}); secrets included. */
    public Map<String, String> clientSettings() {
        return clientSettings;
    }

    /** The SASL mechanism, or null without SASL. */
    public String saslMechanism() {
        return clientSettings.get(SaslConfigs.SASL_MECHANISM);
    }

    @Override
    public String toString() {
        return "InterBrokerSecurity[" + protocol + (saslMechanism() == null ? "" : ", " + saslMechanism()) + "]";
    }
}
