package io.aloft.broker.security;

import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigException;
import io.aloft.config.ConfigKey;
import io.aloft.config.ConfigType;
import io.aloft.config.ConfigValues;
import io.aloft.config.Validator;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The TLS settings of one SSL or SASL_SSL listener, with Kafka's keys: each {@code ssl.*} key may be set for one
 * listener as {@code listener.name.<listener name, lowercase>.ssl.*}, which takes precedence over
 * the plain key (Kafka's rule). Read at start; the key and trust store files are then watched and
 * reloaded when they change ({@link ReloadableSslContext}, {@link #RELOAD_INTERVAL_MS}).
 * Passwords are never logged, and DescribeConfigs hides them. Immutable.
 */
public final class SslConfig {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(SslConfig.class);
    /** Prefix of per-listener keys: {@code listener.name.<name>.}. */
    public static final String LISTENER_PREFIX = "listener.name.";

    public static final String KEYSTORE_TYPE_CONFIG = "ssl.keystore.type";
    public static final ConfigKey<String> KEYSTORE_TYPE = ConfigKey.stringKey(KEYSTORE_TYPE_CONFIG)
            .defaultValue("JKS").validator(storeType())
            .doc("Format of the key store: JKS, PKCS12, or PEM (a file holding the private key and the "
                    + "certificate chain at ssl.keystore.location, or both inline in "
                    + "ssl.keystore.key and ssl.keystore.certificate.chain).")
            .build();

    public static final String KEYSTORE_LOCATION_CONFIG = "ssl.keystore.location";
    public static final ConfigKey<String> KEYSTORE_LOCATION = ConfigKey.stringKey(KEYSTORE_LOCATION_CONFIG)
            .defaultText("(none)")
            .doc("Path of the key store: the broker's private key and certificate chain. Required for an SSL "
                    + "listener unless ssl.keystore.type=PEM with the key and chain inline.")
            .build();

    public static final String KEYSTORE_PASSWORD_CONFIG = "ssl.keystore.password";
    public static final ConfigKey<String> KEYSTORE_PASSWORD = ConfigKey.stringKey(KEYSTORE_PASSWORD_CONFIG)
            .defaultText("(none)")
            .doc("Password of the key store file (JKS, PKCS12). Not used with PEM.")
            .build();

    public static final String KEY_PASSWORD_CONFIG = "ssl.key.password";
    public static final ConfigKey<String> KEY_PASSWORD = ConfigKey.stringKey(KEY_PASSWORD_CONFIG)
            .defaultText("(ssl.keystore.password)")
            .doc("Password of the private key in the key store (JKS, PKCS12: defaults to the store's), or of "
                    + "an encrypted PKCS#8 PEM key.")
            .build();

    public static final String KEYSTORE_CERTIFICATE_CHAIN_CONFIG = "ssl.keystore.certificate.chain";
    public static final ConfigKey<String> KEYSTORE_CERTIFICATE_CHAIN = ConfigKey.stringKey(
            KEYSTORE_CERTIFICATE_CHAIN_CONFIG)
            .defaultText("(none)")
            .doc("With ssl.keystore.type=PEM: the certificate chain in PEM, inline (instead of a file).")
            .build();

    public static final String KEYSTORE_KEY_CONFIG = "ssl.keystore.key";
    public static final ConfigKey<String> KEYSTORE_KEY = ConfigKey.stringKey(KEYSTORE_KEY_CONFIG)
            .defaultText("(none)")
            .doc("With ssl.keystore.type=PEM: the PKCS#8 private key in PEM, inline (encrypted: its password "
                    + "in ssl.key.password). Hidden by DescribeConfigs.")
            .build();

    public static final String TRUSTSTORE_TYPE_CONFIG = "ssl.truststore.type";
    public static final ConfigKey<String> TRUSTSTORE_TYPE = ConfigKey.stringKey(TRUSTSTORE_TYPE_CONFIG)
            .defaultValue("JKS").validator(storeType())
            .doc("Format of the trust store: JKS, PKCS12, or PEM (certificates in a file at "
                    + "ssl.truststore.location, or inline in ssl.truststore.certificates).")
            .build();

    public static final String TRUSTSTORE_LOCATION_CONFIG = "ssl.truststore.location";
    public static final ConfigKey<String> TRUSTSTORE_LOCATION = ConfigKey.stringKey(TRUSTSTORE_LOCATION_CONFIG)
            .defaultText("(none: the JVM's default trust store)")
            .doc("Path of the trust store: the certificates (or CAs) client certificates must chain to "
                    + "when ssl.client.auth is requested or required.")
            .build();

    public static final String TRUSTSTORE_PASSWORD_CONFIG = "ssl.truststore.password";
    public static final ConfigKey<String> TRUSTSTORE_PASSWORD = ConfigKey.stringKey(TRUSTSTORE_PASSWORD_CONFIG)
            .defaultText("(none: the store's integrity is not checked)")
            .doc("Password of the trust store file (JKS, PKCS12).")
            .build();

    public static final String TRUSTSTORE_CERTIFICATES_CONFIG = "ssl.truststore.certificates";
    public static final ConfigKey<String> TRUSTSTORE_CERTIFICATES = ConfigKey.stringKey(
            TRUSTSTORE_CERTIFICATES_CONFIG)
            .defaultText("(none)")
            .doc("With ssl.truststore.type=PEM: the trusted certificates in PEM, inline (instead of a file).")
            .build();

    /** Kafka's {@code ssl.client.auth} values. */
    public enum ClientAuth {
        NONE, REQUESTED, REQUIRED
    }

    public static final String CLIENT_AUTH_CONFIG = "ssl.client.auth";
    public static final ConfigKey<ClientAuth> CLIENT_AUTH = ConfigKey.customKey(CLIENT_AUTH_CONFIG, ConfigType.STRING,
            SslConfig::parseClientAuth, a -> a.name().toLowerCase(Locale.ROOT))
            .defaultValue(ClientAuth.NONE)
            .doc("Whether clients must present a certificate (mutual TLS): none; requested (a client may, and "
                    + "one it presents must be trusted); required (a client without a trusted one fails the "
                    + "handshake). The principal of a client with a certificate is its mapped name "
                    + "(ssl.principal.mapping.rules); without one, User:ANONYMOUS.")
            .build();

    public static final String ENABLED_PROTOCOLS_CONFIG = "ssl.enabled.protocols";
    public static final ConfigKey<List<String>> ENABLED_PROTOCOLS = ConfigKey.customKey(ENABLED_PROTOCOLS_CONFIG,
            ConfigType.LIST, SslConfig::parseList, ConfigKey::formatList)
            .defaultValue(List.of("TLSv1.2", "TLSv1.3"))
            .doc("TLS versions the listener accepts.")
            .build();

    public static final String CIPHER_SUITES_CONFIG = "ssl.cipher.suites";
    public static final ConfigKey<List<String>> CIPHER_SUITES = ConfigKey.customKey(CIPHER_SUITES_CONFIG,
            ConfigType.LIST, SslConfig::parseList, ConfigKey::formatList)
            .defaultText("(the JVM's defaults)")
            .doc("Cipher suites the listener accepts, by their JSSE names; empty: the JVM's defaults.")
            .build();

    public static final String ENDPOINT_IDENTIFICATION_CONFIG = "ssl.endpoint.identification.algorithm";
    public static final ConfigKey<String> ENDPOINT_IDENTIFICATION = ConfigKey.stringKey(ENDPOINT_IDENTIFICATION_CONFIG)
            .defaultValue("https")
            .doc("Kafka's client-side host name check of the server certificate (https, or empty for none). "
                    + "Accepted for Kafka's sake; a client's concern: the broker does not check client host "
                    + "names.")
            .build();

    public static final String PRINCIPAL_MAPPING_RULES_CONFIG = "ssl.principal.mapping.rules";
    public static final ConfigKey<PrincipalMappingRules> PRINCIPAL_MAPPING_RULES = ConfigKey.customKey(
            PRINCIPAL_MAPPING_RULES_CONFIG, ConfigType.STRING,
            text -> PrincipalMappingRules.parse(PRINCIPAL_MAPPING_RULES_CONFIG, text), PrincipalMappingRules::toString)
            .defaultValue(PrincipalMappingRules.DEFAULT)
            .doc("How a client certificate's distinguished name (RFC 2253, e.g. CN=alice,OU=Clients,O=Example) "
                    + "becomes its principal's user name: rules tried in order, RULE:pattern/replacement/ "
                    + "(a Java regular expression matching the whole DN; /L or /U after it lowercases or "
                    + "uppercases the name), or DEFAULT (the whole DN). A DN no rule applies to fails "
                    + "authentication. Example: RULE:^CN=([^,]*),.*$/$1/L,DEFAULT.")
            .build();

    public static final String RELOAD_INTERVAL_MS_CONFIG = "aloft.ssl.reload.interval.ms";
    public static final ConfigKey<Long> RELOAD_INTERVAL_MS = ConfigKey.longKey(RELOAD_INTERVAL_MS_CONFIG)
            .defaultValue(60_000L)
            .validator(Validator.atLeast(0L))
            .doc("How often an SSL listener checks whether the files at ssl.keystore.location and "
                    + "ssl.truststore.location changed, and if so reloads them: new connections get the new "
                    + "certificate, open ones keep theirs, and files that cannot be used are logged and the "
                    + "old ones kept. Replaces Kafka's dynamic ssl.keystore.location update (renew a "
                    + "certificate by writing the files, e.g. a cert-manager Secret volume). 0: never.")
            .build();

    public static final ConfigDefinition DEFINITION = ConfigDefinition.of("ssl", KEYSTORE_TYPE, KEYSTORE_LOCATION,
            KEYSTORE_PASSWORD, KEY_PASSWORD, KEYSTORE_CERTIFICATE_CHAIN, KEYSTORE_KEY, TRUSTSTORE_TYPE,
            TRUSTSTORE_LOCATION, TRUSTSTORE_PASSWORD, TRUSTSTORE_CERTIFICATES, CLIENT_AUTH, ENABLED_PROTOCOLS,
            CIPHER_SUITES, ENDPOINT_IDENTIFICATION, PRINCIPAL_MAPPING_RULES, RELOAD_INTERVAL_MS);

    private final String listenerName;
    private final Map<String, String> sources;
    private final Map<String, String> raw;
    private final ConfigValues values;
    /** Whether the listener is SASL_SSL: the principal comes from SASL, never from the certificate. */
    private final boolean sasl;

    private SslConfig(String listenerName, Map<String, String> sources, Map<String, String> raw,
            ConfigValues values, boolean sasl) {
        this.listenerName = listenerName;
        this.sources = Map.copyOf(sources);
        this.raw = Map.copyOf(raw);
        this.values = values;
        this.sasl = sasl;
    }

    /**
     * The settings of listener {@code listenerName}: each key's {@code listener.name.<name>.} form if
     * set, else its plain form.
     *
     * @throws ConfigException naming the key (in the form it was set) of a bad value
     */
    public static SslConfig forListener(String listenerName, Map<?, ?> props) {
        return forListener(listenerName, props, false);
    }

    /**
     * As {@link #forListener(String, Map)}, for a SASL_SSL listener when {@code sasl}: then, as in
     * Kafka (KIP-684), {@code ssl.client.auth} applies only in its listener-prefixed form (the plain
     * key is ignored, with a WARN, as Kafka logs), and the certificate never names the principal.
     */
    public static SslConfig forListener(String listenerName, Map<?, ?> props, boolean sasl) {
        String prefix = prefix(listenerName);
        Map<String, String> merged = new HashMap<>();
        Map<String, String> sources = new HashMap<>();
        for (String key : DEFINITION.names()) {
            Object plain = props.get(key);
            Object specific = props.get(prefix + key);
            if (specific != null) {
                merged.put(key, specific.toString());
                sources.put(key, prefix + key);
            } else if (plain != null) {
                if (sasl && key.equals(CLIENT_AUTH_CONFIG)) {
                    log.warn("Broker configuration '{}' is applied only to SSL listeners; listener {} is SASL_SSL "
                            + "and ignores it (set {}{} to ask its clients for certificates), as Kafka does",
                            key, listenerName, prefix, key);
                    continue;
                }
                merged.put(key, plain.toString());
            }
        }
        try {
            return new SslConfig(listenerName, sources, merged, DEFINITION.parse(merged), sasl);
        } catch (ConfigException e) {
            String key = sources.getOrDefault(e.key(), e.key());
            throw key.equals(e.key()) ? e : new ConfigException(key, e.getMessage().substring(e.key().length() + 2));
        }
    }

    /** {@code listener.name.<name lowercased>.} */
    public static String prefix(String listenerName) {
        return LISTENER_PREFIX + listenerName.toLowerCase(Locale.ROOT) + ".";
    }

    /** The key as the operator set it for this listener: for error messages. */
    public String keyName(String key) {
        return sources.getOrDefault(key, key);
    }

    /**
     * The settings as a Kafka client takes them (plain {@code ssl.*} keys, values as given), for the
     * broker's own connections to other brokers' listener of this name. The server-only keys
     * ({@code ssl.client.auth}, {@code ssl.principal.mapping.rules}) are left out.
     */
    public Map<String, String> clientSettings() {
        Map<String, String> out = new HashMap<>(raw);
        out.remove(CLIENT_AUTH_CONFIG);
        out.remove(PRINCIPAL_MAPPING_RULES_CONFIG);
        return Map.copyOf(out);
    }

    public String listenerName() {
        return listenerName;
    }

    public <T> T get(ConfigKey<T> key) {
        return values.get(key);
    }

    public ClientAuth clientAuth() {
        return values.get(CLIENT_AUTH);
    }

    /** Whether the listener is SASL_SSL (the principal comes from SASL, not from the certificate). */
    public boolean sasl() {
        return sasl;
    }

    public PrincipalMappingRules principalMappingRules() {
        return values.get(PRINCIPAL_MAPPING_RULES);
    }

    private static Validator<String> storeType() {
        return Validator.check("JKS, PKCS12 or PEM", t -> List.of("JKS", "PKCS12", "PEM").contains(
                t.toUpperCase(Locale.ROOT)), t -> t + " is not JKS, PKCS12 or PEM");
    }

    private static ClientAuth parseClientAuth(String text) {
        try {
            return ClientAuth.valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(CLIENT_AUTH_CONFIG, "'" + text + "' is not none, requested or required");
        }
    }

    private static List<String> parseList(String text) {
        return Arrays.stream(text.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }
}
