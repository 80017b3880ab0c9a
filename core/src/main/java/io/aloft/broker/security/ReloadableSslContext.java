package io.aloft.broker.security;

import io.aloft.config.ConfigException;
import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An SSL listener's TLS context that follows its key store and trust store files: when their
 * contents change (a renewed certificate written in place, or a Kubernetes Secret volume whose
 * files cert-manager rotated), the context is rebuilt and new connections use it; connections
 * already open keep theirs. A file that cannot be used (half written, wrong password) leaves the
 * previous context in place and is logged with the key that names it, and is tried again at the
 * next check: a broker never stops serving TLS because of a rotation. Kafka rotates a key store
 * through a dynamic {@code ssl.keystore.location} update; here replacing the files is enough.
 *
 * <p>Thread-safe: {@link #current} is a volatile read; checks are serialized.
 */
public final class ReloadableSslContext {
    private static final Logger log = LoggerFactory.getLogger(ReloadableSslContext.class);

    private final SslConfig config;
    private final List<Path> files;
    private volatile SslContext current;
    /** Of the files' contents the current context was built from (or the last failed attempt's). */
    private byte[] fingerprint;

    private ReloadableSslContext(SslConfig config, List<Path> files, SslContext context, byte[] fingerprint) {
        this.config = config;
        this.files = files;
        this.current = context;
        this.fingerprint = fingerprint;
    }

    /**
     * Builds the context from {@code config} now.
     *
     * @throws ConfigException naming the key (as set for this listener) whose value cannot be used
     */
    public static ReloadableSslContext build(SslConfig config) {
        List<Path> files = new ArrayList<>();
        for (String location : Arrays.asList(config.get(SslConfig.KEYSTORE_LOCATION),
                config.get(SslConfig.TRUSTSTORE_LOCATION))) {
            if (location != null) {
                files.add(Path.of(location));
            }
        }
        // Fingerprint first: a file replaced while the context is built is then seen as changed next time.
        byte[] fingerprint = fingerprint(files);
        return new ReloadableSslContext(config, List.copyOf(files), ServerSslContexts.build(config), fingerprint);
    }

    /** The context for a new connection. */
    public SslContext current() {
        return current;
    }

    /** How often {@link #reloadIfChanged} should run; 0: never. */
    public long checkIntervalMs() {
        return config.get(SslConfig.RELOAD_INTERVAL_MS);
    }

    /**
     * Rebuilds the context if a file's contents changed since the last build or attempt. Never
     * throws: a failure is logged and the current context kept.
     *
     * @return whether a new context is in use
     */
    public synchronized boolean reloadIfChanged() {
        try {
            byte[] now = fingerprint(files);
            if (now == null || Arrays.equals(now, fingerprint)) {
                return false; // unchanged, or a file is missing for the moment (a Secret update swaps links)
            }
            fingerprint = now;
            current = ServerSslContexts.build(config);
            log.info("Listener {}: reloaded its TLS key material from {}", config.listenerName(), files);
            return true;
        } catch (ConfigException e) {
            log.warn("Listener {}: keeps its current TLS context; the changed files cannot be used: {}",
                    config.listenerName(), e.getMessage());
        } catch (RuntimeException e) {
            log.warn("Listener {}: keeps its current TLS context; reloading {} failed", config.listenerName(), files, e);
        }
        return false;
    }

    /** SHA-256 over the files' contents in order; null if one cannot be read. */
    private static byte[] fingerprint(List<Path> files) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (Path f : files) {
                byte[] bytes = Files.readAllBytes(f);
                digest.update(Long.toString(bytes.length).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                digest.update(bytes);
            }
            return digest.digest();
        } catch (IOException e) {
            return null;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
