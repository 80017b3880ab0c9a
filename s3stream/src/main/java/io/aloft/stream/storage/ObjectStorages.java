package io.aloft.stream.storage;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Opens an {@link ObjectStorage} from a URL. Stateless; thread-safe.
 *
 * <ul>
 *   <li>{@code s3://BUCKET[?endpoint=URL][&region=R][&pathStyle=true|false][&accessKey=K&secretKey=S]}
 *       — S3 or an S3-compatible server (MinIO, versitygw). Without {@code endpoint}, AWS S3 in
 *       {@code region} (else the SDK's region chain). With an {@code endpoint}, region defaults
 *       to {@code us-east-1} and {@code pathStyle} to {@code true}, as S3-compatible servers
 *       expect. Without keys, credentials come from the SDK's default chain (environment,
 *       profile, instance role). Values are percent-encoded; a {@code +} stays a plus.</li>
 *   <li>{@code file:///DIR} — one file per object under DIR (created if missing): the embedded,
 *       single-node default. See the file backend's restrictions on keys below.</li>
 * </ul>
 *
 * <p>File-backend keys must be usable as relative paths: no empty segment ({@code a//b},
 * leading or trailing {@code /}), no {@code .} or {@code ..} segment, no NUL or backslash, not
 * under {@code .aloft-tmp/}, and a key cannot be both an object and a "directory" of others
 * ({@code a} and {@code a/b}). S3 has none of these limits.
 */
public final class ObjectStorages {

    static final String ACCEPTED = "accepted: s3://BUCKET?endpoint=http://HOST:PORT&region=REGION&pathStyle=true"
            + "[&accessKey=KEY&secretKey=SECRET] or file:///DIRECTORY";

    private ObjectStorages() {
    }

    /** Opens with {@link ObjectStorageOptions#defaults()}. */
    public static ObjectStorage open(String url) {
        return open(url, ObjectStorageOptions.defaults());
    }

    /**
     * @throws IllegalArgumentException if the URL has an unknown scheme or is malformed; the
     *     message names the URL (secret key hidden) and what is accepted
     * @throws java.io.UncheckedIOException if a file backend's directory cannot be created
     */
    public static ObjectStorage open(String url, ObjectStorageOptions options) {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(options, "options");
        URI uri = uri(url);
        return switch (scheme(uri, url)) {
            case "s3" -> S3ObjectStorage.open(S3Location.parse(uri, url), options);
            default -> FileObjectStorage.open(fileRoot(uri, url), options);
        };
    }

    /**
     * Checks a URL as {@link #open} would — syntax, scheme, bucket name, parameters — without
     * opening anything: no network request, no file system access. Whether the bucket exists or the
     * credentials work shows only when the storage is used.
     *
     * @throws IllegalArgumentException saying what is wrong, as {@link #open} would
     */
    public static void validate(String url) {
        Objects.requireNonNull(url, "url");
        URI uri = uri(url);
        if (scheme(uri, url).equals("s3")) {
            S3Location.parse(uri, url);
        } else {
            fileRoot(uri, url);
        }
    }

    /**
     * The directory a {@code file://} URL stores objects in (created by {@link #open} if missing),
     * or empty for other schemes.
     *
     * @throws IllegalArgumentException if the URL is not valid (see {@link #validate})
     */
    public static Optional<Path> localDirectory(String url) {
        URI uri = uri(url);
        return scheme(uri, url).equals("file") ? Optional.of(fileRoot(uri, url)) : Optional.empty();
    }

    private static URI uri(String url) {
        try {
            return new URI(url.trim());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("object storage URL '" + redact(url) + "' is not a valid URI ("
                    + e.getReason() + "); " + ACCEPTED, e);
        }
    }

    /** "s3" or "file". */
    private static String scheme(URI uri, String url) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
        if (!scheme.equals("s3") && !scheme.equals("file")) {
            throw new IllegalArgumentException("object storage URL '" + redact(url)
                    + "' has unsupported scheme '" + scheme + "'; " + ACCEPTED);
        }
        return scheme;
    }

    private static Path fileRoot(URI uri, String url) {
        if (uri.getRawAuthority() != null && !uri.getRawAuthority().isEmpty()) {
            throw new IllegalArgumentException("file URL '" + url + "' names a host ('" + uri.getRawAuthority()
                    + "'); use file:///absolute/dir (three slashes)");
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("file URL '" + url + "' must not have a query or fragment; "
                    + ACCEPTED);
        }
        if (uri.isOpaque() || uri.getPath() == null || uri.getPath().isEmpty() || uri.getPath().equals("/")) {
            throw new IllegalArgumentException("file URL '" + url + "' needs an absolute directory other than /,"
                    + " like file:///var/lib/aloft/objects");
        }
        return Path.of(uri);
    }

    /** The URL with any {@code secretKey} value replaced, safe to log. */
    static String redact(String url) {
        return url.replaceAll("(?i)(secretKey=)[^&#]*", "$1***");
    }
}
