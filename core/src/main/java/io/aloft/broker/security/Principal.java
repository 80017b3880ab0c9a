package io.aloft.broker.security;

import java.util.Objects;

/**
 * Who a connection authenticated as, in Kafka's form ({@code KafkaPrincipal}): a type and a name,
 * written {@code type:name}, as ACLs and {@code super.users} name principals ({@code User:alice}).
 * Immutable.
 *
 * @param type the principal type; Kafka's brokers produce {@link #USER_TYPE} only
 * @param name the name: {@code ANONYMOUS} before (or without) authentication, the mapped certificate
 *        name under mutual TLS, the user name after SASL
 */
public record Principal(String type, String name) {
    public static final String USER_TYPE = "User";
    /** Kafka's principal of a PLAINTEXT connection, and of an SSL one without a client certificate. */
    public static final Principal ANONYMOUS = new Principal(USER_TYPE, "ANONYMOUS");

    public Principal {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(name, "name");
    }

    /** A {@code User:} principal. */
    public static Principal user(String name) {
        return new Principal(USER_TYPE, name);
    }

    @Override
    public String toString() {
        return type + ":" + name;
    }
}
