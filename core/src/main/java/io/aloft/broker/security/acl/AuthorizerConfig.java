package io.aloft.broker.security.acl;

import io.aloft.broker.security.Principal;
import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigKey;
import io.aloft.config.ConfigType;
import io.aloft.config.ConfigValues;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The authorizer's keys, Kafka's names and meanings. {@code authorizer.class.name} switches ACLs on:
 * Kafka's KRaft authorizer class name ({@value #KAFKA_STANDARD_AUTHORIZER}, so a Kafka
 * server.properties carries over unchanged) or Aloft's short name {@value #ALOFT_AUTHORIZER}; both
 * mean the same built-in authorizer ({@link Authorizer}). Any other class name is refused at start:
 * Aloft loads no plug-in classes, and a broker that silently ignored an authorizer it was asked for
 * would serve everyone. Empty (the default, as in Kafka) means no authorization at all.
 *
 * <p>Immutable.
 */
public record AuthorizerConfig(boolean enabled, Set<Principal> superUsers, boolean allowEveryoneIfNoAclFound) {
    public static final String KAFKA_STANDARD_AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
    public static final String ALOFT_AUTHORIZER = "aloft";

    public static final String AUTHORIZER_CLASS_NAME_CONFIG = "authorizer.class.name";
    public static final ConfigKey<Boolean> AUTHORIZER_CLASS_NAME = ConfigKey.customKey(AUTHORIZER_CLASS_NAME_CONFIG,
            ConfigType.STRING, AuthorizerConfig::parseClassName, on -> on ? KAFKA_STANDARD_AUTHORIZER : "")
            .defaultValue(false).defaultText("")
            .doc("Switches ACLs on: " + KAFKA_STANDARD_AUTHORIZER + " (Kafka's KRaft authorizer, so Kafka "
                    + "configurations carry over) or " + ALOFT_AUTHORIZER + "; both are Aloft's built-in "
                    + "authorizer, with ACLs kept by the controller (kafka-acls.sh, Admin createAcls). Empty: "
                    + "every request is allowed and the ACL APIs answer SECURITY_DISABLED, as in Kafka. Other "
                    + "class names are refused at start. Brokers call each other on the inter-broker listener "
                    + "and need CLUSTER_ACTION on the cluster: on a PLAINTEXT inter-broker listener they are "
                    + "User:ANONYMOUS, so keep that listener private and put User:ANONYMOUS in super.users (the "
                    + "broker warns at start when it is missing).")
            .build();

    public static final String SUPER_USERS_CONFIG = "super.users";
    public static final ConfigKey<Set<Principal>> SUPER_USERS = ConfigKey.customKey(SUPER_USERS_CONFIG,
            ConfigType.STRING, AuthorizerConfig::parsePrincipals,
            s -> String.join(";", s.stream().map(Principal::toString).toList()))
            .defaultValue(Set.of()).defaultText("")
            .doc("Principals allowed everything whatever the ACLs say, separated by semicolons (Kafka's syntax: "
                    + "User:admin;User:ANONYMOUS).")
            .build();

    public static final String ALLOW_EVERYONE_IF_NO_ACL_FOUND_CONFIG = "allow.everyone.if.no.acl.found";
    public static final ConfigKey<Boolean> ALLOW_EVERYONE_IF_NO_ACL_FOUND = ConfigKey.booleanKey(
            ALLOW_EVERYONE_IF_NO_ACL_FOUND_CONFIG).defaultValue(false)
            .doc("With an authorizer: whether a resource no ACL names (no binding of any principal matches it) is "
                    + "open to everyone, as in Kafka. Default false: such a resource is closed to all but "
                    + "super.users.")
            .build();

    /** Every key this class declares. */
    public static final ConfigDefinition DEFINITION = ConfigDefinition.of("authorizer", AUTHORIZER_CLASS_NAME,
            SUPER_USERS, ALLOW_EVERYONE_IF_NO_ACL_FOUND);

    public AuthorizerConfig {
        superUsers = Set.copyOf(superUsers);
    }

    /** The settings in {@code props}; a bad value throws a ConfigException naming its key. */
    public static AuthorizerConfig fromProperties(Map<?, ?> props) {
        ConfigValues values = DEFINITION.parse(props);
        return new AuthorizerConfig(values.get(AUTHORIZER_CLASS_NAME), values.get(SUPER_USERS),
                values.get(ALLOW_EVERYONE_IF_NO_ACL_FOUND));
    }

    private static Boolean parseClassName(String text) {
        if (text.isEmpty()) {
            return false;
        }
        if (text.equals(KAFKA_STANDARD_AUTHORIZER) || text.equals(ALOFT_AUTHORIZER)) {
            return true;
        }
        throw new IllegalArgumentException("'" + text + "' is not an authorizer Aloft has: use "
                + KAFKA_STANDARD_AUTHORIZER + " (or " + ALOFT_AUTHORIZER + ") for ACLs, or leave it empty");
    }

    static Set<Principal> parsePrincipals(String text) {
        Set<Principal> out = new LinkedHashSet<>();
        for (String part : text.split(";")) {
            String p = part.trim();
            if (!p.isEmpty()) {
                out.add(parsePrincipal(p));
            }
        }
        return out;
    }

    /** {@code type:name} (Kafka's principal syntax); throws IllegalArgumentException otherwise. */
    static Principal parsePrincipal(String text) {
        int colon = text.indexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("'" + text + "' is not a principal (type:name, e.g. User:alice)");
        }
        return new Principal(text.substring(0, colon), text.substring(colon + 1));
    }
}
