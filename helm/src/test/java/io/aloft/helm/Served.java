package io.aloft.helm;

import io.aloft.broker.BrokerConfig;
import io.aloft.broker.security.sasl.SaslConfig;
import io.aloft.config.ConfigException;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;

/**
 * What this build of the broker serves, asked of the broker's own code rather than listed here:
 * the chart offers SASL_SSL and SCRAM (Kafka's names), which the broker gains in a change of its
 * own; until then a configuration using them must be refused naming them. Stateless.
 */
final class Served {
    /** A PLAIN users line, as the users' Secret holds it (the tests' stand-in for its value). */
    static final String PLAIN_JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "user_alice=\"alice-secret\";";

    private Served() {}

    /** The first protocol or SASL mechanism {@code props} use that the broker does not serve yet. */
    static Optional<String> notYetServed(Map<String, String> props) {
        String map = props.getOrDefault(BrokerConfig.SECURITY_PROTOCOL_MAP_CONFIG, "");
        for (String entry : map.split(",")) {
            String protocol = entry.substring(entry.indexOf(':') + 1).strip();
            if (!protocol.isEmpty() && BrokerConfig.SERVED_PROTOCOLS.stream().noneMatch(p -> p.name().equals(protocol))) {
                return Optional.of(protocol);
            }
        }
        String mechanisms = props.getOrDefault("listener.name.client." + SaslConfig.ENABLED_MECHANISMS_CONFIG, "");
        return Arrays.stream(mechanisms.split(",")).map(String::strip).filter(m -> !m.isEmpty())
                .filter(m -> !mechanismServed(m)).findFirst();
    }

    private static boolean mechanismServed(String mechanism) {
        try {
            SaslConfig.forListener(Map.of("listener.name.x.sasl.enabled.mechanisms", mechanism,
                    "listener.name.x.plain.sasl.jaas.config", PLAIN_JAAS), "x");
            return true;
        } catch (ConfigException e) {
            return !e.getMessage().contains(mechanism);
        }
    }

    /** A stand-in for the Secret value the pod's env var {@code name} gets through secretKeyRef. */
    static String secretValue(String name) {
        return name.endsWith("_jaas_config") ? PLAIN_JAAS : "not-checked-" + name;
    }
}
