package io.aloft.stream.storage;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Where an S3 bucket is and how to sign for it, parsed from an {@code s3://} URL (syntax in
 * {@link ObjectStorages}). Immutable. {@link #toString()} hides the secret key.
 *
 * @param endpoint {@code null} for AWS S3's own endpoints
 * @param region {@code null} to let the SDK's region chain decide
 * @param accessKey {@code null} (with secretKey) for the SDK's default credentials chain
 */
record S3Location(String bucket, URI endpoint, String region, boolean pathStyle, String accessKey,
                  String secretKey) {

    private static final Set<String> PARAMETERS = Set.of("endpoint", "region", "pathStyle", "accessKey", "secretKey");

    static S3Location parse(URI uri, String url) {
        String shown = ObjectStorages.redact(url);
        String bucket = uri.getRawAuthority();
        if (bucket == null || bucket.isEmpty()) {
            throw new IllegalArgumentException("s3 URL '" + shown + "' has no bucket; " + ObjectStorages.ACCEPTED);
        }
        if (!bucket.matches("[a-z0-9][a-z0-9.\\-_]{2,254}")) {
            throw new IllegalArgumentException("s3 URL '" + shown + "' has an invalid bucket name '" + bucket
                    + "' (lower-case letters, digits, '.', '-', 3 to 255 characters)");
        }
        String path = uri.getRawPath();
        if (path != null && !path.isEmpty() && !path.equals("/")) {
            throw new IllegalArgumentException("s3 URL '" + shown + "' has a path ('" + path
                    + "'); key prefixes are not supported, use only s3://BUCKET?...");
        }
        Map<String, String> params = parseQuery(uri.getRawQuery(), shown);

        URI endpoint = null;
        String endpointText = params.get("endpoint");
        if (endpointText != null) {
            endpoint = parseEndpoint(endpointText, shown);
        }
        String region = params.get("region");
        if (region != null && !region.matches("[a-z0-9\\-]+")) {
            throw new IllegalArgumentException("s3 URL '" + shown + "' has an invalid region '" + region + "'");
        }
        if (region == null && endpoint != null) {
            // S3-compatible servers ignore the region but SigV4 needs one.
            region = "us-east-1";
        }
        boolean pathStyle = endpoint != null;
        String pathStyleText = params.get("pathStyle");
        if (pathStyleText != null) {
            if (!pathStyleText.equals("true") && !pathStyleText.equals("false")) {
                throw new IllegalArgumentException("s3 URL '" + shown + "' has pathStyle='" + pathStyleText
                        + "'; expected true or false");
            }
            pathStyle = Boolean.parseBoolean(pathStyleText);
        }
        String accessKey = params.get("accessKey");
        String secretKey = params.get("secretKey");
        if ((accessKey == null) != (secretKey == null)) {
            throw new IllegalArgumentException("s3 URL '" + shown
                    + "' must give both accessKey and secretKey, or neither (to use the default credentials chain)");
        }
        return new S3Location(bucket, endpoint, region, pathStyle, accessKey, secretKey);
    }

    private static Map<String, String> parseQuery(String rawQuery, String shown) {
        Map<String, String> params = new LinkedHashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return params;
        }
        for (String pair : rawQuery.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            if (!PARAMETERS.contains(name)) {
                throw new IllegalArgumentException("s3 URL '" + shown + "' has unknown parameter '" + name
                        + "'; known: " + PARAMETERS);
            }
            if (eq < 0 || eq == pair.length() - 1) {
                throw new IllegalArgumentException("s3 URL '" + shown + "' has no value for '" + name + "'");
            }
            // Secrets often contain '+'; URLDecoder would turn it into a space.
            String value = URLDecoder.decode(pair.substring(eq + 1).replace("+", "%2B"), StandardCharsets.UTF_8);
            if (params.put(name, value) != null) {
                throw new IllegalArgumentException("s3 URL '" + shown + "' repeats parameter '" + name + "'");
            }
        }
        return params;
    }

    private static URI parseEndpoint(String text, String shown) {
        URI endpoint;
        try {
            endpoint = new URI(text);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("s3 URL '" + shown + "' has a bad endpoint '" + text
                    + "' (" + e.getReason() + "); expected http(s)://HOST[:PORT]", e);
        }
        String scheme = endpoint.getScheme() == null ? "" : endpoint.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || endpoint.getHost() == null) {
            throw new IllegalArgumentException("s3 URL '" + shown + "' has a bad endpoint '" + text
                    + "'; expected http(s)://HOST[:PORT]");
        }
        if (endpoint.getRawQuery() != null || endpoint.getRawPath() != null && endpoint.getRawPath().length() > 1) {
            throw new IllegalArgumentException("s3 URL '" + shown + "' has an endpoint with a path or query '" + text
                    + "'; expected http(s)://HOST[:PORT]");
        }
        return endpoint;
    }

    @Override
    public String toString() {
        return "s3://" + bucket + (endpoint == null ? "" : " at " + endpoint) + (region == null ? "" : " in " + region)
                + (pathStyle ? " (path style)" : "") + (accessKey == null ? " (default credentials)" : " as " + accessKey);
    }
}
