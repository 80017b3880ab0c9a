package io.aloft.broker.security.scram;

import io.aloft.broker.security.SecurityMetadata;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's SCRAM credentials as this broker sees them, from the controller's security entries
 * ({@link SecurityMetadata}) under {@code security/scram/<user>/<mechanism>}: the user name
 * URL-encoded (names may hold '/'), the mechanism's SASL name, the value a {@link ScramCredential}.
 * Changed through {@link #apply} (AlterUserScramCredentials), so every broker and every restart
 * sees the same credentials.
 *
 * <p>Thread-safe: the index is an immutable map rebuilt on the metadata watcher's thread when an
 * entry under the prefix changes, and swapped through a volatile field; readers (SASL exchanges on
 * network threads, DescribeUserScramCredentials) take whichever index is current.
 */
public final class ScramCredentials {
    private static final Logger log = LoggerFactory.getLogger(ScramCredentials.class);
    public static final String PREFIX = "security/scram/";

    private final SecurityMetadata metadata;
    private volatile SortedMap<String, Map<ScramMechanism, ScramCredential>> byUser = Collections.emptySortedMap();

    public ScramCredentials(SecurityMetadata metadata) {
        this.metadata = metadata;
        metadata.subscribe(PREFIX, this::rebuild);
    }

    /** The key of {@code user}'s credential for {@code mechanism}. */
    public static String key(String user, ScramMechanism mechanism) {
        return PREFIX + URLEncoder.encode(user, StandardCharsets.UTF_8) + "/" + mechanism.mechanismName();
    }

    /** {@code user}'s credential for {@code mechanism}, or null. */
    public ScramCredential credential(String user, ScramMechanism mechanism) {
        Map<ScramMechanism, ScramCredential> m = byUser.get(user);
        return m == null ? null : m.get(mechanism);
    }

    /** Every user's credentials by mechanism, sorted by user: an immutable snapshot. */
    public SortedMap<String, Map<ScramMechanism, ScramCredential>> all() {
        return byUser;
    }

    /** Puts or deletes credentials ({@link SecurityMetadata#apply}: each change applies on its own). */
    public CompletableFuture<Void> apply(List<SecurityMetadata.Change> changes) {
        return metadata.apply(changes);
    }

    private void rebuild(SortedMap<String, byte[]> entries) {
        TreeMap<String, Map<ScramMechanism, ScramCredential>> next = new TreeMap<>();
        entries.forEach((key, value) -> {
            String rest = key.substring(PREFIX.length());
            int slash = rest.lastIndexOf('/');
            ScramMechanism mechanism = slash < 0 ? null : ScramMechanism.forName(rest.substring(slash + 1));
            if (mechanism == null) {
                log.warn("Ignoring security entry {}: not user/SCRAM-mechanism", key);
                return;
            }
            try {
                String user = URLDecoder.decode(rest.substring(0, slash), StandardCharsets.UTF_8);
                next.computeIfAbsent(user, u -> new EnumMap<>(ScramMechanism.class))
                        .put(mechanism, ScramCredential.decode(value));
            } catch (IllegalArgumentException e) {
                log.warn("Ignoring security entry {}: {}", key, e.getMessage());
            }
        });
        next.replaceAll((user, m) -> Collections.unmodifiableMap(m));
        byUser = Collections.unmodifiableSortedMap(next);
    }
}
