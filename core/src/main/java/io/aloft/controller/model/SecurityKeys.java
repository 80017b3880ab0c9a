package io.aloft.controller.model;

/**
 * The part of the controller's key-value space every broker watches: entries whose key starts
 * with {@link #PREFIX} (SCRAM credentials, ACL bindings, client quotas) travel on the change feed
 * from {@link FeatureLevel#SECURITY_METADATA} on, so a change reaches every broker within one watch
 * round instead of a polling interval. Other keys (WAL markers, dynamic configs) do not: they are
 * read where needed.
 *
 * <p>Constants only.
 */
public final class SecurityKeys {
    private SecurityKeys() {
    }

    /** Keys of the watched security entries start with this. */
    public static final String PREFIX = "security/";

    /** Whether {@code key} is a watched security entry. */
    public static boolean isSecurityKey(String key) {
        return key.startsWith(PREFIX);
    }
}
