package io.aloft.controller.model;

import java.util.Objects;

/**
 * One listener of a broker, as clients reach it.
 *
 * @param listener listener name (e.g. PLAINTEXT)
 * @param host advertised host
 * @param port advertised port
 * @param securityProtocol Kafka security protocol name
 */
public record Endpoint(String listener, String host, int port, String securityProtocol) {
    public Endpoint {
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(securityProtocol, "securityProtocol");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " out of range");
        }
    }
}
