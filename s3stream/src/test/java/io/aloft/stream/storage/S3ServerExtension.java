package io.aloft.stream.storage;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension giving a test class a bucket on a real S3-protocol server (versitygw, or
 * MinIO with {@code -Daloft.test.s3=minio}). Register it in a static field:
 *
 * <pre>
 * &#64;RegisterExtension
 * static final S3ServerExtension S3 = new S3ServerExtension();
 * ...
 * try (ObjectStorage storage = ObjectStorages.open(S3.url())) { ... }
 * </pre>
 *
 * <p>One server process serves the whole test run (it lives in the root extension store, which
 * closes it, stopping the process, when the run ends); each class gets its own bucket and can
 * make more with {@link #newBucketUrl()}. Thread-safe once {@code beforeAll} has run.
 */
public final class S3ServerExtension implements BeforeAllCallback {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(S3ServerExtension.class);
    private static final AtomicLong BUCKETS = new AtomicLong();

    private volatile S3Server server;
    private volatile String url;

    @Override
    public void beforeAll(ExtensionContext context) {
        S3Server.Kind kind = S3Server.configuredKind();
        // The root store closes AutoCloseable values when the whole run ends.
        server = context.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent(kind, S3Server::start, S3Server.class);
        url = newBucketUrl();
    }

    /** The {@code s3://} URL of this class's bucket. */
    public String url() {
        requireStarted();
        return url;
    }

    /** Creates another empty bucket and returns its URL: for tests that need a clean namespace. */
    public String newBucketUrl() {
        requireStarted();
        String bucket = "aloft-test-" + ProcessHandle.current().pid() + "-" + BUCKETS.incrementAndGet();
        return server.createBucket(bucket.toLowerCase(Locale.ROOT));
    }

    public S3Server server() {
        requireStarted();
        return server;
    }

    private void requireStarted() {
        if (server == null) {
            throw new IllegalStateException("S3ServerExtension is not started: register it with @RegisterExtension"
                    + " on a static field");
        }
    }
}
